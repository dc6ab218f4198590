"""Whether a pool's retriever scores are reciprocal-rank-fusion values, not similarities.

Hybrid retrievers fuse the rankings of their legs: LlamaIndex's ``QueryFusionRetriever``
(default mode) sets each node's score to ``Σ 1/(60 + rank)`` over the lists that found it
(0.0164 for a node one list ranked first, 0.0328 for one both ranked first). A reranker that
read those as query similarities would rank by the fusion and report a pool's evidence near 0:
every on-topic question below the 0.5 cutoff. :func:`rank_fusion_values` recognises them
exactly: every score is a sum of one to :data:`MAX_LISTS` terms ``1/(k + r)`` with ``k`` =
:data:`RRF_K` and a rank ``r`` below :data:`MAX_RANK` (LangChain's ``EnsembleRetriever``
writes no scores; ranks from 0 or 1 are both covered). A cosine pool whose best score is above
``MAX_LISTS / RRF_K`` (0.067) is rejected by one comparison; a pool of similarities that
all happen to be such sums to within 1e-12 is, for three or more passages, below one chance
in a million. Other fusions (LlamaIndex's ``relative_score``, ``dist_based_score``) give
min-max scaled values that no test can tell from similarities: behind any fusion retriever,
give the reranker the store (``CageRerank(vectorstore=...)`` / ``CageRerank(index=...)``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = [
    "MAX_LISTS",
    "MAX_RANK",
    "RRF_K",
    "rank_fusion_values",
]

RRF_K = 60
"""The constant of reciprocal rank fusion in LlamaIndex's and LangChain's fusion retrievers."""
MAX_LISTS = 4
"""The most ranked lists (retrievers × queries) a recognised fused score sums."""
MAX_RANK = 256
"""Ranks below this are recognised (a leg's ``similarity_top_k``)."""
_TOLERANCE = 1e-12

_terms = 1.0 / (RRF_K + np.arange(MAX_RANK, dtype=np.float64))
_pairs = np.unique(
    np.concatenate([[0.0], _terms, (_terms[:, None] + _terms[None, :])[np.triu_indices(MAX_RANK)]])
)
"""Every sum of zero to two terms, sorted: a sum of up to four is one of these plus another."""


def _is_fused(score: float) -> bool:
    rest = score - _pairs
    rest = rest[rest > -_TOLERANCE]
    at = np.clip(np.searchsorted(_pairs, rest), 1, len(_pairs) - 1)
    nearest = np.minimum(np.abs(_pairs[at] - rest), np.abs(_pairs[at - 1] - rest))
    return bool((nearest <= _TOLERANCE).any())


def rank_fusion_values(scores: Sequence[float] | np.ndarray) -> bool:
    """Whether every one of ``scores`` (a non-empty pool) is a reciprocal-rank-fusion value
    (module docstring)."""
    values = np.asarray(scores, dtype=np.float64)
    if values.size == 0 or not np.isfinite(values).all():
        return False
    if values.max() > MAX_LISTS / RRF_K + _TOLERANCE or values.min() <= 0:
        return False
    return all(_is_fused(float(s)) for s in values)
