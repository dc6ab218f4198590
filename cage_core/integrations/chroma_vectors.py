"""Chroma's distances of chosen ids to a query, computed from their stored vectors.

Scoring a few known ids with Chroma's own search restricted to them (``ids=`` or a ``where``
filter) costs 6-15 ms on a 2-core machine whatever their number, most of it the restricted
query's fixed overhead; reading their vectors (``collection.get(ids, include=["embeddings"])``)
costs under a millisecond for a pool's worth. The expansion retrievers score the passages they
add and, for a routed question, the named documents' chunks and the pool
(:mod:`cage_core.integrations.document_routing`) this way where the store is Chroma; each
framework then maps the distance to its own relevance score, as its search would.

:func:`chroma_distances` computes the distance of the collection's space
(``configuration["hnsw" or "spann"]["space"]``, Chroma's default ``"l2"`` when neither
says), as Chroma defines it:

* ``"l2"``: the squared Euclidean distance ``Σ (q_i − v_i)²``;
* ``"cosine"``: ``1 − q·v / (‖q‖ ‖v‖)``;
* ``"ip"``: ``1 − q·v``;

from the float32 vectors Chroma stores (the query too is rounded to float32), summed in float64:
Chroma's own search, summing in float32, agrees to about 1e-7. The collection is duck-typed:
nothing here imports chromadb.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "CHROMA_SPACES",
    "chroma_distances",
    "chroma_space",
    "chroma_vectors",
]

logger = logging.getLogger(__name__)

CHROMA_SPACES = ("l2", "cosine", "ip")
"""The distance spaces :func:`chroma_distances` computes."""


def chroma_space(collection: Any) -> str | None:
    """The distance space of a Chroma ``collection`` (module docstring); ``None`` when it is
    one :func:`chroma_distances` does not compute or the collection does not say."""
    configuration = getattr(collection, "configuration", None)
    if not isinstance(configuration, dict):
        return None
    spaces = [
        (configuration.get(index) or {}).get("space")
        for index in ("hnsw", "spann")
        if isinstance(configuration.get(index) or {}, dict)
    ]
    space = next((s for s in spaces if s), "l2")
    return space if space in CHROMA_SPACES else None


def chroma_distances(
    collection: Any, query: Sequence[float] | np.ndarray, ids: Sequence[str]
) -> dict[str, float] | None:
    """``{id: distance}`` of each of ``ids`` the collection holds to the ``query`` vector
    (module docstring); ``None`` when its space is not known, or reading the vectors fails
    (logged at debug level)."""
    space = chroma_space(collection)
    if space is None:
        return None
    if not ids:
        return {}
    stored = chroma_vectors(collection, ids)
    if stored is None:
        return None
    found = list(stored)
    vectors = np.stack(list(stored.values())) if stored else np.zeros((0, len(query)))
    q = np.asarray(query, dtype=np.float32).astype(np.float64).reshape(-1)
    if vectors.shape[1] != q.shape[0]:
        return None
    if space == "l2":
        distances = ((vectors - q) ** 2).sum(axis=1)
    elif space == "ip":
        distances = 1.0 - vectors @ q
    else:
        norms = np.linalg.norm(vectors, axis=1) * np.linalg.norm(q)
        distances = 1.0 - (vectors @ q) / np.where(norms > 0, norms, 1.0)
    return {pid: float(d) for pid, d in zip(found, distances)}


def chroma_vectors(collection: Any, ids: Sequence[str]) -> dict[str, np.ndarray] | None:
    """``{id: vector}`` (float64 of the stored float32) of each of ``ids`` the collection holds;
    ``None`` when reading them fails (logged at debug level)."""
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
