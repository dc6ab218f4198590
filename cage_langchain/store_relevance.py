"""The relevance of chosen documents of a vector store to a query, as the store scores a search.

:class:`~cage_langchain.CageExpansionRetriever` adds passages that the base retriever did
not return; to hand ``CageRerank`` one similarity scale for the whole pool it needs, for
those passages only, the score :class:`~cage_langchain.ScoredVectorStoreRetriever` would
have written had they been retrieved. :class:`StoreRelevance` computes it with a search
restricted to their ids, where the store allows one:

* LangChain's ``InMemoryVectorStore``: ``similarity_search_with_score`` with a filter on the
  document id (cosine, as ``ScoredVectorStoreRetriever`` reads it there);
* ``langchain_chroma.Chroma``: the distances computed from the ids' stored vectors
  (:mod:`cage_core.integrations.chroma_vectors`: a restricted Chroma query costs 6-15 ms,
  reading a pool's vectors under 1 ms), mapped by the store's relevance function as
  ``similarity_search_with_relevance_scores`` maps them; ids the collection does not hold get
  none. Where the collection's distance space is not one of Chroma's three, its search with
  the ``ids`` restriction (which fails on unknown ids);
* ``langchain_community``'s ``FAISS``: the index searched with an ID selector over the ids'
  positions, the query embedded and normalised as FAISS's own search does, the distance
  mapped by the store's relevance function. Index types that take no selector give none;
* ``langchain_qdrant.QdrantVectorStore``: its relevance search with a ``HasIdCondition``
  filter on the point ids (the ids come back under ``metadata["_id"]``).

Scores are read with :func:`~cage_langchain.retriever.relevance_search`, so LangChain's
out-of-range warning is never raised.

Any other store (or a failing search, logged at debug level) gives no scores: the caller
then uses its documented fallback (:func:`cage_core.expansion.contract.added_score`). A store
class is recognised only when its module is already imported, so nothing heavy is imported
here.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from typing import Any

from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore, VectorStore

from cage_core.integrations.chroma_vectors import chroma_distances
from cage_core.metadata import TITLE_KEY
from cage_langchain.ids import stored_id
from cage_langchain.retriever import relevance_search

__all__ = [
    "StoreRelevance",
    "instance_of",
]

logger = logging.getLogger(__name__)


class StoreRelevance:
    """Relevance scores of chosen documents of ``store`` (module docstring).

    Keeps FAISS's id → position map between calls (checked on every lookup, rebuilt when the
    store changed). Not thread-safe for FAISS map rebuilds racing a store update.
    """

    def __init__(self, store: VectorStore, title_key: str | None = TITLE_KEY) -> None:
        self.store = store
        self.title_key = title_key
        self._faiss_positions: dict[str, int] = {}

    def __call__(self, query: str, ids: Sequence[str]) -> dict[str, float]:
        """``{id: relevance}`` for the ``ids`` (all in the store) the store can score."""
        if not ids:
            return {}
        wanted = set(ids)
        try:
            if isinstance(self.store, InMemoryVectorStore):
                found = self.store.similarity_search_with_score(
                    query, k=len(wanted), filter=lambda doc: doc.id in wanted
                )
            elif instance_of(self.store, "langchain_chroma", "Chroma"):
                return self._chroma(query, sorted(wanted))
            elif instance_of(self.store, "langchain_qdrant", "QdrantVectorStore"):
                from qdrant_client import models

                only = models.Filter(must=[models.HasIdCondition(has_id=sorted(wanted))])
                found = relevance_search(self.store, query, len(wanted), filter=only)
            elif instance_of(self.store, "langchain_community.vectorstores.faiss", "FAISS"):
                return dict(self.faiss_search(query, sorted(wanted), len(wanted)))
            else:
                return {}
        except Exception as exc:
            logger.debug(
                "%s could not score the chosen passages (%s)", type(self.store).__name__, exc
            )
            return {}
        scores = {stored_id(doc, self.title_key): float(score) for doc, score in found}
        return {i: s for i, s in scores.items() if i in wanted}

    def _chroma(self, query: str, ids: list[str]) -> dict[str, float]:
        """Chroma's relevance of ``ids`` from their stored vectors
        (:func:`~cage_core.integrations.chroma_vectors.chroma_distances`), mapped by the
        store's own relevance function; its restricted search where the space is unknown."""
        store: Any = self.store
        vector = store.embeddings.embed_query(query) if store.embeddings else None
        distances = chroma_distances(store._collection, vector, ids) if vector is not None else None
        if distances is None:
            found = relevance_search(store, query, len(ids), ids=ids)
            return {stored_id(doc, self.title_key): float(score) for doc, score in found}
        relevance = store._select_relevance_score_fn()
        return {pid: float(relevance(d)) for pid, d in distances.items()}

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
        """The ``k`` best of ``ids`` in a FAISS store for ``query``, best first, with their
        relevance: the index searched with an ID selector over the ids' positions (ids the
        store does not hold are skipped). Raises what FAISS raises (an index type that takes
        no selector)."""
        import faiss
        import numpy as np

        store: Any = self.store
        positions = [self._faiss_position(i) for i in ids]
        known = [(i, p) for i, p in zip(ids, positions) if p is not None]
        if not known or k < 1:
            return []
        vector = np.asarray([store._embed_query(query)], dtype=np.float32)
        if store._normalize_L2:
            faiss.normalize_L2(vector)
        selector = faiss.IDSelectorBatch(np.asarray([p for _, p in known], dtype=np.int64))
        distances, found = store.index.search(
            vector,
            min(k, len(known)),
            params=faiss.SearchParameters(sel=selector),  # type: ignore[call-arg]
        )
        relevance = store._select_relevance_score_fn()
        id_at = {p: i for i, p in known}
        return [
            (id_at[int(p)], float(relevance(d)))
            for d, p in zip(distances[0], found[0])
            if int(p) in id_at
        ]

    def _faiss_position(self, doc_id: str) -> int | None:
        mapping: dict[int, str] = self.store.index_to_docstore_id  # type: ignore[attr-defined]
        position = self._faiss_positions.get(doc_id)
        if position is None or mapping.get(position) != doc_id:
            self._faiss_positions = {d: p for p, d in mapping.items()}
            position = self._faiss_positions.get(doc_id)
        return position


def instance_of(obj: object, module: str, name: str) -> bool:
    """``isinstance(obj, module.name)`` if that module is already imported, else ``False``."""
    cls = getattr(sys.modules.get(module), name, None)
    return isinstance(cls, type) and isinstance(obj, cls)
