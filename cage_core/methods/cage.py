"""CAGE and its ablations as ranking methods over a shared :class:`Pool`."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from cage_core.config import CageConfig
from cage_core.encoder import encode_pool
from cage_core.methods.base import Pool
from cage_core.scoring import coherence_matrix, coherence_scores, fuse


@dataclass(frozen=True)
class CageMethod:
    """``f_i = α·sim + (1−α)·s_i/(k−1)`` with the encoder and weights of ``config``.

    Variants that differ only in α share one encoding of the pool (through ``pool.memo``);
    a variant that reuses an encoding records its cost under ``("reused-seconds", name)``
    so evaluation latency still counts it.
    """

    name: str
    config: CageConfig
    needs_graphs: bool = True

    def coherence(self, pool: Pool) -> np.ndarray:
        """``[k]`` coherence scores s_i/(k−1) of the pool under this method's encoder."""
        if pool.graphs is None:
            raise ValueError(f"method {self.name!r} needs the pool's passage graphs")
        key = ("cage-coherence", self.config.replace(alpha=0.0))
        if key in pool.memo:
            scores, seconds = pool.memo[key]
            pool.memo[("reused-seconds", self.name)] = seconds
            return scores
        start = time.perf_counter()
        embeddings = encode_pool(pool.graphs, self.config).embeddings
        scores = coherence_scores(coherence_matrix(embeddings))
        pool.memo[key] = (scores, time.perf_counter() - start)
        return scores

    def score(self, pool: Pool) -> np.ndarray:
        return fuse(pool.similarities, self.coherence(pool), self.config.alpha)
