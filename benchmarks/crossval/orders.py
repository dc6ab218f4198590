"""The rankings the tuning scripts compare, of a pool dict (:mod:`crossval.dev_pools`).

``cage_order`` is :func:`cage_core.methods.cage.score_pool`'s, the product's own code path;
``hybrid_order`` the relevance order ``z(cosine) + lexical_weight · z(BM25)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from cage_core import CageConfig
from cage_core.methods.cage import score_pool
from cage_core.ranking.pool_bm25 import pool_bm25
from cage_core.scoring import ranking, standardize

__all__ = ["cage_order", "has_documents", "hybrid_order"]


def cage_order(pool: Mapping[str, Any], config: CageConfig) -> np.ndarray:
    """The pool ranked by CAGE under ``config`` (the fused score)."""
    scores = score_pool(pool["query"], pool["passages"], pool["sims"], pool["graphs"], config)
    return ranking(scores.fused)


def hybrid_order(pool: Mapping[str, Any], config: CageConfig) -> np.ndarray:
    """The pool ranked by its relevance alone (cosine and pool BM25, standardised)."""
    texts = [p.content for p in pool["passages"]]
    return ranking(
        standardize(pool["sims"])
        + config.lexical_weight * standardize(pool_bm25(pool["query"], texts))
    )


def has_documents(pool: Mapping[str, Any]) -> bool:
    """Whether two passages of the pool share a ``doc_id`` (the document view acts)."""
    docs = [p.doc_id for p in pool["passages"] if getattr(p, "doc_id", None) is not None]
    return len(docs) > len(set(docs))
