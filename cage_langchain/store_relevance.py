"""The cosine similarity of chosen documents of a vector store to a query, as
:class:`~cage_langchain.ScoredVectorStoreRetriever` scores a search.

:class:`~cage_langchain.CageExpansionRetriever` adds passages that the base retriever did
not return; to hand ``CageRerank`` one similarity scale for the whole pool it needs, for
those passages only, the score :class:`~cage_langchain.ScoredVectorStoreRetriever` would
have written had they been retrieved: the cosine of the query's vector (the store's
embeddings) and the passage's stored vector, read by id (:mod:`cage_langchain.store_vectors`:
Chroma in any space, FAISS, Qdrant; ``InMemoryVectorStore``: its own search restricted to the
ids, whose score is that cosine, as the retriever reads it), whatever the store's distance.
Ids the store does not hold get none. A store whose vectors are not read gives no scores (the
caller then uses its documented fallback, :func:`cage_core.expansion.contract.added_score`),
and one warning per store class says that its scores stay on its own scale; a failing read
is logged at debug level and gives none.

FAISS: :meth:`StoreRelevance.faiss_search` also picks the best ``k`` of given ids (a
document's chunks, for routing), by the same cosine.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore, VectorStore

from cage_core.integrations.vector_reads import vector_cosines, warn_scale_once
from cage_core.metadata import TITLE_KEY
from cage_langchain.store_vectors import reads_vectors, store_embeddings, stored_vectors

__all__ = [
    "StoreRelevance",
]

logger = logging.getLogger(__name__)


class StoreRelevance:
    """Cosine similarities of chosen documents of ``store`` to a query (module docstring).

    Thread-safe: it keeps no state between calls.
    """

    def __init__(self, store: VectorStore, title_key: str | None = TITLE_KEY) -> None:
        self.store = store
        self.title_key = title_key

    def __call__(self, query: str, ids: Sequence[str]) -> dict[str, float]:
        """``{id: cosine}`` for the ``ids`` the store holds and can score."""
        if not ids:
            return {}
        wanted = list(dict.fromkeys(ids))
        embeddings = store_embeddings(self.store)
        if not reads_vectors(self.store) or embeddings is None:
            warn_scale_once(
                logger,
                type(self.store).__name__,
                "its vectors are not read" if embeddings else "it has no embeddings",
            )
            return {}
        try:
            if isinstance(self.store, InMemoryVectorStore):  # its search's score is the cosine
                chosen = set(wanted)
                found = self.store.similarity_search_with_score(
                    query, k=len(chosen), filter=lambda doc: doc.id in chosen
                )
                return {doc.id: float(score) for doc, score in found if doc.id in chosen}
            vectors = stored_vectors(self.store, wanted)
            if not vectors:
                return {}
            return vector_cosines(embeddings.embed_query(query), vectors)
        except Exception as exc:
            logger.debug(
                "%s could not score the chosen passages (%s)", type(self.store).__name__, exc
            )
            return {}

    def faiss_documents(
        self, query: str, ids: Sequence[str], k: int
    ) -> list[tuple[Document, float]]:
        """:meth:`faiss_search`'s hits as the stored documents (``Document.id`` the id)."""
        store: Any = self.store
        out = []
        for chunk_id, score in self.faiss_search(query, ids, k):
            doc = store.docstore.search(chunk_id)
            if isinstance(doc, Document):
                stored = Document(page_content=doc.page_content, metadata=doc.metadata, id=chunk_id)
                out.append((stored, score))
        return out

    def faiss_search(self, query: str, ids: Sequence[str], k: int) -> list[tuple[str, float]]:
        """The ``k`` best of ``ids`` in a FAISS store for ``query`` by cosine, best first (ties
        by id), with it; ids the store does not hold are skipped. Raises what FAISS raises (an
        index type that cannot reconstruct its vectors)."""
        if k < 1 or not ids:
            return []
        store: Any = self.store
        vectors = stored_vectors(store, list(ids))
        if vectors is None:
            raise RuntimeError("the FAISS index's vectors could not be read")
        cosines = vector_cosines(store._embed_query(query), vectors)
        return sorted(cosines.items(), key=lambda item: (-item[1], item[0]))[:k]
