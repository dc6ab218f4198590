"""The vectors a LangChain vector store holds for chosen documents, and their cosine to a query.

The 0–1 ``relevance_score`` is calibrated on the cosine of query and passage embeddings
(:mod:`cage_core.integrations.vector_reads`); the stores' relevance functions put the same
pair on other scales (Chroma's and FAISS's defaults ``1 − ‖q − p‖²/√2``, Qdrant's
``(1 + cos)/2``). The cosine is computed here from the vectors the store holds, read by id:

* LangChain's ``InMemoryVectorStore``: its ``store[id]["vector"]``;
* ``langchain_chroma.Chroma``: ``collection.get(ids, include=["embeddings"])``, whatever the
  collection's space (``l2``, ``ip``, ``cosine``) (:func:`~cage_core.integrations.
  vector_reads.chroma_vectors`);
* ``langchain_community``'s ``FAISS``: ``index.reconstruct`` at each id's position (flat
  indexes; an index type that cannot reconstruct gives none);
* ``langchain_qdrant.QdrantVectorStore``: ``client.retrieve(..., with_vectors=...)`` of its
  dense vector.

Any other store gives none: callers then keep the store's own scores and say so once
(:func:`~cage_core.integrations.vector_reads.warn_scale_once`). A store class is recognised
only when its module is already imported, so nothing heavy is imported here.
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import InMemoryVectorStore, VectorStore

from cage_core.integrations.vector_reads import chroma_vectors, faiss_vectors, instance_of

__all__ = [
    "reads_vectors",
    "store_embeddings",
    "stored_vectors",
]

logger = logging.getLogger(__name__)


def reads_vectors(store: VectorStore) -> bool:
    """Whether :func:`stored_vectors` knows how to read ``store``'s vectors."""
    return (
        isinstance(store, InMemoryVectorStore)
        or instance_of(store, "langchain_chroma", "Chroma")
        or instance_of(store, "langchain_community.vectorstores.faiss", "FAISS")
        or instance_of(store, "langchain_qdrant", "QdrantVectorStore")
    )


def store_embeddings(store: VectorStore) -> Embeddings | None:
    """The ``Embeddings`` ``store`` embeds with (``None`` when it keeps none, e.g. a FAISS
    store built from a plain function)."""
    try:
        embeddings = store.embeddings
    except Exception:  # a store whose property raises: treat as none
        return None
    return embeddings if isinstance(embeddings, Embeddings) else None


def stored_vectors(store: VectorStore, ids: Sequence[str]) -> dict[str, np.ndarray] | None:
    """``{id: vector}`` of each of ``ids`` that ``store`` holds (module docstring); ``None``
    when the store is not one whose vectors are read, or reading them fails (logged at debug
    level)."""
    if not ids:
        return {}
    try:
        if isinstance(store, InMemoryVectorStore):
            held = {i: store.store.get(i) for i in ids}
            return {i: np.asarray(e["vector"], dtype=np.float64) for i, e in held.items() if e}
        if instance_of(store, "langchain_chroma", "Chroma"):
            return chroma_vectors(store._collection, list(dict.fromkeys(ids)))  # type: ignore[attr-defined]
        if instance_of(store, "langchain_community.vectorstores.faiss", "FAISS"):
            return _faiss_vectors(store, ids)
        if instance_of(store, "langchain_qdrant", "QdrantVectorStore"):
            return _qdrant_vectors(store, ids)
    except Exception as exc:
        logger.debug("%s: could not read the stored vectors (%s)", type(store).__name__, exc)
    return None


def _faiss_vectors(store: Any, ids: Sequence[str]) -> dict[str, np.ndarray]:
    mapping: dict[int, str] = store.index_to_docstore_id
    return faiss_vectors(store.index, ids, lambda i: _faiss_position(store, mapping, i))


def _faiss_position(store: Any, mapping: dict[int, str], doc_id: str) -> int | None:
    """``doc_id``'s position in a FAISS index, by an id → position map kept per store (checked
    on every lookup, rebuilt when the store changed): a map of a large index costs its size."""
    with _positions_lock:
        positions = _faiss_positions.get(store)
        position = positions.get(doc_id) if positions is not None else None
        if position is None or mapping.get(position) != doc_id:
            positions = {d: p for p, d in mapping.items()}
            _faiss_positions[store] = positions
            position = positions.get(doc_id)
    return None if position is None else int(position)


_faiss_positions: weakref.WeakKeyDictionary[Any, dict[str, int]] = weakref.WeakKeyDictionary()
_positions_lock = threading.Lock()


def _qdrant_vectors(store: Any, ids: Sequence[str]) -> dict[str, np.ndarray]:
    name = store.vector_name
    points = store.client.retrieve(
        store.collection_name, ids=list(dict.fromkeys(ids)), with_vectors=[name] if name else True
    )
    out = {}
    for point in points:
        vector = point.vector.get(name) if isinstance(point.vector, dict) else point.vector
        if vector is not None:
            out[str(point.id)] = np.asarray(vector, dtype=np.float64)
    return out
