"""The best chunks of one document for a question, by the vector store's own restricted search.

Routing (:mod:`cage_core.integrations.document_routing`) brings a named document's best chunks
into the pool, past the retriever's top ``k``: :class:`DocumentSearch` asks the store for the
``k`` chunks of that document most relevant to the question less its naming words, with the
score :class:`~cage_langchain.ScoredVectorStoreRetriever` would give them (the cosine of
:func:`~cage_langchain.retriever.cosine_search`), where the store can restrict a search:

* LangChain's ``InMemoryVectorStore``: its ``filter`` callable, the chunk's document read by
  the ingest rule itself (:func:`~cage_core.integrations.document_routing.is_chunk_of`);
* ``langchain_chroma.Chroma``: its ``filter`` (a ``where`` clause) on the metadata key that
  holds the chunk's document (``{"source": "contracts/birch.txt"}``; with the title too,
  ``$and``, where the document is ``"{source}#{title}"``: :func:`~cage_core.integrations.
  document_routing.document_conditions`, read from one stored chunk of the document);
* ``langchain_qdrant.QdrantVectorStore``: a ``Filter`` of ``FieldCondition`` s on the same key
  under its metadata payload key (``metadata.source``);
* ``langchain_community``'s ``FAISS``: the document's chunks (their ids from the link index)
  ranked by the cosine of their stored vectors. FAISS's own ``filter=`` keeps what passes
  among the top ``fetch_k`` of the whole index, so it cannot reach the chunks the top ``k``
  missed, which is the point; index types that cannot reconstruct their vectors give none;
* any other store: its ``filter=`` with the same equalities as a dict (what most LangChain
  stores take); a store that refuses it gives none.

Every chunk returned is checked against the ingest rule, so a filter that selects a few more
chunks (another key naming another document) adds none of them. A failing search is logged at
debug level and gives no chunks: the question then ranks its pool as it would unrouted, but
for the named documents' passages it already holds.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore, VectorStore

from cage_core.integrations.document_routing import document_conditions, is_chunk_of
from cage_core.integrations.vector_reads import instance_of
from cage_langchain.retriever import cosine_search
from cage_langchain.store_relevance import StoreRelevance

__all__ = [
    "SAMPLED_CHUNKS",
    "DocumentSearch",
]

logger = logging.getLogger(__name__)

SAMPLED_CHUNKS = 3
"""How many of a document's chunks (by the link index) are fetched, at most, to read which
metadata key holds its document: the first one the store holds is read."""


class DocumentSearch:
    """The best chunks of one document of ``relevance.store`` for a question (module docstring)."""

    def __init__(self, relevance: StoreRelevance) -> None:
        self.relevance = relevance

    @property
    def store(self) -> VectorStore:
        return self.relevance.store

    def __call__(
        self, question: str, doc_id: str, k: int, chunk_ids: Sequence[str]
    ) -> list[tuple[Document, float]]:
        """The ``k`` chunks of document ``doc_id`` most relevant to ``question``, best first,
        with the store's relevance scores; ``chunk_ids`` are the document's chunks by the link
        index (FAISS's restriction, and where the others read the document's metadata key)."""
        store, title_key = self.store, self.relevance.title_key
        try:
            if isinstance(store, InMemoryVectorStore):
                found = store.similarity_search_with_score(
                    question, k=k, filter=lambda doc: is_chunk_of(doc.metadata, doc_id, title_key)
                )
            elif instance_of(store, "langchain_community.vectorstores.faiss", "FAISS"):
                found = self.relevance.faiss_documents(question, chunk_ids, k)
            else:
                conditions = self._conditions(doc_id, chunk_ids)
                if conditions is None:
                    return []
                found = cosine_search(store, question, k, filter=self._filter(conditions))
        except Exception as exc:
            logger.debug(
                "%s could not search the chunks of %r (%s); none are added",
                type(store).__name__,
                doc_id,
                exc,
            )
            return []
        kept = [
            (doc, float(score))
            for doc, score in found
            if is_chunk_of(doc.metadata, doc_id, title_key)
        ]
        return kept[:k]

    def _conditions(
        self, doc_id: str, chunk_ids: Sequence[str]
    ) -> tuple[tuple[str, Any], ...] | None:
        """The metadata equalities selecting ``doc_id``'s chunks, read from one stored chunk."""
        sampled = self.store.get_by_ids(list(chunk_ids[:SAMPLED_CHUNKS]))
        for doc in sampled:
            conditions = document_conditions(doc.metadata, doc_id, self.relevance.title_key)
            if conditions is not None:
                return conditions
        logger.debug("no stored chunk of %r says which metadata key holds it", doc_id)
        return None

    def _filter(self, conditions: tuple[tuple[str, Any], ...]) -> Any:
        store = self.store
        if instance_of(store, "langchain_qdrant", "QdrantVectorStore"):
            from qdrant_client import models

            payload: str = store.metadata_payload_key  # type: ignore[attr-defined]
            return models.Filter(
                must=[
                    models.FieldCondition(
                        key=f"{payload}.{key}", match=models.MatchValue(value=value)
                    )
                    for key, value in conditions
                ]
            )
        if instance_of(store, "langchain_chroma", "Chroma") and len(conditions) > 1:
            return {"$and": [{key: value} for key, value in conditions]}
        return dict(conditions)
