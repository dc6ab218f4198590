"""Cosine similarities of stored vectors to a query vector, and the one warning when a store's
scores cannot be put on that scale.

The 0–1 ``relevance_score`` the wrappers report (:mod:`cage_core.relevance`) was calibrated on
the cosine of the query and passage embeddings. Vector stores report other scales for the
same pair (LangChain's Chroma and FAISS ``1 − ‖q − p‖²/√2``, Qdrant ``(1 + cos)/2``,
LlamaIndex's Chroma ``exp(−‖q − p‖²)``), so the framework integrations read the stored
vectors and compute the cosine here, whatever the store's distance. A store whose vectors
cannot be read keeps its own scale, and :func:`warn_scale_once` says so once per store class
and process, at WARNING.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence

import numpy as np

from cage_core.scoring import cosine_matrix

__all__ = [
    "vector_cosines",
    "warn_scale_once",
]

_lock = threading.Lock()
_warned: set[str] = set()


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
