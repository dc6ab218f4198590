"""Where a link index is kept and in what form: the link store beside a graph store, the
choice between a SQLite link store (:mod:`cage_core.expansion.store`) and a JSON Lines file
(:mod:`cage_core.expansion.jsonl`) by the path's suffix, and a storage's JSON Lines form,
line by line. :class:`~cage_core.expansion.index.LinkIndex` opens, loads and saves through
these.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from cage_core.expansion.jsonl import (
    bounded_lines,
    document_line,
    entry_line,
    header_line,
    read_items,
)
from cage_core.expansion.record import LinkEntry
from cage_core.expansion.storage import LinkStorage, MemoryLinkStorage

__all__ = [
    "LINK_STORE_SUFFIX",
    "STORE_SUFFIXES",
    "is_store_path",
    "link_store_path",
    "open_storage",
    "read_storage",
    "stored_lines",
]

logger = logging.getLogger("cage_core.expansion.index")  # the name its warnings always had

LINK_STORE_SUFFIX = ".links.sqlite"
"""The SQLite link store of a graph store ``graphs.sqlite`` is ``graphs.links.sqlite``."""
STORE_SUFFIXES = (".sqlite", ".sqlite3", ".db")
"""A link index path ending in one of these is a SQLite link store
(:mod:`cage_core.expansion.store`)."""


def link_store_path(graph_store_path: str | os.PathLike[str]) -> Path:
    """Where the SQLite link store of a graph store lives (``LINK_STORE_SUFFIX`` next to it)."""
    return Path(graph_store_path).with_suffix(LINK_STORE_SUFFIX)


def is_store_path(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names a SQLite link store (its name ends in :data:`STORE_SUFFIXES`)."""
    return Path(path).suffix.lower() in STORE_SUFFIXES


def open_storage(
    path: str | os.PathLike[str],
    *,
    create: bool = False,
    integrity_key: bytes | str | None = None,
    reopen: bool = False,
) -> LinkStorage:
    """The storage at ``path``: a SQLite link store when the name ends in one of
    :data:`STORE_SUFFIXES` (opened without loading, read per query:
    :mod:`cage_core.expansion.store`), else the JSON Lines file, loaded into memory
    (validated: :mod:`~cage_core.expansion.jsonl`).

    Args:
        create: create an empty SQLite store when there is none (writers: ingest);
            readers leave it ``False``, so a mistyped path is an error, not an empty index.
        integrity_key: the SQLite store's secret (its keyed integrity:
            :mod:`cage_core.expansion.store`): entries are written with a MAC under it and
            read only with a valid one. A JSON Lines file carries no MACs: there it has no
            effect, which is logged.
        reopen: a SQLite store's file replaced (or deleted and put back) while open is
            opened anew at the next call, not ``StoreFileChanged`` at every call.

    Raises:
        FileNotFoundError: when nothing is stored at ``path`` (and not ``create``).
        LinkIndexFormatError: when the file is not a link index of this version.
    """
    if is_store_path(path):
        from cage_core.expansion.store import SqliteLinkStorage

        return SqliteLinkStorage(path, create=create, integrity_key=integrity_key, reopen=reopen)
    if integrity_key is not None:
        logger.warning(
            "%s: a JSON Lines link index carries no MACs; integrity_key has no effect "
            "(use a SQLite store, %s)",
            path,
            ", ".join(STORE_SUFFIXES),
        )
    with open(path, "rb") as handle:
        return read_storage(bounded_lines(handle), source=str(path))


def read_storage(
    lines: Iterable[bytes | str | None], source: str = "link index"
) -> MemoryLinkStorage:
    """An in-memory storage from stored lines (the :func:`stored_lines` form; bytes are
    decoded as UTF-8).

    A line longer than ``MAX_LINE_CHARS`` is rejected; pass ``None`` in place of a line
    to count one that was cut off by the reader.
    """
    storage = MemoryLinkStorage()
    for item in read_items(lines, source):  # validated as read: not again
        if isinstance(item, LinkEntry):
            storage.put_validated((item,))
        else:
            storage.documents().put((item,))
    return storage


def stored_lines(storage: LinkStorage) -> Iterator[str]:
    """The stored form of ``storage``'s entries and document records, line by line
    (:mod:`~cage_core.expansion.jsonl`), each without its newline."""
    yield header_line(len(storage), storage.documents().document_count())
    yield from map(entry_line, storage.iter_entries())
    yield from map(document_line, storage.document_records())
