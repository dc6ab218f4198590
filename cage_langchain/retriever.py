"""ScoredVectorStoreRetriever: a vector store's own similarities, handed on to CageRerank.

LangChain's ``VectorStoreRetriever`` drops the scores its store computes, so a reranker
after it would have to embed every retrieved document again. This retriever asks the store
for ``similarity_search_with_relevance_scores`` and returns copies of the documents with the
score added under ``metadata["retrieval_score"]`` — the key
:class:`~cage_langchain.CageRerank` reads by default — so reranking embeds nothing.
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.vectorstores import InMemoryVectorStore, VectorStore
from pydantic import ConfigDict, Field

from cage_core.metadata import RETRIEVAL_SCORE_KEY

__all__ = [
    "ScoredVectorStoreRetriever",
]


class ScoredVectorStoreRetriever(BaseRetriever):
    """Top-``k`` documents of ``vectorstore`` with its relevance score in metadata.

    The score is the store's ``similarity_search_with_relevance_scores`` value: a monotone
    function of the query–document similarity (cosine itself for cosine stores; for
    L2-distance stores such as FAISS's and Chroma's defaults, ``1 − d/√2``);
    for LangChain's ``InMemoryVectorStore``, which has no relevance function, its cosine.
    The default CAGE standardises similarities within the pool, so any such score serves;
    the ``paper`` method fuses the raw value. Returned documents are copies; the store's
    documents are not modified. The scores are read through :func:`relevance_search`, so
    LangChain's "Relevance scores must be between 0 and 1" warning (which prints every
    document) is never raised, and no process-wide warning filter is touched.

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
        found = relevance_search(self.vectorstore, query, self.k, **self.search_kwargs)
        return [self._scored(doc, score) for doc, score in found]

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        found = await arelevance_search(self.vectorstore, query, self.k, **self.search_kwargs)
        return [self._scored(doc, score) for doc, score in found]

    def _scored(self, doc: Document, score: float) -> Document:
        return Document(
            page_content=doc.page_content,
            id=doc.id,
            metadata={**doc.metadata, self.score_key: float(score)},
        )


def relevance_search(
    store: VectorStore, query: str, k: int, **kwargs: Any
) -> list[tuple[Document, float]]:
    """``store``'s top ``k`` for ``query`` with its relevance scores, as
    ``similarity_search_with_relevance_scores`` computes them, without its range check.

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
        return store.similarity_search_with_score(query, k=k, **kwargs)
    threshold = kwargs.pop("score_threshold", None)
    try:
        if _overrides(store, "similarity_search_with_relevance_scores"):
            found = store.similarity_search_with_relevance_scores(query, k=k, **kwargs)
        else:
            found = store._similarity_search_with_relevance_scores(query, k=k, **kwargs)
    except NotImplementedError:
        raise _no_relevance(store) from None
    return _above(found, threshold)


async def arelevance_search(
    store: VectorStore, query: str, k: int, **kwargs: Any
) -> list[tuple[Document, float]]:
    """Async :func:`relevance_search`."""
    if isinstance(store, InMemoryVectorStore):
        return await store.asimilarity_search_with_score(query, k=k, **kwargs)
    threshold = kwargs.pop("score_threshold", None)
    try:
        if _overrides(store, "asimilarity_search_with_relevance_scores"):
            found = await store.asimilarity_search_with_relevance_scores(query, k=k, **kwargs)
        else:
            found = await store._asimilarity_search_with_relevance_scores(query, k=k, **kwargs)
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
