"""One rerank call of a framework wrapper: the ranked passages and the 0–1 score each carries.

The wrapper checks its call once (:meth:`CageReranker.checked_pool
<cage_core.reranker.CageReranker.checked_pool>`: its passages, question, route and
similarities) and hands the :class:`~cage_core.call_checks.CheckedPool` down; nothing here
converts or checks it again.

The score (:func:`cage_core.relevance.pool_relevance`) reads the maximum similarity of the
whole pool and the question's words one passage of the whole pool holds
(:func:`~cage_core.ranking.pool_bm25.query_word_coverage`), not those of the ``top_n``
returned: a passage the ranking placed below ``top_n`` can be the pool's best match. When the
pool has no similarities, they are computed here, by the reranker's own
:meth:`~cage_core.CageReranker.pool_similarities` (what ``rank_pool`` would compute from them,
so the ranking is the same). A routed pool (the documents the question names,
:mod:`cage_core.integrations.document_routing`) is ranked for its ``question``, the question
less their naming words, and similarities computed here are that question's; the coverage
reads the question as asked (``query``), naming words included.
"""

from __future__ import annotations

from collections.abc import Sequence

from cage_core.call_checks import CheckedPool, check_top_n
from cage_core.graphs.passage_graph import PassageGraph
from cage_core.passage import RankedPassage
from cage_core.ranking.pool_bm25 import query_word_coverage
from cage_core.relevance import pool_relevance
from cage_core.reranker import CageReranker

__all__ = ["scored_rerank"]


def scored_rerank(
    reranker: CageReranker,
    pool: CheckedPool,
    top_n: int | None,
    graphs: Sequence[PassageGraph | None] | None = None,
) -> list[tuple[RankedPassage, float]]:
    """``reranker.rank_pool`` of ``pool``, each result with its
    :func:`~cage_core.relevance.pool_relevance` score (module docstring)."""
    top_n = check_top_n(top_n)
    if pool.similarities is None and pool.passages:
        pool = pool.with_similarities(reranker.pool_similarities(pool))
    ranked = reranker.rank_pool(pool, top_n, graphs)
    if not ranked:
        return []
    assert pool.similarities is not None  # ranked passages came from a pool with similarities
    coverage = query_word_coverage(pool.query, [p.content for p in pool.passages])
    scores = pool_relevance([r.score for r in ranked], pool.similarities, coverage)
    return [(r, float(score)) for r, score in zip(ranked, scores)]
