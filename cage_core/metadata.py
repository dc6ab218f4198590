"""Metadata keys the framework wrappers read and write, shared so both agree.

A reranked document/node gains ``relevance_score`` (a 0–1 relevance that carries the pool's
evidence and keeps the fused order: :mod:`cage_core.relevance`; the key LangChain rerankers
use), ``cage_score`` (the fused score itself), ``cage_similarity`` (the query similarity used),
``cage_coherence`` (:attr:`RankedPassage.coherence <cage_core.passage.RankedPassage.coherence>`:
the strength in [0, 1] of the link ``cage_via`` names, 0 without one), ``cage_rank``,
``cage_via`` (:attr:`RankedPassage.via <cage_core.passage.RankedPassage.via>` as
``{"name": str, "rank": int, "kind": "title" | "entity" | "document"}``, or ``None``:
JSON-safe; a document link's name reads ``"same document: Acme, next chunk"``) and
``cage_path`` (the path the pool took, ``str`` of :attr:`RankedPassage.path
<cage_core.passage.RankedPassage.path>`, e.g. ``"untitled, gated: few_subjects"``). A
passage graph computed at ingest is stored under ``cage_graph`` as ``PassageGraph.to_text()``
(a JSON string, so flat-metadata vector stores accept it), and the name of its document as
ingest read it (the link index record's: ``"RFC 9110: HTTP Semantics"``) under
``cage_document``, which a document link's via names it by. A retriever's own query similarity
travels under ``retrieval_score``. A document an expansion retriever added
(:mod:`cage_core.expansion.contract`) carries ``cage_expanded_via`` (the name that linked it)
and ``cage_expanded_from`` (the id of the retrieved document it was reached from).

**Document structure.** A chunk's document and its place in it
(:attr:`Passage.doc_id <cage_core.passage.Passage.doc_id>`,
:attr:`Passage.position <cage_core.passage.Passage.position>`) are read by
:func:`passages_from_metadata`:

* ``doc_id``: the framework's own document id when it has one (LlamaIndex ``ref_doc_id``),
  else the first of the metadata keys :data:`DOC_ID_METADATA_KEYS` holding a non-empty
  string (or an int, as a string): ``doc_id``, ``document_id``, ``source`` (LangChain
  loaders), ``file_path`` (LlamaIndex ``SimpleDirectoryReader``). A ``source`` or
  ``file_path`` names a file, and a file may hold many documents (a JSON Lines corpus, a
  dataset name): when the chunk has a title, its document is ``"{source}#{title}"``
  (:data:`COLLECTION_KEYS`), so passages of different titles never count as one document,
  while a document's chunks, which inherit its title from the splitter, still do;
* ``position``: an explicit non-negative int under :data:`POSITION_METADATA_KEYS`
  (``position``, ``chunk_index``) when any chunk of that document in the list has one;
  else the rank, among the list's chunks of the same document, of their character offset
  (LangChain ``metadata["start_index"]`` from a splitter with ``add_start_index=True``;
  LlamaIndex ``start_char_idx``), after the page (:data:`PAGE_METADATA_KEYS`, for loaders
  that split a file into pages first); where an ingest component wrote the chunk's order
  (:data:`ORDER_METADATA_KEY`: the splitter kept no offset,
  :mod:`cage_core.integrations.chunk_order`), that order instead of the offset. Ranked
  positions keep the document's order, not its distances: chunks 3 and 7 of a report,
  retrieved together, get positions 0 and 1. The ingest components see a document's chunks
  together, so the positions they store are its true order when a document is split and
  ingested in one call.

A chunk without a document gets ``doc_id=None`` and ``position=None`` (it is its own
document); a chunk of a known document whose place is unknown gets ``position=None``.
Malformed values (a negative position, a float, a bool) are ignored the same way, never an
error: metadata is untrusted.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cage_core.passage import LINK_KINDS, Passage, RankedPassage, Via

__all__ = [
    "CAGE_COHERENCE_KEY",
    "CAGE_PATH_KEY",
    "CAGE_RANK_KEY",
    "CAGE_SIMILARITY_KEY",
    "CAGE_VIA_KEY",
    "DOCUMENT_NAME_KEY",
    "MAX_DOCUMENT_NAME_CHARS",
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
    "document_name",
    "is_finite_score",
    "ranked_metadata",
    "via_from_metadata",
]

GRAPH_KEY = "cage_graph"
DOCUMENT_NAME_KEY = "cage_document"
MAX_DOCUMENT_NAME_CHARS = 200
"""A document's name (a link index record's, or read from metadata) is cut to this many
characters."""
TITLE_KEY = "title"
RETRIEVAL_SCORE_KEY = "retrieval_score"
RELEVANCE_SCORE_KEY = "relevance_score"
CAGE_SCORE_KEY = "cage_score"
CAGE_SIMILARITY_KEY = "cage_similarity"
CAGE_COHERENCE_KEY = "cage_coherence"
CAGE_RANK_KEY = "cage_rank"
CAGE_VIA_KEY = "cage_via"
CAGE_PATH_KEY = "cage_path"
SCORE_KEYS: tuple[str, ...] = (
    RELEVANCE_SCORE_KEY,
    CAGE_SCORE_KEY,
    CAGE_SIMILARITY_KEY,
    CAGE_COHERENCE_KEY,
    CAGE_RANK_KEY,
)
RANKED_KEYS: tuple[str, ...] = (*SCORE_KEYS, CAGE_VIA_KEY, CAGE_PATH_KEY)
"""Every key :func:`ranked_metadata` writes."""
EXPANDED_VIA_KEY = "cage_expanded_via"
EXPANDED_FROM_KEY = "cage_expanded_from"
EXPANSION_KEYS: tuple[str, ...] = (EXPANDED_VIA_KEY, EXPANDED_FROM_KEY)
"""Every key an expansion retriever writes on the documents it adds."""
DOC_ID_METADATA_KEYS: tuple[str, ...] = ("doc_id", "document_id", "source", "file_path")
"""Metadata keys a chunk's document id is read from, in this order (module docstring)."""
COLLECTION_KEYS: frozenset[str] = frozenset({"source", "file_path"})
"""Of :data:`DOC_ID_METADATA_KEYS`, those that name a file (possibly of many documents): a
titled chunk's document is then ``"{value}#{title}"``."""
POSITION_METADATA_KEYS: tuple[str, ...] = ("position", "chunk_index")
"""Metadata keys of a chunk's explicit 0-based position in its document, in this order."""
OFFSET_METADATA_KEY = "start_index"
"""Metadata key of a chunk's character offset in its document (LangChain ``add_start_index``)."""
ORDER_METADATA_KEY = "cage_chunk_order"
"""Metadata key of a chunk's order among its document's chunks, written at ingest where the
splitter kept no offset (:mod:`cage_core.integrations.chunk_order`); read before the offset."""
PAGE_METADATA_KEYS: tuple[str, ...] = ("page", "page_number")
"""Metadata keys of the page a chunk was cut from (ordered before the offset)."""


