"""ScoredVectorStoreRetriever: a vector store's top ``k`` with each document's cosine similarity
to the query, handed on to CageRerank.

LangChain's ``VectorStoreRetriever`` drops the scores its store computes, so a reranker
after it would have to embed every retrieved document again. This retriever searches the
store and returns copies of the documents with their similarity added under
``metadata["retrieval_score"]`` — the key :class:`~cage_langchain.CageRerank` reads by default
— so reranking embeds nothing. The similarity is the cosine of the query and the stored vector
(:func:`cosine_search`), the scale CAGE's 0–1 ``relevance_score`` and its 0.5 cutoff were
calibrated on, whatever the store's own relevance function: the same chunk scores the same
over ``InMemoryVectorStore``, Chroma (any space), FAISS and Qdrant.
"""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.vectorstores import InMemoryVectorStore, VectorStore
from pydantic import ConfigDict, Field

from cage_core.integrations.steps import Call, Steps, arun, run
from cage_core.integrations.vector_reads import instance_of, vector_cosines, warn_scale_once
from cage_core.metadata import RETRIEVAL_SCORE_KEY, TITLE_KEY
from cage_langchain.ids import stored_id
from cage_langchain.store_vectors import store_embeddings, stored_vectors

__all__ = [
    "ScoredVectorStoreRetriever",
    "acosine_search",
    "cosine_search",
]

logger = logging.getLogger(__name__)


class ScoredVectorStoreRetriever(BaseRetriever):
    """Top-``k`` documents of ``vectorstore`` with their cosine similarity to the query in
    metadata.

    The documents are the store's own top ``k`` (its search, its distance); the score is the
    cosine of the query's and the document's stored vectors (:func:`cosine_search`), so a
    cutoff on CAGE's ``relevance_score`` means the same over every store. A store whose
    vectors CAGE cannot read keeps its ``similarity_search_with_relevance_scores`` value, with
    one warning per store class (``_relevance_search``). Returned documents are copies; the
    store's documents are not modified. LangChain's "Relevance scores must be between 0 and
    1" warning (which prints every document) is never raised, and no process-wide warning
    filter is touched.

    >>> retriever = ScoredVectorStoreRetriever(vectorstore=store, k=20)  # doctest: +SKIP
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    vectorstore: VectorStore
    """The store to search."""
    k: int = Field(default=20, ge=1)
    """How many documents to retrieve."""
    score_key: str = RETRIEVAL_SCORE_KEY
    """Metadata key the score is written to (what ``CageRerank.score_key`` reads)."""
    search_kwargs: dict[str, Any] = Field(default_factory=dict)
    """Extra keyword arguments for the search (e.g. ``filter``)."""

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        found = cosine_search(self.vectorstore, query, self.k, **self.search_kwargs)
        return [self._scored(doc, score) for doc, score in found]

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        found = await acosine_search(self.vectorstore, query, self.k, **self.search_kwargs)
        return [self._scored(doc, score) for doc, score in found]

    def _scored(self, doc: Document, score: float) -> Document:
        return Document(
            page_content=doc.page_content,
            id=doc.id,
            metadata={**doc.metadata, self.score_key: float(score)},
        )


def cosine_search(
    store: VectorStore, query: str, k: int, **kwargs: Any
) -> list[tuple[Document, float]]:
    """``store``'s top ``k`` for ``query``, each with the cosine of the query's vector and its
    stored one (:mod:`cage_langchain.store_vectors`).

    The query is embedded once, with the store's own embeddings, and the store searched by
    that vector (``InMemoryVectorStore``: its own search, whose score is the cosine already;
    Chroma, FAISS and dense Qdrant: their search by vector, ``kwargs`` such as ``filter``
    passed on), so the documents are the ones the store's search returns. ``score_threshold``
    applies to the cosine. A store whose vectors are not read, without embeddings, or whose
    vectors cannot be read gives ``_relevance_search``'s scores instead, with one warning
    per store class (:func:`~cage_core.integrations.vector_reads.warn_scale_once`)."""
    return run(_cosine_search(store, query, k, kwargs))


async def acosine_search(
    store: VectorStore, query: str, k: int, **kwargs: Any
) -> list[tuple[Document, float]]:
    """Async :func:`cosine_search`: the query embedded by the embeddings' async method, the
    search and the vector read on a worker thread."""
    return await arun(_cosine_search(store, query, k, kwargs))


def _cosine_search(
    store: VectorStore, query: str, k: int, kwargs: dict[str, Any]
) -> Steps[list[tuple[Document, float]]]:
    """:func:`cosine_search`'s steps (:mod:`cage_core.integrations.steps`)."""
    if isinstance(store, InMemoryVectorStore):
        return (yield from _relevance_search(store, query, k, kwargs))
    search, embeddings = _by_vector(store), store_embeddings(store)
    if search is None or embeddings is None:
        warn_scale_once(logger, type(store).__name__, _unread(search, embeddings))
        return (yield from _relevance_search(store, query, k, kwargs))
    threshold = kwargs.pop("score_threshold", None)
    vector = yield Call(
        lambda: embeddings.embed_query(query), lambda: embeddings.aembed_query(query)
    )
    found = yield Call(lambda: search(vector, k, **kwargs))
    ids = [stored_id(doc, TITLE_KEY) for doc, _ in found]
    vectors = yield Call(lambda: stored_vectors(store, ids))
    if vectors is None or any(i not in vectors for i in ids):
        warn_scale_once(logger, type(store).__name__, "its stored vectors could not be read")
        if threshold is not None:
            kwargs = {**kwargs, "score_threshold": threshold}
        return (yield from _relevance_search(store, query, k, kwargs))
    cosines = vector_cosines(vector, vectors)
    return _above([(doc, cosines[i]) for (doc, _), i in zip(found, ids)], threshold)


