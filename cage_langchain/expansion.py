"""CageExpansionRetriever: a base retriever's documents plus the passages linked to them.

A multi-hop question's second hop is often not among a retriever's top ``k``; the link
index built at ingest (:class:`~cage_langchain.CageGraphTransformer` with ``link_index``, or
``cage enrich --link-index``) knows which stored passages the retrieved ones name. This
retriever adds them before reranking, so ``CageRerank`` can rank the second hop. A question
that names documents of the collection also gets their best chunks for the question less the
words naming them (routing, :mod:`cage_core.integrations.document_routing`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.vectorstores import VectorStore
from pydantic import ConfigDict, Field, PrivateAttr

from cage_core.expansion.contract import (
    DEFAULT_ADDED_SCORE,
    DEFAULT_SIBLINGS,
    AddedScore,
    added_score,
    expansion_metadata,
    expansions_for,
    fallback_score,
    in_expansion_order,
    index_neighbours,
    load_link_index,
    sibling_expansions,
)
from cage_core.expansion.index import DEFAULT_LIMIT, DEFAULT_SEEDS, Expansion, LinkIndex
from cage_core.expansion.routing import DocumentRoute, NamedDocument, RoutingSettings
from cage_core.integrations.ahead import ahead, result_or_none
from cage_core.integrations.document_routing import (
    NAMED_DOCUMENT_KEY,
    ROUTE_KEY,
    ROUTE_SCORE_KEY,
    best_named_chunks,
    route_for,
    route_metadata,
    routed_search_ids,
)
from cage_core.integrations.pickled_state import without_private_attributes
from cage_core.metadata import EXPANDED_VIA_KEY, RETRIEVAL_SCORE_KEY, TITLE_KEY
from cage_langchain.document_search import DocumentSearch
from cage_langchain.embeddings import PackagedMiniLMEmbeddings
from cage_langchain.ids import stored_id
from cage_langchain.store_relevance import StoreRelevance

__all__ = [
    "CageExpansionRetriever",
]


class CageExpansionRetriever(BaseRetriever):
    """``base_retriever``'s documents, then the passages of ``vectorstore`` linked to them.

    The contract (order, bounds, skipped documents and ids, metadata, the added documents'
    score) is that of :mod:`cage_core.expansion.contract`. Added documents are copies of the
    store's documents (``vectorstore.get_by_ids``: Chroma, FAISS, ``InMemoryVectorStore``
    and most LangChain stores implement it) whose metadata gains ``cage_expanded_via``,
    ``cage_expanded_from`` and, when every base document has one, ``score_key``: the store's
    relevance score (as :class:`~cage_langchain.ScoredVectorStoreRetriever` writes it; see
    :mod:`cage_langchain.store_relevance` for the stores that give it; it costs a restricted
    search and one more query embedding, unless the embeddings cache query vectors as
    :class:`~cage_langchain.PackagedMiniLMEmbeddings` does), or with
    ``added_score="lowest"`` the lowest base score (free). Base documents are returned as the
    base retriever gave them. After the linked passages come up to ``siblings`` chunks next
    to a seed in its document (position ∓ 1 by the link index's ``doc_id`` / ``position``,
    which :class:`~cage_langchain.CageGraphTransformer` stores from ``source`` and
    ``start_index``), with ``cage_expanded_via="same document"``.

    A document's id is read where its store keeps it (:func:`cage_langchain.ids.stored_id`):
    ``Document.id``, else ``metadata["_id"]`` (langchain-qdrant), else the content id
    :class:`~cage_langchain.CageGraphTransformer` gave a chunk that had none, so chunks of
    LangChain's text splitters expand in Chroma, FAISS and Qdrant alike. Added documents
    carry their id in ``Document.id``.

    **Routing** (``routing``, on by default; :mod:`cage_core.integrations.document_routing`):
    when the question confidently names documents of the link index
    (:func:`~cage_core.expansion.routing.route_question` over :meth:`LinkIndex.documents
    <cage_core.expansion.index.LinkIndex.documents>`), each named document's best
    ``routing.chunks`` chunks for the question less its naming words, by the store's own
    search restricted to that document's chunks (their ids by the link index; else by its
    metadata: :mod:`cage_langchain.document_search`), come after the
    linked passages, each once (none already in the pool), with ``cage_expanded_via`` (the
    document's :attr:`~cage_core.expansion.routing.NamedDocument.via`),
    ``cage_named_document`` and ``score_key`` as the linked passages get it. Then every
    document of the pool is a copy carrying ``cage_route`` (the route) and, where the store
    gives it, ``cage_route_score`` (its score for the shortened question), which
    :class:`~cage_langchain.CageRerank` ranks with. A question that names no document, or a
    link index without document records, returns exactly what it would without routing. Costs,
    for a routed question, one embedding of the shortened question and one search restricted
    to the named documents' chunks and the pool's ids (Chroma, FAISS, Qdrant,
    ``InMemoryVectorStore``; other stores, documents of over
    :data:`~cage_core.integrations.document_routing.ROUTED_SEARCH_IDS` chunks, or chunks the
    store no longer holds: one search per named document and one over the pool's ids, the
    question embedded once with :class:`~cage_langchain.PackagedMiniLMEmbeddings`, which caches
    it, once per search with other embeddings).

    ``link_index`` is a :class:`~cage_core.expansion.index.LinkIndex` or the path of a saved one,
    read when the retriever is made (a bad header raises
    :class:`~cage_core.expansion.index.LinkIndexFormatError` there; invalid entries are skipped
    with one warning) and again after unpickling.

    >>> retriever = CageExpansionRetriever(  # doctest: +SKIP
    ...     base_retriever=ScoredVectorStoreRetriever(vectorstore=store, k=20),
    ...     vectorstore=store, link_index="links.jsonl")
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    base_retriever: BaseRetriever
    """Any retriever; its documents' ids (class docstring) are the expansion's seeds."""
    vectorstore: VectorStore
    """The store the linked passages are fetched from, by id (the ids the index keeps)."""
    link_index: LinkIndex | str | Path
    """The link index, or the path of a saved one."""
    seeds: int = Field(default=DEFAULT_SEEDS, ge=0)
    """How many of the base documents (most relevant first) are expanded."""
    limit: int = Field(default=DEFAULT_LIMIT, ge=0)
    """How many linked passages are added at most."""
    siblings: int = Field(default=DEFAULT_SIBLINGS, ge=0)
    """How many same-document neighbours of the seeds are added at most, after the linked
    passages (:mod:`cage_core.expansion.contract`); 0: none."""
    added_score: AddedScore = DEFAULT_ADDED_SCORE
    """How added documents are scored: the ``"store"``'s own score or the ``"lowest"`` base
    score (:mod:`cage_core.expansion.contract`, step 4)."""
    score_key: str = RETRIEVAL_SCORE_KEY
    """Metadata key of the base documents' scores and of the added documents' score."""
    title_key: str | None = TITLE_KEY
    """Metadata key of the document title (part of a content id; as the transformer's)."""
    routing: RoutingSettings | None = RoutingSettings()
    """How questions that name documents are routed (class docstring); ``None``: never."""

    _index: LinkIndex | None = PrivateAttr(default=None)
    _relevance: StoreRelevance | None = PrivateAttr(default=None)
    _search: DocumentSearch | None = PrivateAttr(default=None)

    def __init__(self, **data: Any) -> None:
        super().__init__(**data)
        if type(self.vectorstore).get_by_ids is VectorStore.get_by_ids:
            raise TypeError(
                f"{type(self.vectorstore).__name__} does not implement get_by_ids; the "
                "expansion fetches linked passages by id (Chroma, FAISS and "
                "InMemoryVectorStore do)"
            )
        self._index = load_link_index(self.link_index)

    @property
    def index(self) -> LinkIndex:
        """The link index (loaded again from its path after unpickling)."""
        if self._index is None:
            self._index = load_link_index(self.link_index)
        return self._index

    @property
    def relevance(self) -> StoreRelevance:
        """Scores of the added passages in the store's terms (created on first use)."""
        if self._relevance is None:
            self._relevance = StoreRelevance(self.vectorstore, self.title_key)
        return self._relevance

    @property
    def document_search(self) -> DocumentSearch:
        """The store's search restricted to one document (created on first use)."""
        if self._search is None:
            self._search = DocumentSearch(self.relevance)
        return self._search

    def __getstate__(self) -> dict[Any, Any]:
        return without_private_attributes(super().__getstate__())

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        route = self.route(query)
        embedded = self._embed_ahead(route)
        docs = self.base_retriever.invoke(
            query, config={"callbacks": run_manager.get_child()}, **kwargs
        )
        result_or_none(embedded)
        expansions = self._expansions(query, docs)
        if not expansions and not route:
            return list(docs)
        found = self.vectorstore.get_by_ids([e.id for e in expansions]) if expansions else []
        chosen = self._chosen(expansions, found, docs)
        named, route_scores = self._named(route, docs, chosen)
        ids = [e.id for e, _ in chosen] + [stored_id(d, self.title_key) for _, d, _ in named]
        scores = self.relevance(query, ids) if self._scored(docs) and ids else {}
        return self._pool(query, route, docs, chosen, named, scores, route_scores)

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        route = self.route(query)
        embedded = self._embed_ahead(route)
        docs = await self.base_retriever.ainvoke(
            query, config={"callbacks": run_manager.get_child()}, **kwargs
        )
        await asyncio.to_thread(result_or_none, embedded)
        expansions = self._expansions(query, docs)
        if not expansions and not route:
            return list(docs)
        found = await self.vectorstore.aget_by_ids([e.id for e in expansions]) if expansions else []
        chosen = self._chosen(expansions, found, docs)
        named, route_scores = (
            await asyncio.to_thread(self._named, route, docs, chosen) if route else ([], {})
        )
        ids = [e.id for e, _ in chosen] + [stored_id(d, self.title_key) for _, d, _ in named]
        scores = (
            await asyncio.to_thread(self.relevance, query, ids)
            if self._scored(docs) and ids
            else {}
        )
        return self._pool(query, route, docs, chosen, named, scores, route_scores)

    def _pool(
        self,
        query: str,
        route: DocumentRoute,
        docs: Sequence[Document],
        chosen: list[tuple[Expansion, Document]],
        named: list[tuple[NamedDocument, Document, float]],
        scores: dict[str, float],
        route_scores: dict[str, float],
    ) -> list[Document]:
        """The base documents, then the linked ones, then the named documents' chunks; with a
        route, as copies that carry it (:meth:`_routed_pool`)."""
        pool = (
            list(docs) + self._added(chosen, scores, docs) + self._named_added(named, scores, docs)
        )
        return self._routed_pool(query, route, pool, route_scores) if route else pool

    # -- routing (cage_core.integrations.document_routing) -------------------------------------
    def route(self, query: str) -> DocumentRoute:
        """The documents ``query`` names by the link index's records (none when ``routing`` is
        ``None``)."""
        return route_for(query, self.index, self.routing)

    def _embed_ahead(self, route: DocumentRoute) -> Future[Any] | None:
        """The shortened question embedded on a worker thread while the base retriever runs
        (:mod:`cage_core.integrations.ahead`), where the store's embeddings keep it for the
        searches that follow (:class:`~cage_langchain.PackagedMiniLMEmbeddings` does); else
        nothing: the searches embed it."""
        embeddings = getattr(self.vectorstore, "embeddings", None)
        if not route or not isinstance(embeddings, PackagedMiniLMEmbeddings):
            return None
        return ahead(lambda: embeddings.embed_query(route.question))

    def _named(
        self,
        route: DocumentRoute,
        docs: Sequence[Document],
        chosen: list[tuple[Expansion, Document]],
    ) -> tuple[list[tuple[NamedDocument, Document, float]], dict[str, float]]:
        """Each named document's best chunks for the shortened question, with their scores,
        less those already in the pool (by id: a contract's clause worded as another's is
        still its own); and the pool's scores for the shortened question. One search when it
        can (:mod:`cage_core.integrations.document_routing`, "One search"), else two."""
        if not route or self.routing is None:
            return [], {}
        pool_ids = [stored_id(d, self.title_key) for d in list(docs) + [d for _, d in chosen]]
        chunks = {d.doc_id: self.index.chunks_of(d.doc_id) for d in route.documents}
        ids = routed_search_ids(route, pool_ids, chunks)
        scores = self.relevance(route.question, ids) if ids is not None else {}
        if ids is not None and len(scores) == len(ids):
            best = best_named_chunks(route, scores, chunks, pool_ids, self.routing.chunks)
            found = self.vectorstore.get_by_ids([pid for _, pid in best]) if best else []
            by_id = {stored_id(d, self.title_key): d for d in found if isinstance(d, Document)}
            named = [(doc, by_id[pid], scores[pid]) for doc, pid in best if pid in by_id]
            return named, scores
        taken = set(pool_ids)
        named = []
        for document in route.documents:
            chunk_ids = chunks[document.doc_id]
            for doc, score in self.document_search(
                route.question, document.doc_id, self.routing.chunks, chunk_ids
            ):
                pid = stored_id(doc, self.title_key)
                if pid not in taken:
                    taken.add(pid)
                    named.append((document, doc, score))
        route_scores = {stored_id(d, self.title_key): score for _, d, score in named}
        others = [pid for pid in dict.fromkeys(pool_ids) if pid not in route_scores]
        route_scores.update(self.relevance(route.question, others))
        return named, route_scores

    def _named_added(
        self,
        named: list[tuple[NamedDocument, Document, float]],
        scores: dict[str, float],
        docs: Sequence[Document],
    ) -> list[Document]:
        fallback = fallback_score([d.metadata.get(self.score_key) for d in docs])
        out = []
        for document, doc, _ in named:
            pid = stored_id(doc, self.title_key)
            metadata = {
                **doc.metadata,
                EXPANDED_VIA_KEY: document.via,
                NAMED_DOCUMENT_KEY: document.doc_id,
            }
            score = added_score(scores.get(pid), fallback)
            if score is not None:
                metadata[self.score_key] = score
            else:  # a value stored with the document is no score for this query
                metadata.pop(self.score_key, None)
            out.append(Document(page_content=doc.page_content, metadata=metadata, id=doc.id or pid))
        return out

    def _routed_pool(
        self, query: str, route: DocumentRoute, pool: list[Document], scores: dict[str, float]
    ) -> list[Document]:
        """Copies of ``pool`` with the route and each one's score for the shortened question
        (``scores``, by id: :meth:`_named`'s)."""
        out = []
        for doc in pool:
            pid = stored_id(doc, self.title_key)
            metadata = {**doc.metadata, ROUTE_KEY: route_metadata(query, route)}
            if pid in scores:
                metadata[ROUTE_SCORE_KEY] = scores[pid]
            else:
                metadata.pop(ROUTE_SCORE_KEY, None)
            out.append(Document(page_content=doc.page_content, metadata=metadata, id=doc.id))
        return out

    # -- the steps of cage_core.expansion.contract ---------------------------------------------
    def _expansions(self, query: str, docs: Sequence[Document]) -> list[Expansion]:
        ids = [stored_id(d, self.title_key) for d in docs]
        linked = expansions_for(self.index, query, ids, seeds=self.seeds, limit=self.limit)
        known = [i for i in ids if isinstance(i, str) and i in self.index]
        return linked + sibling_expansions(
            known,
            lambda pid: index_neighbours(self.index, pid),
            seeds=self.seeds,
            limit=self.siblings,
            excluded={e.id for e in linked},
        )

    def _chosen(
        self, expansions: list[Expansion], found: Sequence[Document], docs: Sequence[Document]
    ) -> list[tuple[Expansion, Document]]:
        by_id = {stored_id(d, self.title_key): d for d in found if isinstance(d, Document)}
        return in_expansion_order(
            expansions, by_id, {d.page_content for d in docs}, lambda d: d.page_content
        )

    def _scored(self, docs: Sequence[Document]) -> bool:
        """Whether the store is asked for the added documents' scores."""
        return (
            self.added_score == "store"
            and fallback_score([d.metadata.get(self.score_key) for d in docs]) is not None
        )

    def _added(
        self,
        chosen: list[tuple[Expansion, Document]],
        scores: dict[str, float],
        docs: Sequence[Document],
    ) -> list[Document]:
        fallback = fallback_score([d.metadata.get(self.score_key) for d in docs])
        out = []
        for expansion, doc in chosen:
            metadata = expansion_metadata(doc.metadata, expansion)
            score = added_score(scores.get(expansion.id), fallback)
            if score is not None:
                metadata[self.score_key] = score
            else:  # a value stored with the document is no score for this query
                metadata.pop(self.score_key, None)
            out.append(
                Document(
                    page_content=doc.page_content, metadata=metadata, id=doc.id or expansion.id
                )
            )
        return out
