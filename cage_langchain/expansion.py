"""CageExpansionRetriever: a base retriever's documents plus the passages linked to them.

Why and how (the second hop, routing): :mod:`cage_core.expansion.contract` and
:mod:`cage_core.integrations.document_routing`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
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
    Neighbours,
    index_neighbours,
    load_link_index,
)
from cage_core.expansion.index import DEFAULT_LIMIT, DEFAULT_SEEDS, LinkIndex
from cage_core.expansion.routing import RoutingSettings
from cage_core.integrations.ahead import ahead
from cage_core.integrations.document_routing import ROUTE_KEY, ROUTE_SCORE_KEY, route_for
from cage_core.integrations.expanded_pool import DEFAULT_CITED, Call, ExpandedPool, PoolStore
from cage_core.integrations.pickled_state import without_private_attributes
from cage_core.metadata import RETRIEVAL_SCORE_KEY, TITLE_KEY
from cage_core.names.routes import DocumentRoute
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

    **Routing** (``routing``, on by default): a question that names documents of the link
    index also gets each named document's best ``routing.chunks`` chunks for the question less
    its naming words, with ``cage_expanded_via`` and ``cage_named_document``; every document of
    the pool is then a copy carrying ``cage_route`` and, where the store gives it,
    ``cage_route_score``, which :class:`~cage_langchain.CageRerank` ranks with (the steps:
    :mod:`cage_core.integrations.expanded_pool`; the keys:
    :mod:`cage_core.integrations.document_routing`). The named documents' chunks and the pool
    are scored by one search restricted to their ids (Chroma, FAISS, Qdrant,
    ``InMemoryVectorStore``), else one search per document by its metadata
    (:mod:`cage_langchain.document_search`); the shortened question is embedded once, ahead,
    with :class:`~cage_langchain.PackagedMiniLMEmbeddings`. A question that names no document
    returns exactly what it would without routing.

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
    passages (:mod:`cage_core.expansion.contract`); 0: none. At the default ``limit`` the
    linked passages usually hold them already (the transformer's link index links adjacent
    chunks): then it changes nothing (:data:`~cage_core.expansion.contract.DEFAULT_SIBLINGS`)."""
    added_score: AddedScore = DEFAULT_ADDED_SCORE
    """How added documents are scored: the ``"store"``'s own score or the ``"lowest"`` base
    score (:mod:`cage_core.expansion.contract`, step 4)."""
    score_key: str = RETRIEVAL_SCORE_KEY
    """Metadata key of the base documents' scores and of the added documents' score."""
    title_key: str | None = TITLE_KEY
    """Metadata key of the document title (part of a content id; as the transformer's)."""
    routing: RoutingSettings | None = RoutingSettings()
    """How questions that name documents are routed (class docstring); ``None``: never."""
    cited: int = Field(default=DEFAULT_CITED, ge=0)
    """How many documents the seeds cite by identifier ("RFC 9110") or title are followed, each
    to its best chunk for the question (:mod:`cage_core.integrations.expanded_pool`, step 5);
    0: none."""

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
        return self._pool().assemble(query, query, self._base(query, run_manager, kwargs))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        base = self._base(query, run_manager, kwargs)
        return await self._pool().aassemble(query, query, base)

    def _base(
        self,
        query: str,
        run_manager: CallbackManagerForRetrieverRun | AsyncCallbackManagerForRetrieverRun,
        kwargs: dict[str, Any],
    ) -> Call[list[Document]]:
        """The base retriever's call, sync and async."""
        config: Any = {"callbacks": run_manager.get_child()}
        return Call(
            lambda: self.base_retriever.invoke(query, config=config, **kwargs),
            lambda: self.base_retriever.ainvoke(query, config=config, **kwargs),
        )

    def route(self, query: str) -> DocumentRoute:
        """The documents ``query`` names by the link index's records (none when ``routing`` is
        ``None``)."""
        return route_for(query, self.index, self.routing)

    def _pool(self) -> ExpandedPool[Document, Document, str]:
        """The pool of :mod:`cage_core.integrations.expanded_pool` over this store."""
        return ExpandedPool(_Store(self), self.index, self)


