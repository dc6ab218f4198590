"""Metadata keys the framework wrappers read and write, shared so both agree.

A reranked document/node gains ``relevance_score`` (the fused score, the key LangChain
rerankers use), ``cage_similarity`` (the query similarity used), ``cage_coherence`` and
``cage_rank``. A passage graph
computed at ingest is stored under ``cage_graph`` as ``PassageGraph.to_text()`` (a JSON
string, so flat-metadata vector stores accept it). A retriever's own query similarity
travels under ``retrieval_score``.
"""

from __future__ import annotations

from typing import Any

from cage_core.passage import Passage, RankedPassage

GRAPH_KEY = "cage_graph"
TITLE_KEY = "title"
RETRIEVAL_SCORE_KEY = "retrieval_score"
RELEVANCE_SCORE_KEY = "relevance_score"
CAGE_SIMILARITY_KEY = "cage_similarity"
CAGE_COHERENCE_KEY = "cage_coherence"
CAGE_RANK_KEY = "cage_rank"
SCORE_KEYS: tuple[str, ...] = (
    RELEVANCE_SCORE_KEY, CAGE_SIMILARITY_KEY, CAGE_COHERENCE_KEY, CAGE_RANK_KEY,
)  # fmt: skip


def ranked_metadata(metadata: dict[str, Any], ranked: RankedPassage) -> dict[str, Any]:
    """A copy of ``metadata`` with the scores of ``ranked`` added (the input is untouched)."""
    out = dict(metadata)
    out[RELEVANCE_SCORE_KEY] = ranked.score
    out[CAGE_SIMILARITY_KEY] = ranked.similarity
    out[CAGE_COHERENCE_KEY] = ranked.coherence
    out[CAGE_RANK_KEY] = ranked.rank
    return out


def passage_from_metadata(
    text: str, metadata: dict[str, Any], title_key: str | None, id: str | None = None
) -> Passage:
    """The passage a framework document stands for: its text and, if present, its title.

    Ingest transformers and rerankers both build passages with this, so a graph stored at
    ingest is the graph of exactly what is reranked.
    """
    title = metadata.get(title_key) if title_key else None
    return Passage(text=text, title=title if isinstance(title, str) else "", id=id)
