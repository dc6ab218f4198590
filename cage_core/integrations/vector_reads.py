"""What both framework integrations do the same way to read the vectors a store holds and
their cosine to a query.

The 0–1 ``relevance_score`` the wrappers report (:mod:`cage_core.relevance`) was calibrated on
the cosine of the query and passage embeddings. Vector stores report other scales for the
same pair (LangChain's Chroma and FAISS ``1 − ‖q − p‖²/√2``, Qdrant ``(1 + cos)/2``,
LlamaIndex's Chroma ``exp(−‖q − p‖²)``), so the framework integrations read the stored
vectors and compute the cosine (:func:`vector_cosines`), whatever the store's distance. A
store whose vectors cannot be read keeps its own scale, and :func:`warn_scale_once` says so
once per store class and process, at WARNING.

:func:`instance_of` recognises a store class only when its module is already imported, so
asking imports nothing heavy (a store of a package not loaded is not one);
:func:`faiss_vectors` reads the vectors a faiss index holds at the positions a store recorded
for its ids (LangChain's ``FAISS``: ``index_to_docstore_id``; LlamaIndex's
``FaissVectorStore``: the ``VectorStoreIndex``'s ``nodes_dict``); :func:`chroma_vectors` reads
a Chroma collection's (``collection.get(ids, include=["embeddings"])``: under a millisecond
for a pool's worth, where a search restricted to the ids costs 6-15 ms on a 2-core machine
whatever their number). The stores' own readers are :mod:`cage_langchain.store_vectors` and
:mod:`cage_llamaindex.index_vectors`.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from cage_core.scoring import cosine_matrix

__all__ = [
    "chroma_vectors",
    "faiss_vectors",
    "instance_of",
    "vector_cosines",
    "warn_scale_once",
]

logger = logging.getLogger(__name__)
_lock = threading.Lock()
_warned: set[str] = set()


def instance_of(obj: object, module: str, name: str) -> bool:
    """``isinstance(obj, module.name)`` if that module is already imported, else ``False``."""
    cls = getattr(sys.modules.get(module), name, None)
    return isinstance(cls, type) and isinstance(obj, cls)


def faiss_vectors(
    faiss_index: Any, ids: Sequence[str], position: Callable[[str], Any]
) -> dict[str, np.ndarray]:
    """``{id: vector}`` (float64) of each distinct one of ``ids`` that has a ``position`` in
    ``faiss_index`` (``None``: none); an index that cannot reconstruct its vectors (IVF
    without a direct map) raises what faiss raises."""
    out = {}
    for i in dict.fromkeys(ids):
        at = position(i)
        if at is not None:
            out[i] = np.asarray(faiss_index.reconstruct(int(at)), dtype=np.float64)
    return out


def chroma_vectors(collection: Any, ids: Sequence[str]) -> dict[str, np.ndarray] | None:
    """``{id: vector}`` (float64 of the stored float32) of each of ``ids`` the Chroma
    ``collection`` holds (duck-typed: chromadb is not imported); ``None`` when reading them
    fails (logged at debug level)."""
    if not ids:
        return {}
    try:
        got = collection.get(ids=list(ids), include=["embeddings"])
        found = list(got["ids"])
        vectors = np.asarray(got["embeddings"], dtype=np.float32).astype(np.float64)
        vectors = vectors.reshape(len(found), -1)
    except Exception as exc:
        logger.debug("could not read the stored vectors (%s)", exc)
        return None
    return dict(zip(found, vectors))


def vector_cosines(
    query: Sequence[float] | np.ndarray, vectors: Mapping[str, Sequence[float] | np.ndarray]
) -> dict[str, float]:
    """``{id: cos(query, vector)}`` for each of ``vectors`` (a zero vector gives 0); vectors of
    another dimension than the query raise ``ValueError``."""
    if not vectors:
        return {}
    q = np.asarray(query, dtype=np.float64).reshape(1, -1)
    matrix = np.stack([np.asarray(v, dtype=np.float64).reshape(-1) for v in vectors.values()])
    if matrix.shape[1] != q.shape[1]:
        raise ValueError(
            f"the stored vectors have {matrix.shape[1]} dimensions, the query {q.shape[1]}"
        )
    return {pid: float(c) for pid, c in zip(vectors, cosine_matrix(q, matrix)[0])}


def warn_scale_once(logger: logging.Logger, store: str, why: str) -> bool:
    """Log, the first time for ``store`` (a class name) in this process, that its scores stay
    on its own scale (``why``: what could not be read) and what that does to the cutoff;
    whether it did."""
    with _lock:
        if store in _warned:
            return False
        _warned.add(store)
    logger.warning(
        "%s: %s, so its scores stay on its own relevance scale, not the cosine CAGE's "
        "relevance_score was calibrated on: a cutoff such as 0.5 may keep or drop too much. "
        "Build the store with LangChain Embeddings, as one whose vectors CAGE reads "
        "(InMemoryVectorStore, Chroma, FAISS, dense Qdrant) (warned once per store class)",
        store,
        why,
    )
    return True