def is_finite_score(value: object) -> bool:
    """A finite real number (int, float or a numpy scalar; not a bool): a usable score."""
    return (
        isinstance(value, numbers.Real)
        and not isinstance(value, (bool, np.bool_))
        and math.isfinite(float(value))
    )


def ranked_metadata(
    metadata: dict[str, Any], ranked: RankedPassage, relevance_score: float
) -> dict[str, Any]:
    """A copy of ``metadata`` with the scores of ``ranked`` added (the input is untouched):
    ``relevance_score`` = the given 0–1 score (the wrappers compute it with
    :func:`~cage_core.relevance.pool_relevance`), and the result's fused score, similarity,
    coherence, rank, via and path under the ``cage_*`` keys of the module docstring."""
    out = dict(metadata)
    out[RELEVANCE_SCORE_KEY] = relevance_score
    out[CAGE_SCORE_KEY] = ranked.score
    out[CAGE_SIMILARITY_KEY] = ranked.similarity
    out[CAGE_COHERENCE_KEY] = ranked.coherence
    out[CAGE_RANK_KEY] = ranked.rank
    via = ranked.via
    out[CAGE_VIA_KEY] = (
        None if via is None else {"name": via.name, "rank": via.rank, "kind": via.kind}
    )
    out[CAGE_PATH_KEY] = str(ranked.path)
    return out


def via_from_metadata(value: Any) -> Via | None:
    """The :class:`~cage_core.passage.Via` that :func:`ranked_metadata` stored as ``value``;
    ``None`` for ``None`` or anything else (metadata is untrusted: a value that is not a
    mapping with a string ``name``, a non-negative int ``rank`` and, if any, a ``kind`` of
    :data:`~cage_core.passage.LINK_KINDS` is no via). A via stored without a kind (by
    cage-rag 0.4 and earlier) is read as an entity link."""
    if not isinstance(value, dict):
        return None
    name, rank, kind = value.get("name"), value.get("rank"), value.get("kind", "entity")
    if not isinstance(name, str) or isinstance(rank, bool) or not isinstance(rank, int) or rank < 0:
        return None
    if kind not in LINK_KINDS:
        return None
    return Via(name, rank, kind)


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
        chain.append(
            via._replace(rank=earlier)
            if via is not None and earlier is not None and earlier < r
            else None
        )
    return chain


@dataclass(frozen=True)
class ChunkPlace:
    """What one chunk's metadata says of its place (module docstring), before the positions
    of a list of chunks are resolved by :func:`document_positions`.

    Attributes:
        doc_id: its document, or ``None``.
        position: its explicit 0-based position, or ``None``.
        order: ``(page, cage_chunk_order or character offset)`` when one is known, else ``None``.
    """

    doc_id: str | None
    position: int | None = None
    order: tuple[int, int] | None = None


