"""Stable passage ids for chunks that come without one (text splitters set none).

An expansion retriever fetches the passages the link index names from the vector store by
id, so the link index and the store must key a chunk alike. LangChain's text splitters leave
``Document.id = None`` and stores then invent random ids, so the ingest components give such a
chunk :func:`content_id`: a hash of exactly what CAGE reads of it (title and text),

    content_id = UUID(blake2b(title ␟ text, 16 bytes))      (␟ = U+001F, the unit separator)

written as a canonical lowercase UUID (``8-4-4-4-12`` hex), because some stores (Qdrant) take
only UUIDs or integers as ids. The same chunk gets the same id in every process and at every
re-ingest, so the index and the store agree without storing a map. The ``n``-th repeat
(``n ≥ 1``) of one title and text inside one batch hashes ``title ␟ text ␟ n`` instead
(:func:`content_ids`), since stores refuse one id twice in one call; the first copy keeps the
plain content id.

:func:`document_id` reads the id a retrieved LangChain-style document is stored under, from
wherever the integration keeps it: ``Document.id``, else ``metadata["_id"]`` (langchain-qdrant
returns its points with ``id=None`` and the point id there), else :func:`content_id` of the
document's title and text (what ingest gave it). LlamaIndex nodes always carry a ``node_id``.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["STORE_ID_KEYS", "content_id", "content_ids", "document_id"]

STORE_ID_KEYS: tuple[str, ...] = ("_id",)
"""Metadata keys where vector-store integrations put the id of a returned document
(langchain-qdrant: ``"_id"``), read when ``Document.id`` is ``None``."""

_SEPARATOR = "\x1f"


def content_id(text: str, title: str = "", repeat: int = 0) -> str:
    """The stable id of a passage with this ``title`` and ``text`` (module docstring)."""
    if not isinstance(text, str) or not isinstance(title, str):
        raise TypeError("content_id takes str text and title")
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 0:
        raise ValueError(f"repeat must be a non-negative int, got {repeat!r}")
    parts = [title, text] + ([str(repeat)] if repeat else [])
    digest = hashlib.blake2b(
        _SEPARATOR.join(parts).encode("utf-8", "surrogatepass"), digest_size=16
    ).digest()
    return str(uuid.UUID(bytes=digest))


def content_ids(items: Iterable[tuple[str, str]]) -> list[str]:
    """:func:`content_id` of each ``(title, text)``, the repeats of one pair numbered 1, 2, …"""
    seen: dict[tuple[str, str], int] = {}
    out = []
    for title, text in items:
        repeat = seen.get((title, text), 0)
        seen[(title, text)] = repeat + 1
        out.append(content_id(text, title, repeat))
    return out


def document_id(doc_id: object, metadata: Mapping[str, Any], text: str, title: str = "") -> str:
    """The id a retrieved document is stored under: ``doc_id`` (e.g. ``Document.id``) if it is
    a non-empty string, else the first non-empty :data:`STORE_ID_KEYS` value (an int id is
    written in decimal), else :func:`content_id` of ``title`` and ``text``."""
    if isinstance(doc_id, str) and doc_id:
        return doc_id
    for key in STORE_ID_KEYS:
        value = metadata.get(key)
        if isinstance(value, str) and value:
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
    return content_id(text, title)
