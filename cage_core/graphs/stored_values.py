"""The formats of the graph store's values (:mod:`cage_core.graphs.store`), and their checks.

A graph is stored as ``PassageGraph.to_text()`` (a JSON string, signed when the store has an
integrity key); an entry that is not UTF-8 text or is longer than ``MAX_ENTRY_BYTES`` is
invalid. An embedding is stored as its width and its values as little-endian float32 bytes:
valid when the width is an int in [1, ``MAX_EMBEDDING_DIM``], the data exactly 4 bytes per
value and every value finite. Text is read from SQLite as bytes and decoded here with
``surrogateescape`` (:func:`stored_text`), so text that is not UTF-8 is rejected by
:func:`is_utf8` rather than raised deep inside sqlite3.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "EMBEDDING_DTYPE",
    "MAX_EMBEDDING_DIM",
    "MAX_ENTRY_BYTES",
    "embedding_from_row",
    "embedding_row",
    "is_utf8",
    "stored_bytes",
    "stored_text",
]

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


def stored_text(value: bytes) -> str:
    """Stored text as ``str``; invalid UTF-8 becomes lone surrogates, which decoding rejects."""
    return value.decode("utf-8", "surrogateescape")


def stored_bytes(value: str) -> bytes:
    """The stored bytes of text read through :func:`stored_text`."""
    return value.encode("utf-8", "surrogateescape")


def is_utf8(text: str) -> bool:
    """Whether ``text`` is valid UTF-8 (no lone surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