def _count(value: object) -> int | None:
    """``value`` as an int when it is a non-negative integer (not a bool), else ``None``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        return None
    number = int(value)
    return number if number >= 0 else None


def chunk_offset(metadata: Mapping[str, Any]) -> int | None:
    """A chunk's character offset in its document (:data:`OFFSET_METADATA_KEY`), when it is a
    non-negative integer, else ``None``."""
    return _count(metadata.get(OFFSET_METADATA_KEY))


def _first_count(metadata: Mapping[str, Any], keys: Sequence[str]) -> int | None:
    for key in keys:
        value = _count(metadata.get(key))
        if value is not None:
            return value
    return None


def chunk_place(
    metadata: Mapping[str, Any],
    *,
    doc_id: object = None,
    offset: object = None,
    title: str = "",
) -> ChunkPlace:
    """The :class:`ChunkPlace` of a chunk's ``metadata`` (module docstring); ``doc_id`` and
    ``offset`` are the framework's own values, preferred to the metadata's when usable;
    ``title`` (the chunk's title, if any) qualifies a :data:`COLLECTION_KEYS` document."""
    document = doc_id if isinstance(doc_id, str) and doc_id else None
    for key in DOC_ID_METADATA_KEYS:
        if document is not None:
            break
        value = metadata.get(key)
        if isinstance(value, str) and value:
            document = value
        elif _count(value) is not None:
            document = str(value)
        if document is not None and key in COLLECTION_KEYS and title.strip():
            document = f"{document}#{title.strip()}"
    if document is None:
        return ChunkPlace(None)
    start = _count(metadata.get(ORDER_METADATA_KEY))
    if start is None:
        start = _count(offset)
    if start is None:
        start = chunk_offset(metadata)
    page = _first_count(metadata, PAGE_METADATA_KEYS) or 0
    return ChunkPlace(
        document,
        _first_count(metadata, POSITION_METADATA_KEYS),
        None if start is None else (page, start),
    )


def document_positions(places: Sequence[ChunkPlace]) -> list[int | None]:
    """The position of each chunk of a list (module docstring): explicit positions where a
    document's chunks have any, else the rank of ``order`` among the list's chunks of that
    document (ties: list order); ``None`` for the rest."""
    explicit = {p.doc_id for p in places if p.doc_id is not None and p.position is not None}
    out: list[int | None] = [p.position if p.doc_id in explicit else None for p in places]
    ordered: dict[str, list[tuple[tuple[int, int], int]]] = {}
    for i, p in enumerate(places):
        if p.doc_id is not None and p.doc_id not in explicit and p.order is not None:
            ordered.setdefault(p.doc_id, []).append((p.order, i))
    for chunks in ordered.values():
        for rank, (_, i) in enumerate(sorted(chunks)):
            out[i] = rank
    return out


def passages_from_metadata(
    texts: Sequence[str],
    metadatas: Sequence[Mapping[str, Any]],
    title_key: str | None,
    ids: Sequence[str | None] | None = None,
    *,
    doc_ids: Sequence[object] | None = None,
    offsets: Sequence[object] | None = None,
) -> list[Passage]:
    """The passages of a list of framework documents: each text, its title
    (``metadata[title_key]`` when a string), its id, and ``doc_id`` and ``position`` as the
    module docstring says; ``doc_ids`` and ``offsets`` are the framework's own document ids
    and character offsets per chunk (LlamaIndex ``ref_doc_id`` and ``start_char_idx``;
    ``None`` entries fall back to the metadata). Positions are resolved over the whole list.

    Ingest transformers and rerankers both build passages with this, so a graph stored at
    ingest is the graph of exactly what is reranked (``doc_id`` and ``position`` are never
    parsed).
    """
    n = len(texts)
    if len(metadatas) != n or any(len(x) != n for x in (ids, doc_ids, offsets) if x is not None):
        raise ValueError("texts, metadatas and the optional ids, doc_ids, offsets differ in length")
    found = [m.get(title_key) if title_key else None for m in metadatas]
    titles = [t if isinstance(t, str) else "" for t in found]
    places = [
        chunk_place(
            m,
            doc_id=None if doc_ids is None else doc_ids[i],
            offset=None if offsets is None else offsets[i],
            title=titles[i],
        )
        for i, m in enumerate(metadatas)
    ]
    positions = document_positions(places)
    return [
        Passage(
            text=t,
            title=titles[i],
            id=None if ids is None else ids[i],
            doc_id=places[i].doc_id,
            position=positions[i],
            document_name=document_name(metadatas[i]) if places[i].doc_id is not None else "",
        )
        for i, t in enumerate(texts)
    ]


def document_name(metadata: Mapping[str, Any]) -> str:
    """The name of a chunk's document ingest wrote under :data:`DOCUMENT_NAME_KEY`, spaces
    collapsed, at most :data:`MAX_DOCUMENT_NAME_CHARS` characters; "" when it holds no string
    (metadata is untrusted)."""
    value = metadata.get(DOCUMENT_NAME_KEY)
    return " ".join(value.split())[:MAX_DOCUMENT_NAME_CHARS] if isinstance(value, str) else ""
