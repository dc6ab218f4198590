"""What both framework integrations do the same way to read the vectors a store holds.

:func:`instance_of` recognises a store class only when its module is already imported, so
asking imports nothing heavy (a store of a package not loaded is not one);
:func:`faiss_vectors` reads the vectors a faiss index holds at the positions a store recorded
for its ids (LangChain's ``FAISS``: ``index_to_docstore_id``; LlamaIndex's
``FaissVectorStore``: the ``VectorStoreIndex``'s ``nodes_dict``). The stores' own readers are
:mod:`cage_langchain.store_vectors` and :mod:`cage_llamaindex.index_vectors`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = [
    "faiss_vectors",
    "instance_of",
]


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
