"""ScoredVectorStoreRetriever: a vector store's own similarities, handed on to CageRerank.

LangChain's ``VectorStoreRetriever`` drops the scores its store computes, so a reranker
after it would have to embed every retrieved document again. This retriever asks the store
for ``similarity_search_with_relevance_scores`` and returns copies of the documents with the
score added under ``metadata["retrieval_score"]`` — the key
:class:`~cage_langchain.CageRerank` reads by default — so reranking embeds nothing.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
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

_OUT_OF_RANGE = "Relevance scores must be between 0 and 1"


class ScoredVectorStoreRetriever(BaseRetriever):
    """Top-``k`` documents of ``vectorstore`` with its relevance score in metadata.

    The score is the store's ``similarity_search_with_relevance_scores`` value: a monotone
    function of the query–document similarity (cosine itself for cosine stores; for
    L2-distance stores such as FAISS's and Chroma's defaults, ``1 − d/√2`` on unit vectors);
    for LangChain's ``InMemoryVectorStore``, which has no relevance function, its cosine.
    The default CAGE standardises similarities within the pool, so any such score serves;
    the ``paper`` method fuses the raw value. Returned documents are copies; the store's
    documents are not modified.

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
        store = self.vectorstore
        if isinstance(store, InMemoryVectorStore):
            found = store.similarity_search_with_score(query, k=self.k, **self.search_kwargs)
        else:
            with _relevance_scores(store):
                found = store.similarity_search_with_relevance_scores(query, k=self.k,
                                                                      **self.search_kwargs)
        return [self._scored(doc, score) for doc, score in found]

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        store = self.vectorstore
        if isinstance(store, InMemoryVectorStore):
            found = await store.asimilarity_search_with_score(query, k=self.k, **self.search_kwargs)
        else:
            with _relevance_scores(store):
                found = await store.asimilarity_search_with_relevance_scores(
                    query, k=self.k, **self.search_kwargs)
        return [self._scored(doc, score) for doc, score in found]

    def _scored(self, doc: Document, score: float) -> Document:
        return Document(page_content=doc.page_content, id=doc.id,
                        metadata={**doc.metadata, self.score_key: float(score)})  # fmt: skip


@contextmanager
def _relevance_scores(store: VectorStore) -> Iterator[None]:
    """Around a relevance-score search: quiet about scores outside [0, 1] (LangChain's L2
    relevance function gives them for dissimilar documents; CAGE needs only their order and
    spread), and a clear error for a store that has no relevance function."""
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=_OUT_OF_RANGE, category=UserWarning)
            yield
    except NotImplementedError:
        raise NotImplementedError(
            f"{type(store).__name__} gives no relevance scores (no relevance_score_fn); pass one "
            f"to the store, or rerank after store.as_retriever() (CageRerank then embeds)"
        ) from None
