"""What both framework integrations do the same way to read the vectors a store holds.

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
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = [
    "chroma_vectors",
    "faiss_vectors",
    "instance_of",
]

logger = logging.getLogger(__name__)


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