def _unread(search: Any, embeddings: Any) -> str:
    """Why a store's cosine cannot be computed."""
    return "its vectors are not read" if search is None else "it has no LangChain Embeddings"


def _by_vector(store: VectorStore) -> Any:
    """The store's search by a query vector (``(vector, k, **kwargs) -> [(doc, score)]``),
    ``None`` for a store whose vectors are not read (or a Qdrant store not in dense mode)."""
    if instance_of(store, "langchain_chroma", "Chroma"):
        return store.similarity_search_by_vector_with_relevance_scores  # type: ignore[attr-defined]
    if instance_of(store, "langchain_community.vectorstores.faiss", "FAISS"):
        return store.similarity_search_with_score_by_vector  # type: ignore[attr-defined]
    if instance_of(store, "langchain_qdrant", "QdrantVectorStore"):
        mode = getattr(store, "retrieval_mode", None)
        if str(getattr(mode, "value", mode)) == "dense":
            return store.similarity_search_with_score_by_vector  # type: ignore[attr-defined]
    return None


def _relevance_search(
    store: VectorStore, query: str, k: int, kwargs: dict[str, Any]
) -> Steps[list[tuple[Document, float]]]:
    """``store``'s top ``k`` for ``query`` with its relevance scores, as
    ``similarity_search_with_relevance_scores`` computes them, without its range check; each
    form calls the store's method of its own form.

    LangChain's public method warns (``UserWarning``, with every document and its metadata,
    stored graphs included) when a score is outside [0, 1], which L2 relevance functions give
    for dissimilar documents; CAGE needs only the scores' order and spread. Silencing it with
    ``warnings.catch_warnings`` is not thread-safe (the filter is process-wide, and concurrent
    calls restore each other's state), so this calls the store's own scoring hook,
    ``_similarity_search_with_relevance_scores``, which the public method wraps — unless the
    store overrides the public method itself, which is then called. ``score_threshold`` is
    applied as the public method does. ``InMemoryVectorStore`` (no relevance function): its
    cosine. A store without a relevance function raises ``NotImplementedError`` with the fix.
    """
    if isinstance(store, InMemoryVectorStore):
        return (
            yield Call(
                lambda: store.similarity_search_with_score(query, k=k, **kwargs),
                lambda: store.asimilarity_search_with_score(query, k=k, **kwargs),
            )
        )
    threshold = kwargs.pop("score_threshold", None)
    name = "similarity_search_with_relevance_scores"
    search = getattr(store, name if _overrides(store, name) else f"_{name}")
    asearch = getattr(store, f"a{name}" if _overrides(store, f"a{name}") else f"_a{name}")
    try:
        found = yield Call(
            lambda: search(query, k=k, **kwargs), lambda: asearch(query, k=k, **kwargs)
        )
    except NotImplementedError:
        raise _no_relevance(store) from None
    return _above(found, threshold)


def _overrides(store: VectorStore, method: str) -> bool:
    """Whether ``store``'s class has its own ``method`` (not ``VectorStore``'s)."""
    return getattr(type(store), method) is not getattr(VectorStore, method)


def _above(
    found: list[tuple[Document, float]], threshold: float | None
) -> list[tuple[Document, float]]:
    return found if threshold is None else [(d, s) for d, s in found if s >= threshold]


def _no_relevance(store: VectorStore) -> NotImplementedError:
    return NotImplementedError(
        f"{type(store).__name__} gives no relevance scores (no relevance_score_fn); pass one "
        f"to the store, or rerank after store.as_retriever() (CageRerank then embeds)"
    )
