"""Every ranking method's result in the reranker's form,
:class:`~cage_core.ranking.pool_scores.PoolScores`.

Kept apart from :mod:`cage_core.methods.base`, so that the protocol imports no implementation.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from cage_core.methods.base import ExplainedMethod, Pool, RankingMethod
from cage_core.ranking.pool_scores import PoolScores

__all__ = ["pool_scores"]


def pool_scores(method: RankingMethod, pool: Pool) -> PoolScores:
    """``method``'s scores of ``pool`` with their parts, checked (one finite score each).

    An :class:`ExplainedMethod` gives its own parts. For any other method the relevance is
    the pool's similarities, ``fused`` its scores, and it has no coherence term: coherence
    and the pairwise matrix are zeros.

    The scores' :attr:`~cage_core.ranking.pool_scores.PoolScores.method` is ``method``'s name;
    their :attr:`~cage_core.ranking.pool_scores.PoolScores.kind` is the pool kind CAGE (and
    every variant of it: ``hybrid``, the ablations) chose, ``None`` for a method that is not
    CAGE (``tegr``, ``bm25``), which has no gate either.
    """
    k = len(pool.passages)
    if isinstance(method, ExplainedMethod):
        scores = method.pool_scores(pool)
        if isinstance(scores, PoolScores) and not scores.method:
            scores = dataclasses.replace(scores, method=method.name)
    else:
        sims = np.asarray(pool.similarities, dtype=np.float64)
        fused = np.asarray(method.score(pool), dtype=np.float64)
        graphs = tuple(pool.graphs or ())
        scores = PoolScores(
            sims, np.zeros(k), fused, np.zeros((k, k)), graphs, sims, method=method.name
        )
    fused = scores.fused
    if fused.shape != (k,) or not np.isfinite(fused).all():
        raise ValueError(f"method {method.name!r} returned invalid scores of shape {fused.shape}")
    return scores