class _Store(PoolStore[Document, Document, str]):
    """The retriever's vector store as :class:`~cage_core.integrations.expanded_pool.PoolStore`
    reads it: documents by :func:`~cage_langchain.ids.stored_id`, scores in ``score_key``."""

    def __init__(self, retriever: CageExpansionRetriever) -> None:
        self.retriever = retriever
        self.store = retriever.vectorstore
        self.title_key = retriever.title_key
        self.score_key = retriever.score_key

    def stored_id(self, passage: Document) -> str:
        return stored_id(passage, self.title_key)

    def passage(self, result: Document) -> Document:
        return result

    def text(self, passage: Document) -> str:
        return passage.page_content

    def score(self, result: Document) -> object:
        return result.metadata.get(self.score_key)

    def siblings(
        self, ids: Sequence[str], results: Sequence[Document]
    ) -> tuple[list[str], Callable[[str], Neighbours]]:
        index = self.retriever.index
        return [i for i in ids if i in index], lambda pid: index_neighbours(index, pid)

    def fetch(self, ids: list[str]) -> Call[Mapping[str, Document]]:
        async def afetch() -> Mapping[str, Document]:
            return self._by_id(await self.store.aget_by_ids(ids))

        return Call(lambda: self._by_id(self.store.get_by_ids(ids)), afetch)

    def _by_id(self, found: Sequence[object]) -> dict[str, Document]:
        return {stored_id(d, self.title_key): d for d in found if isinstance(d, Document)}

    def added_scores(self, question: str, ids: list[str]) -> Call[Mapping[str, float]]:
        return Call(lambda: self.retriever.relevance(question, ids))

    def route_scores(self, question: str, ids: list[str]) -> Mapping[str, float]:
        return self.retriever.relevance(question, ids)

    def document_search(
        self, question: str, doc_id: str, k: int, chunk_ids: Sequence[str]
    ) -> list[tuple[Document, float]]:
        return self.retriever.document_search(question, doc_id, k, chunk_ids)

    def shortened(self, route: DocumentRoute) -> str:
        return route.question

    def embed_ahead(self, route: DocumentRoute, question: str) -> Future[Any] | None:
        """The shortened question embedded on a worker thread while the base retriever runs
        (:mod:`cage_core.integrations.ahead`), where the store's embeddings keep it for the
        searches that follow (:class:`~cage_langchain.PackagedMiniLMEmbeddings` does); else
        nothing: the searches embed it."""
        embeddings = getattr(self.store, "embeddings", None)
        if not route or not isinstance(embeddings, PackagedMiniLMEmbeddings):
            return None
        return ahead(lambda: embeddings.embed_query(question))

    def embedded(self, question: str, embedding: Any) -> None:
        """Nothing to keep: the embeddings cache the question themselves."""

    def added(
        self,
        passage: Document,
        pid: str,
        extra: dict[str, Any],
        hidden: tuple[str, ...],
        score: float | None,
    ) -> Document:
        metadata = {**passage.metadata, **extra}
        if score is not None:
            metadata[self.score_key] = score
        else:  # a value stored with the document is no score for this query
            metadata.pop(self.score_key, None)
        return Document(page_content=passage.page_content, metadata=metadata, id=passage.id or pid)

    def routed(
        self, result: Document, route: dict[str, Any], route_score: float | None
    ) -> Document:
        metadata = {**result.metadata, ROUTE_KEY: route}
        if route_score is not None:
            metadata[ROUTE_SCORE_KEY] = route_score
        else:
            metadata.pop(ROUTE_SCORE_KEY, None)
        return Document(page_content=result.page_content, metadata=metadata, id=result.id)
