"""Metadata keys the framework wrappers read and write, shared so both agree.

A reranked document/node gains ``relevance_score`` (the fused score, the key LangChain
rerankers use), ``cage_similarity`` (the query similarity used), ``cage_coherence``,
``cage_rank`` and ``cage_via`` (:attr:`RankedPassage.via <cage_core.passage.RankedPassage.via>`
as ``{"name": str, "rank": int}``, or ``None``: JSON-safe). A passage graph
computed at ingest is stored under ``cage_graph`` as ``PassageGraph.to_text()`` (a JSON
string, so flat-metadata vector stores accept it). A retriever's own query similarity
travels under ``retrieval_score``. A document an expansion retriever added
(:mod:`cage_core.link_expansion`) carries ``cage_expanded_via`` (the name that linked it)
and ``cage_expanded_from`` (the id of the retrieved document it was reached from).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from cage_core.passage import Passage, RankedPassage, Via

__all__ = [
    "CAGE_COHERENCE_KEY",
    "CAGE_RANK_KEY",
    "CAGE_SIMILARITY_KEY",
    "CAGE_VIA_KEY",
    "EXPANDED_FROM_KEY",
    "EXPANDED_VIA_KEY",
    "EXPANSION_KEYS",
    "GRAPH_KEY",
    "RANKED_KEYS",
    "RELEVANCE_SCORE_KEY",
    "RETRIEVAL_SCORE_KEY",
    "SCORE_KEYS",
    "TITLE_KEY",
    "chain_from_metadata",
    "is_finite_score",
    "passage_from_metadata",
    "ranked_metadata",
    "via_from_metadata",
]

GRAPH_KEY = "cage_graph"
TITLE_KEY = "title"
RETRIEVAL_SCORE_KEY = "retrieval_score"
RELEVANCE_SCORE_KEY = "relevance_score"
CAGE_SIMILARITY_KEY = "cage_similarity"
CAGE_COHERENCE_KEY = "cage_coherence"
CAGE_RANK_KEY = "cage_rank"
CAGE_VIA_KEY = "cage_via"
SCORE_KEYS: tuple[str, ...] = (
    RELEVANCE_SCORE_KEY, CAGE_SIMILARITY_KEY, CAGE_COHERENCE_KEY, CAGE_RANK_KEY,
)  # fmt: skip
RANKED_KEYS: tuple[str, ...] = (*SCORE_KEYS, CAGE_VIA_KEY)
"""Every key :func:`ranked_metadata` writes."""
EXPANDED_VIA_KEY = "cage_expanded_via"
EXPANDED_FROM_KEY = "cage_expanded_from"
EXPANSION_KEYS: tuple[str, ...] = (EXPANDED_VIA_KEY, EXPANDED_FROM_KEY)
"""Every key an expansion retriever writes on the documents it adds."""


def is_finite_score(value: object) -> bool:
    """A finite real number (int, float or a numpy scalar; not a bool): a usable score."""
    return (isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
            and math.isfinite(float(value)))  # fmt: skip


def ranked_metadata(metadata: dict[str, Any], ranked: RankedPassage) -> dict[str, Any]:
    """A copy of ``metadata`` with the scores of ``ranked`` added (the input is untouched)."""
    out = dict(metadata)
    out[RELEVANCE_SCORE_KEY] = ranked.score
    out[CAGE_SIMILARITY_KEY] = ranked.similarity
    out[CAGE_COHERENCE_KEY] = ranked.coherence
    out[CAGE_RANK_KEY] = ranked.rank
    out[CAGE_VIA_KEY] = None if ranked.via is None else {"name": ranked.via.name, "rank": ranked.via.rank}
    return out


def via_from_metadata(value: Any) -> Via | None:
    """The :class:`~cage_core.passage.Via` that :func:`ranked_metadata` stored as ``value``;
    ``None`` for ``None`` or anything else (metadata is untrusted: a value that is not a
    mapping with a string ``name`` and a non-negative int ``rank`` is no via)."""
    if not isinstance(value, dict):
        return None
    name, rank = value.get("name"), value.get("rank")
    if not isinstance(name, str) or isinstance(rank, bool) or not isinstance(rank, int) or rank < 0:
        return None
    return Via(name, rank)


def chain_from_metadata(metadatas: Sequence[Mapping[str, Any]]) -> list[Via | None]:
    """The chain of reranked documents, as :func:`cage_core.extractive.extractive_answer` takes
    it: for each document, its via with ``rank`` turned into the position, in ``metadatas``, of
    the document whose ``cage_rank`` it names; ``None`` where that document is not an earlier
    one of them (e.g. it was cut away) or the metadata holds no via."""
    position: dict[int, int] = {}
    for r, m in enumerate(metadatas):
        rank = m.get(CAGE_RANK_KEY)
        if isinstance(rank, int) and not isinstance(rank, bool):
            position.setdefault(rank, r)
    chain: list[Via | None] = []
    for r, m in enumerate(metadatas):
        via = via_from_metadata(m.get(CAGE_VIA_KEY))
        earlier = None if via is None else position.get(via.rank)
        chain.append(Via(via.name, earlier) if via is not None and earlier is not None and earlier < r else None)
    return chain


def passage_from_metadata(
    text: str, metadata: dict[str, Any], title_key: str | None, id: str | None = None
) -> Passage:
    """The passage a framework document stands for: its text and, if present, its title.

    Ingest transformers and rerankers both build passages with this, so a graph stored at
    ingest is the graph of exactly what is reranked.
    """
    title = metadata.get(title_key) if title_key else None
    return Passage(text=text, title=title if isinstance(title, str) else "", id=id)
