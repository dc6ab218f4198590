"""The formats of the graph store's values (:mod:`cage_core.graphs.store`), and their checks.

A graph is stored as ``PassageGraph.to_text()`` (a JSON string, signed when the store has an
integrity key); an entry that is not UTF-8 text or is longer than ``MAX_ENTRY_BYTES`` is
invalid. An embedding is stored as its width and its values as little-endian float32 bytes:
valid when the width is an int in [1, ``MAX_EMBEDDING_DIM``], the data exactly 4 bytes per
value and every value finite. Text is read from SQLite as bytes and decoded with
``surrogateescape`` (:func:`cage_core.stores.database.stored_text`), so text that is not
UTF-8 is rejected by :func:`~cage_core.stores.database.is_utf8` rather than raised deep
inside sqlite3.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np

from cage_core.graphs.passage_graph import PassageGraph
from cage_core.stores.database import is_utf8

__all__ = [
    "MAX_EMBEDDING_DIM",
    "MAX_ENTRY_BYTES",
    "embedding_or_none",
    "embedding_row",
    "graph_from_row",
    "stored_bytes",
]

logger = logging.getLogger("cage_core.graphs.store")  # the graph store's log, from any module

MAX_ENTRY_BYTES = 8_000_000
"""Stored entries larger than this are treated as corrupt (a 20,000-character passage's
graph is well under 1 MB)."""
MAX_EMBEDDING_DIM = 4096
"""Stored embeddings wider than this are treated as corrupt."""
EMBEDDING_DTYPE = np.dtype("<f4")
"""How an embedding's values are stored."""


def embedding_row(key: str, vector: np.ndarray) -> tuple[int, bytes]:
    """``(width, bytes)`` of a 1-D embedding as stored.

    Raises:
        ValueError: if the vector is not 1-D, is wider than ``MAX_EMBEDDING_DIM`` or has a
            value that is not finite in float32.
    """
    arr = np.asarray(vector)
    if arr.ndim != 1 or not 1 <= arr.shape[0] <= MAX_EMBEDDING_DIM:
        raise ValueError(
            f"embedding {key[:12]}: expected a 1-D vector of 1 to {MAX_EMBEDDING_DIM} "
            f"values, got shape {arr.shape}"
        )
    with np.errstate(over="ignore"):
        data = arr.astype(EMBEDDING_DTYPE)
    if not np.isfinite(data).all():
        raise ValueError(f"embedding {key[:12]}: values must be finite in float32")
    return int(arr.shape[0]), data.tobytes()


def embedding_from_row(dim: object, data: object) -> np.ndarray:
    """A new float32 array from a stored ``(width, bytes)`` row.

    Raises:
        ValueError: saying what is wrong with the row (width, length or values).
    """
    if isinstance(dim, bool) or not isinstance(dim, int) or not 1 <= dim <= MAX_EMBEDDING_DIM:
        raise ValueError(f"width {dim!r} is not an int in [1, {MAX_EMBEDDING_DIM}]")
    if not isinstance(data, bytes) or len(data) != dim * EMBEDDING_DTYPE.itemsize:
        raise ValueError(f"data is not {dim * EMBEDDING_DTYPE.itemsize} bytes")
    vector = np.frombuffer(data, dtype=EMBEDDING_DTYPE).astype(np.float32)
    if not np.isfinite(vector).all():
        raise ValueError("values are not finite")
    return vector


def stored_bytes(value: str) -> bytes:
    """The stored bytes of text read through :func:`~cage_core.stores.database.stored_text`."""
    return value.encode("utf-8", "surrogateescape")


def graph_from_row(path: Path, key: str, data: object, max_chars: int) -> PassageGraph | None:
    """The graph of a stored entry (``PassageGraph.from_stored``, its limits those of a text
    of ``max_chars``); ``None``, with a warning naming the store at ``path``, when invalid."""
    if not isinstance(data, str) or len(data) > MAX_ENTRY_BYTES or not is_utf8(data):
        logger.warning(
            "graph store %s: entry %s is not UTF-8 text or too large; dropping it",
            path,
            key[:12],
        )
        return None
    try:
        return PassageGraph.from_stored(data, max_chars=max_chars)
    except (RecursionError, ValueError) as exc:  # GraphFormatError is a ValueError
        logger.warning("graph store %s: entry %s is invalid (%s); dropping it", path, key[:12], exc)
        return None


def embedding_or_none(path: Path, key: str, dim: object, data: object) -> np.ndarray | None:
    """:func:`embedding_from_row`; ``None``, with a warning naming the store at ``path``,
    when the row is invalid."""
    try:
        return embedding_from_row(dim, data)
    except ValueError as exc:
        logger.warning(
            "graph store %s: embedding %s is invalid (%s); dropping it", path, key[:12], exc
        )
        return None
