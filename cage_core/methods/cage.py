"""CAGE and its ablations as ranking methods over a shared :class:`Pool`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cage_core.config import CageConfig
from cage_core.methods.base import Pool
from cage_core.ranking.fusion import score_pool
from cage_core.ranking.pool_scores import PoolScores

__all__ = [
    "CageMethod",
]


@dataclass(frozen=True)
class CageMethod:
    """CAGE under ``config`` (see :mod:`cage_core.ranking.fusion`); what :class:`CageReranker
    <cage_core.reranker.CageReranker>` runs by default.

    Variants with the same encoder config share one encoding of the pool
    (:attr:`Pool.encodings <cage_core.methods.base.Pool.encodings>`).
    """

    name: str
    config: CageConfig
    needs_graphs: bool = True

    @property
    def needs_vectors(self) -> bool:
        """Whether this variant runs the R-GCN (which reads node word vectors)."""
        return self.config.uses_rgcn

    def pool_scores(self, pool: Pool) -> PoolScores:
        """Relevance, coherence, fused scores and pairwise matrix of ``pool``."""
        if pool.graphs is None:
            raise ValueError(f"method {self.name!r} needs the pool's passage graphs")
        return score_pool(
            pool.query, pool.passages, pool.similarities, pool.graphs, self.config, pool.encodings
        )

    def score(self, pool: Pool) -> np.ndarray:
        return self.pool_scores(pool).fused
