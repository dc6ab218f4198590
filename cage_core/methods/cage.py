"""CAGE and its ablations as ranking methods over a shared :class:`Pool`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cage_core.config import CageConfig
from cage_core.fusion import score_pool
from cage_core.methods.base import Pool


@dataclass(frozen=True)
class CageMethod:
    """CAGE under ``config`` (see :mod:`cage_core.fusion`).

    Variants with the same R-GCN encoder share one encoding of the pool (``pool.memo``);
    a variant that reuses one records its cost under ``("reused-seconds", name)`` so
    evaluation latency still counts it.
    """

    name: str
    config: CageConfig
    needs_graphs: bool = True

    @property
    def needs_vectors(self) -> bool:
        """Whether this variant runs the R-GCN (which reads node word vectors)."""
        return self.config.coherence == "rgcn" or bool(self.config.rgcn_weight)

    def score(self, pool: Pool) -> np.ndarray:
        if pool.graphs is None:
            raise ValueError(f"method {self.name!r} needs the pool's passage graphs")
        cost_key = ("rgcn-seconds", ("rgcn", self.config.encoder_key))
        reused = cost_key in pool.memo
        scores = score_pool(pool.query, pool.passages, pool.similarities, pool.graphs,
                            self.config, pool.memo)  # fmt: skip
        if reused and (self.config.coherence == "rgcn" or self.config.rgcn_weight):
            pool.memo[("reused-seconds", self.name)] = pool.memo[cost_key]
        return scores.fused
