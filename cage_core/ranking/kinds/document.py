"""The document kind: a bridge pool with document structure (two passages share a ``doc_id``).

Ranked by the document view of :mod:`cage_core.ranking.document_links`: ``r`` as the bridge
relevance with ``w_lex`` = ``document.lexical_weight`` over texts that inherit their
document's subject (:func:`~cage_core.ranking.document_links.document_relevance`), ``f`` the
view's, minus the contradiction demotion ``d``
(:func:`~cage_core.ranking.contradiction.contradiction_demotion`). The kind has no gate.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cage_core.config import DocumentConfig
from cage_core.graphs.passage_graph import PassageGraph
from cage_core.passage import Passage
from cage_core.ranking.document_links import document_names, document_relevance, document_view
from cage_core.ranking.links import pool_links
from cage_core.ranking.pool_scores import PoolScores

__all__ = ["document_scores"]


def document_scores(
    query: str,
    passages: Sequence[Passage],
    sims: np.ndarray,
    graphs: Sequence[PassageGraph],
    config: DocumentConfig,
    demotion: np.ndarray,
) -> PoolScores:
    """The document view's relevance and fused score, minus ``demotion``; of the other
    bridge inputs only the pool's links (for the explanations) are read."""
    names_of = document_names(passages, graphs)
    relevance = document_relevance(query, passages, sims, config.lexical_weight, names_of)
    view = document_view(query, passages, graphs, relevance, config, names_of)
    if view is None:
        raise ValueError("the document kind needs document.enabled and document structure")
    links = pool_links(query, [p.title for p in passages], [p.text for p in passages], graphs)
    return PoolScores(
        view.relevance,
        view.fused - view.relevance,
        view.fused - demotion,
        view.matrix,
        tuple(graphs),
        sims,
        (),
        links,
        view,
        kind="document",
    )
