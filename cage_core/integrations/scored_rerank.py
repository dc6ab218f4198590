"""One rerank call of a framework wrapper: the ranked passages and the 0–1 score each carries.

The score (:func:`cage_core.relevance.pool_relevance`) reads the maximum similarity of the
whole pool and the question's words one passage of the whole pool holds
(:func:`~cage_core.ranking.pool_bm25.query_word_coverage`), not those of the ``top_n``
returned: a passage the ranking placed below ``top_n`` can be the pool's best match. When the caller has no similarities, they are computed here, by
the reranker's own :meth:`~cage_core.CageReranker.similarities` (what ``rerank`` would compute
from them, so the ranking is the same), after the pool bound is checked, as ``rerank`` checks it
before embedding anything. With a ``route`` (the documents the question names,
:mod:`cage_core.integrations.document_routing`) the pool is ranked for the question less their
naming words, and similarities computed here are that question's; the coverage reads the
question as asked, naming words included.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cage_core.call_checks import check_pool_size
from cage_core.graphs.passage_graph import PassageGraph
from cage_core.names.routes import DocumentRoute
from cage_core.passage import Passage, RankedPassage
from cage_core.ranking.pool_bm25 import query_word_coverage
from cage_core.relevance import pool_relevance
from cage_core.reranker import CageReranker

__all__ = ["scored_rerank"]


def scored_rerank(
    reranker: CageReranker,
    query: str,
    passages: list[Passage],
    top_n: int | None,
    similarities: np.ndarray | None,
    graphs: Sequence[PassageGraph | None] | None,
    route: DocumentRoute | None = None,
) -> list[tuple[RankedPassage, float]]:
    """``reranker.rerank`` of the pool, each result with its
    :func:`~cage_core.relevance.pool_relevance` score (module docstring)."""
    if similarities is None and passages:
        check_pool_size(len(passages), reranker.max_pool)
        similarities = reranker.similarities(route.question if route else query, passages)
    ranked = reranker.rerank(
        query, passages, top_n=top_n, query_similarities=similarities, graphs=graphs, route=route
    )
    if not ranked:
        return []
    assert (
        similarities is not None
    )  # ranked passages came from a pool, whose similarities these are
    coverage = query_word_coverage(query, [p.content for p in passages])
    scores = pool_relevance([r.score for r in ranked], similarities, coverage)
    return [(r, float(score)) for r, score in zip(ranked, scores)]
