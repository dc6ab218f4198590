"""Routing in the frameworks: what a routed pool carries from the expansion retriever to the
reranker.

When a question names documents of the collection
(:func:`~cage_core.expansion.routing.route_question` over the link index's
:meth:`documents <cage_core.expansion.index.LinkIndex.documents>`), the expansion retrievers
(:class:`cage_langchain.CageExpansionRetriever`, :class:`cage_llamaindex.CageExpansionRetriever`)
run, for each named document, the store's own search restricted to that document, with the question
less its naming words, and append its best ``RoutingSettings.chunks`` chunks to the pool (after the
retrieved and the linked passages; a chunk already in the pool, by id, is not added again: a clause
worded as another document's is still its own). Then every passage of the pool is handed on as a
copy whose metadata carries

* ``cage_route`` (:data:`ROUTE_KEY`): the route, JSON-safe (:func:`route_metadata`):
  ``{"asked": the question as asked, "question": the question less its naming words,
  "documents": [{"doc_id", "name", "score", "naming_words"}, ...]}``;
* ``cage_route_score`` (:data:`ROUTE_SCORE_KEY`): the store's relevance score of the passage
  for the shortened question, where the store gave one (the routed chunks' own search scores;
  the others' from a search restricted to their ids);

**One search.** The named documents' chunks (their ids by the link index,
:meth:`LinkIndex.chunks_of <cage_core.expansion.index.LinkIndex.chunks_of>`) and the pool's
passages are scored for the shortened question by *one* store search restricted to all their
ids (:func:`routed_search_ids`); each named document's best chunks are read off it
(:func:`best_named_chunks`). When the ids are more than :data:`ROUTED_SEARCH_IDS`, or the
search does not return every id it was restricted to (a store that ignores the restriction, a
chunk the store no longer holds), the wrappers run the two searches of the definition instead:
one restricted to each named document by its metadata, one to the pool's ids.

and each chunk added by routing also carries ``cage_expanded_via`` =
:attr:`NamedDocument.via <cage_core.names.routes.NamedDocument.via>` ("the question names
its document: …") and ``cage_named_document`` (:data:`NAMED_DOCUMENT_KEY`) = its document's id.

The rerankers read the route back with :func:`pool_route` (metadata is untrusted: a value that
is not a well-formed route is no route; a route asked for another question than the one being
reranked is no route either), make it part of the pool (:meth:`CageReranker.checked_pool
(route=...) <cage_core.reranker.CageReranker.checked_pool>`: its question and named passages)
and rank it: for the shortened question, with the ``cage_route_score`` similarities when every
passage has one (else by embedding the shortened question and the pool), the named documents'
passages first. Each ranked passage of a named document gets ``cage_expanded_via`` = that
document's ``via`` and ``cage_named_document``.
A pool without a route is ranked exactly as before.

**Which chunks are a document's.** A chunk's document is the one
:func:`~cage_core.metadata.chunk_place` reads, the rule the ingest components used for the
link index's ``doc_id``: the framework's own document id (LlamaIndex ``ref_doc_id``), else the
first of the metadata keys ``doc_id``, ``document_id``, ``source``, ``file_path``, a titled
``source`` / ``file_path`` chunk's document being ``"{value}#{title}"``. A store's metadata
filter is built from one stored chunk of the document (:func:`document_conditions`), and every
chunk a restricted search returns is checked against the rule (:func:`is_chunk_of`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np

from cage_core.expansion.documents import MAX_DOCUMENT_NAME_CHARS, MAX_WORD_CHARS, MAX_WORDS
from cage_core.expansion.index import LinkIndex
from cage_core.expansion.record import valid_id
from cage_core.expansion.routing import RoutingSettings, route_question
from cage_core.metadata import (
    COLLECTION_KEYS,
    DOC_ID_METADATA_KEYS,
    EXPANDED_VIA_KEY,
    chunk_place,
    is_finite_score,
)
from cage_core.names.routes import DocumentRoute, NamedDocument, named_documents_by_id

__all__ = [
    "MAX_ROUTED_DOCUMENTS",
    "ROUTED_SEARCH_IDS",
    "NAMED_DOCUMENT_KEY",
    "ROUTE_KEY",
    "ROUTE_SCORE_KEY",
    "ROUTING_KEYS",
    "best_named_chunks",
    "document_conditions",
    "is_chunk_of",
    "named_metadata",
    "pool_route",
    "route_from_metadata",
    "route_for",
    "route_metadata",
    "route_similarities",
    "routed_search_ids",
]

ROUTE_KEY = "cage_route"
ROUTE_SCORE_KEY = "cage_route_score"
NAMED_DOCUMENT_KEY = "cage_named_document"
ROUTING_KEYS: tuple[str, ...] = (ROUTE_KEY, ROUTE_SCORE_KEY, NAMED_DOCUMENT_KEY, EXPANDED_VIA_KEY)
"""Every key routing writes (hidden from LlamaIndex's embedding and LLM views)."""
MAX_ROUTED_DOCUMENTS = 16
"""A stored route naming more documents than this is no route."""
MAX_QUESTION_CHARS = 100_000
"""A stored route whose questions are longer than this is no route."""
ROUTED_SEARCH_IDS = 1_000
"""The most ids one restricted search of a route covers (module docstring, "One search"):
it returns every one of them, so beyond this the per-document searches, which return
``RoutingSettings.chunks`` each, cost less."""


def route_for(query: str, index: LinkIndex, settings: RoutingSettings | None) -> DocumentRoute:
    """The documents ``query`` names by ``index``'s document records
    (:func:`~cage_core.expansion.routing.route_question`); no route when ``settings`` is
    ``None`` (routing off)."""
    if settings is None:
        return DocumentRoute((), query)
    return route_question(query, index.documents(), settings)


def routed_search_ids(
    route: DocumentRoute, pool_ids: Sequence[str], chunks: Mapping[str, Sequence[str]]
) -> list[str] | None:
    """The ids one search for ``route.question`` is restricted to: the pool's, then each
    named document's chunks (``chunks``: doc_id → its chunk ids, the link index's
    :meth:`chunks_of <cage_core.expansion.index.LinkIndex.chunks_of>`), each once; ``None``
    when they are more than :data:`ROUTED_SEARCH_IDS`."""
    ids = dict.fromkeys(pool_ids)
    for named in route.documents:
        ids.update(dict.fromkeys(chunks.get(named.doc_id, ())))
        if len(ids) > ROUTED_SEARCH_IDS:
            return None
    return list(ids)


def best_named_chunks(
    route: DocumentRoute,
    scores: Mapping[str, float],
    chunks: Mapping[str, Sequence[str]],
    taken: Collection[str],
    k: int,
) -> list[tuple[NamedDocument, str]]:
    """Each named document's ``k`` best chunks (``chunks``: doc_id → its chunk ids) by
    ``scores`` (higher first; ties: the document's order), less those in ``taken`` and those
    scored for an earlier named document, in route order: what a search restricted to each
    document, best ``k`` first, then the pool's ids dropped, gives."""
    seen = set(taken)
    out = []
    for named in route.documents:
        mine = [i for i in chunks.get(named.doc_id, ()) if i in scores]
        best = sorted(range(len(mine)), key=lambda j: (-scores[mine[j]], j))[:k]
        for j in best:
            if mine[j] not in seen:
                seen.add(mine[j])
                out.append((named, mine[j]))
    return out


def route_metadata(asked: str, route: DocumentRoute) -> dict[str, Any]:
    """The ``cage_route`` value of a pool routed for ``asked`` (module docstring)."""
    return {
        "asked": asked,
        "question": route.question,
        "documents": [
            {
                "doc_id": d.doc_id,
                "name": d.name,
                "score": d.score,
                "naming_words": list(d.naming_words),
            }
            for d in route.documents
        ],
    }


def route_from_metadata(value: Any, query: str) -> DocumentRoute | None:
    """The route stored as ``value`` by :func:`route_metadata`, when it is well formed and was
    asked for ``query``; else ``None``."""
    if not isinstance(value, Mapping) or value.get("asked") != query:
        return None
    question, stored = value.get("question"), value.get("documents")
    if not isinstance(question, str) or not _text(question) or not isinstance(stored, list):
        return None
    if not 0 < len(stored) <= MAX_ROUTED_DOCUMENTS:
        return None
    documents = [_named_document(d) for d in stored]
    if any(d is None for d in documents) or len({d.doc_id for d in documents if d}) < len(stored):
        return None
    return DocumentRoute(tuple(d for d in documents if d is not None), question)


def _text(value: Any) -> bool:
    return isinstance(value, str) and 0 < len(value) <= MAX_QUESTION_CHARS and bool(value.strip())


def _named_document(value: Any) -> NamedDocument | None:
    if not isinstance(value, Mapping):
        return None
    doc_id, name, score = value.get("doc_id"), value.get("name"), value.get("score")
    words = value.get("naming_words")
    if (
        not isinstance(doc_id, str)
        or not valid_id(doc_id)
        or not isinstance(name, str)
        or len(name) > MAX_DOCUMENT_NAME_CHARS
        or not is_finite_score(score)
        or not isinstance(words, list)
        or not 0 < len(words) <= MAX_WORDS
        or any(not isinstance(w, str) or not 0 < len(w) <= MAX_WORD_CHARS for w in words)
    ):
        return None
    return NamedDocument(doc_id, name, float(score), tuple(words))  # type: ignore[arg-type]


def pool_route(metadatas: Sequence[Mapping[str, Any]], query: str) -> DocumentRoute | None:
    """The route of a pool being reranked for ``query``: the first passage's ``cage_route``
    that is a route for ``query`` (:func:`route_from_metadata`); ``None`` when none is."""
    for metadata in metadatas:
        if ROUTE_KEY in metadata:
            route = route_from_metadata(metadata[ROUTE_KEY], query)
            if route is not None:
                return route
    return None


def route_similarities(
    metadatas: Sequence[Mapping[str, Any]], key: str = ROUTE_SCORE_KEY
) -> np.ndarray | None:
    """The pool's ``cage_route_score`` values (or another ``key``'s: the retriever's scores
    for the question as asked) when every passage has a finite one, else ``None``."""
    values = [m.get(key) for m in metadatas]
    if not values or not all(is_finite_score(v) for v in values):
        return None
    return np.asarray([float(v) for v in values], dtype=np.float64)  # type: ignore[arg-type]


def named_metadata(
    metadata: Mapping[str, Any], doc_id: str | None, route: DocumentRoute
) -> dict[str, Any]:
    """A copy of ``metadata``, with ``cage_expanded_via`` (the document's ``via``) and
    ``cage_named_document`` when ``doc_id`` is a document the route names."""
    named = named_documents_by_id(route).get(doc_id) if doc_id is not None else None
    out = dict(metadata)
    if named is not None:
        out[EXPANDED_VIA_KEY] = named.via
        out[NAMED_DOCUMENT_KEY] = named.doc_id
    return out


def is_chunk_of(
    metadata: Mapping[str, Any], doc_id: str, title_key: str | None, own_doc_id: object = None
) -> bool:
    """Whether the chunk of ``metadata`` (``own_doc_id``: the framework's own document id, as
    :func:`~cage_core.metadata.chunk_place` takes it) belongs to document ``doc_id``."""
    title = metadata.get(title_key) if title_key else None
    place = chunk_place(metadata, doc_id=own_doc_id, title=title if isinstance(title, str) else "")
    return place.doc_id == doc_id


def document_conditions(
    metadata: Mapping[str, Any], doc_id: str, title_key: str | None
) -> tuple[tuple[str, Any], ...] | None:
    """The metadata equalities that select the chunks of document ``doc_id``, read from
    ``metadata``, a chunk of it as stored: ``((key, value),)`` for the key that gives it its
    document (module docstring), plus ``(title_key, title)`` for a titled ``source`` /
    ``file_path`` chunk; ``None`` when this chunk's document is not ``doc_id`` by its
    metadata (e.g. it is the framework's own id). The stores' filters select these chunks
    and perhaps a few more (a chunk with an earlier key naming another document):
    :func:`is_chunk_of` drops those."""
    title = metadata.get(title_key) if title_key else None
    title = title if isinstance(title, str) else ""
    for key in DOC_ID_METADATA_KEYS:
        if key not in metadata:
            continue
        found = chunk_place({key: metadata[key]}, title=title).doc_id
        if found is None:
            continue
        if found != doc_id:
            return None
        if key in COLLECTION_KEYS and title.strip() and title_key is not None:
            return ((key, metadata[key]), (title_key, metadata[title_key]))
        return ((key, metadata[key]),)
    return None
