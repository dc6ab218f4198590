"""A keyed link store as a whole (:mod:`cage_core.expansion.store`; the rows' MACs are
:mod:`cage_core.expansion.link_rows`'s): whether a key is the store's, checked at every open
(:func:`check_key`), and what
:meth:`SqliteLinkStorage.check <cage_core.expansion.store.SqliteLinkStorage.check>` finds
(:func:`store_problems`).

**The key at open.** A keyed store carries MACs: of its passage count (meta
``passages_mac``), of its document count (``documents_mac``) and of each entry. Opened with a
key, the store is checked for them: when it holds some and none of the counts' and none of
its first :data:`KEY_SAMPLE_ENTRIES` entries' holds under the key, the key is not the one it
was written with (or the store was rewritten without it), and opening raises
:class:`IntegrityKeyMismatch` rather than giving empty expansions row by row. One altered
value (a flipped bit, an edit) leaves the others holding: that store opens, and its reads
skip what is altered, with a warning. A store without MACs (written without a key, or
empty) opens; a keyed reader then uses none of its entries (each skipped as without a MAC).

**check().** Beside SQLite's ``PRAGMA integrity_check`` (damaged pages and indexes), with a
key: the entries and the document records without a valid MAC, the two counts without
theirs, and the documents' word counts that disagree with their postings (what a keyed read
skips).
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable

from cage_core.expansion.jsonl import parse_line
from cage_core.expansion.link_rows import (
    MAC_FIELD,
    count_signed,
    entry_from_row,
    entry_rows,
    has_document_tables,
    record_from_row,
    record_rows,
)
from cage_core.expansion.link_store_file import LinkStoreFile
from cage_core.expansion.record import LinkIndexFormatError

__all__ = [
    "IntegrityKeyMismatch",
    "check_key",
    "store_problems",
]


KEY_SAMPLE_ENTRIES = 8
"""Entries (the first by ``pid``) whose MACs are tried at open when neither count's holds."""
_COUNTS = (("passages", "the passage count"), ("documents", "the document count"))


class IntegrityKeyMismatch(ValueError):
    """A link store was opened with an integrity key that none of its MACs holds under: not
    the key it was written with (module docstring)."""


def store_problems(file: LinkStoreFile) -> list[str]:
    """What is wrong with the whole store, read end to end ([] when sound): SQLite's
    ``PRAGMA integrity_check`` (damaged pages and indexes: a flipped bit in an index makes a
    lookup miss, which no row check can see) and, with an integrity key, what a keyed read
    skips (module docstring). Reads every page: for a backup or a schedule, not a query
    path."""
    rows = file.read(lambda conn: conn.execute("PRAGMA integrity_check").fetchall())
    problems = [str(row[0]) for row in rows if row[0] != "ok"]
    key = file.key
    if key is None:
        return problems
    entry_pages = functools.partial(entry_rows, "WHERE pid > ? ORDER BY pid LIMIT ?")
    unsigned = sum(
        not _holds(entry_from_row, row, key) for rows in file.pages(entry_pages) for row in rows
    )
    record_pages = functools.partial(record_rows, "rowid > ? ORDER BY rowid LIMIT ?")
    records = sum(
        not _holds(record_from_row, row, key) for rows in file.pages(record_pages) for row in rows
    )
    problems += [
        f"{n} {what} without a valid MAC under the integrity key"
        for n, what in ((unsigned, "entries"), (records, "document records"))
        if n
    ]
    problems += file.read(functools.partial(count_problems, key=key))
    if file.read(has_document_tables):
        problems += file.read(document_count_problems)
    return problems


def check_key(conn: sqlite3.Connection, key: bytes, path: object) -> None:
    """Raise :class:`IntegrityKeyMismatch` when the store on ``conn`` holds MACs and none
    holds under ``key`` (module docstring): neither count's, nor those of its first
    :data:`KEY_SAMPLE_ENTRIES` entries."""
    signed = 0
    for name, _ in _COUNTS:
        holds = _count_holds(conn, key, name)
        if holds:
            return
        signed += holds is not None
    for row in entry_rows("ORDER BY pid LIMIT ?", (KEY_SAMPLE_ENTRIES,), conn):
        try:
            entry_from_row(row, key)
            return
        except LinkIndexFormatError:
            signed += _carries_mac(row)
    if signed:
        raise IntegrityKeyMismatch(
            f"link store {path}: no MAC of the store (its counts', its first entries') holds "
            "under the integrity key: it was written with another key (or rewritten without "
            "one); open it with its writers' key"
        )


def _holds(decode: Callable[[tuple, bytes], object], row: tuple, key: bytes) -> bool:
    """Whether ``decode(row, key)`` (an entry's or a record's) finds the row sound."""
    try:
        decode(row, key)
    except LinkIndexFormatError:
        return False
    return True


def count_problems(conn: sqlite3.Connection, key: bytes) -> list[str]:
    """The counts (passages, documents) of a keyed store whose MAC does not hold."""
    return [
        f"{label} has no valid MAC under the integrity key"
        for name, label in _COUNTS
        if _count_holds(conn, key, name) is False
        and (name == "passages" or _has_row(conn, "documents"))
    ]


def document_count_problems(conn: sqlite3.Connection) -> list[str]:
    """The documents' word counts that disagree with their postings (words without a count
    included), read end to end."""
    wrong = conn.execute(
        "SELECT count(*) FROM document_counts AS c WHERE c.documents IS NOT "
        "(SELECT count(*) FROM document_words AS w WHERE w.word = c.word)"
    ).fetchone()[0]
    wrong += conn.execute(
        "SELECT count(*) FROM (SELECT DISTINCT word FROM document_words) AS w "
        "WHERE NOT EXISTS (SELECT 1 FROM document_counts AS c WHERE c.word = w.word)"
    ).fetchone()[0]
    return [f"{wrong} document word counts disagree with their postings"] if wrong else []


def _count_holds(conn: sqlite3.Connection, key: bytes, name: str) -> bool | None:
    """Whether the MAC of the count ``name`` holds under ``key``; ``None`` without one."""
    if not _has_row(conn, f"{name}_mac"):
        return None
    count = conn.execute("SELECT value FROM meta WHERE key = ?", (name,)).fetchone()
    return count_signed(conn, key, None if count is None else count[0], name)


def _has_row(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM meta WHERE key = ?", (name,)).fetchone() is not None


def _carries_mac(row: tuple) -> bool:
    """Whether an entry row's ``data`` holds a MAC field (valid or not)."""
    try:
        data = parse_line(row[2]) if isinstance(row[2], str) else None
    except LinkIndexFormatError:
        return False
    return isinstance(data, dict) and MAC_FIELD in data
