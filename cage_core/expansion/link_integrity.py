"""A keyed link store as a whole (:mod:`cage_core.expansion.store`; the rows' MACs are
:mod:`cage_core.expansion.link_rows`'s and :mod:`cage_core.expansion.link_documents`'): whether
a key is the store's, checked at every open, and what
:meth:`SqliteLinkStorage.check <cage_core.expansion.store.SqliteLinkStorage.check>` finds.

**The key at open.** A keyed store carries MACs: of its passage count (meta
``passages_mac``), of its document count (``documents_mac``) and of each entry. Opened with a
key, the store is checked for them: when it holds some and none of the counts' and none of
its first :data:`KEY_SAMPLE_ENTRIES` entries' holds under the key, the key is not the one it
was written with (or the store was rewritten without it), and opening raises
:class:`IntegrityKeyMismatch` rather than giving empty expansions row by row. One altered
value (a flipped bit, an edit) leaves the others holding: that store opens, and its reads
skip what is altered, with a warning. A store without MACs (written without a key, or
empty) opens; a keyed reader then uses none of its entries (each skipped as without a MAC).

**Rows and check().** Every entry row is decoded as the JSON Lines loader reads a line and,
with a key, its MAC checked (:meth:`KeyedLinkStore._decoded`: bad rows skipped, one warning
per read). :meth:`KeyedLinkStore.check`, with a key, beside SQLite's ``PRAGMA integrity_check``: the entries and the
document records without a valid MAC, the two counts without theirs, and the documents'
word counts that disagree with their postings (what a keyed read skips).
"""

from __future__ import annotations

import functools
import hmac
import logging
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from cage_core.expansion.jsonl import parse_line
from cage_core.expansion.link_documents import (
    LinkDocumentStore,
    has_document_tables,
    record_from_row,
)
from cage_core.expansion.link_rows import MAC_FIELD, entry_from_row, text_mac
from cage_core.expansion.link_store_connection import READ_BATCH_KEYS
from cage_core.expansion.record import LinkEntry, LinkIndexFormatError
from cage_core.sqlite_files import FileIdentity
from cage_core.sqlite_stamp import close_held_connection

__all__ = [
    "KEY_SAMPLE_ENTRIES",
    "IntegrityKeyMismatch",
    "KeyedLinkStore",
    "check_key",
    "count_problems",
    "document_count_problems",
]

logger = logging.getLogger("cage_core.expansion.store")
"""The link store's log: its messages keep one logger name wherever their code lives."""

KEY_SAMPLE_ENTRIES = 8
"""Entries (the first by ``pid``) whose MACs are tried at open when neither count's holds."""
_COUNTS = (("passages", "the passage count"), ("documents", "the document count"))


class IntegrityKeyMismatch(ValueError):
    """A link store was opened with an integrity key that none of its MACs holds under: not
    the key it was written with (module docstring)."""


class KeyedLinkStore(LinkDocumentStore):
    """The rows of :class:`~cage_core.expansion.store.SqliteLinkStorage` checked as read, its
    key checked at every open and the whole store by :meth:`check` (module docstring)."""

    def __init__(self, path: Path, **settings: Any) -> None:
        self._reported: set[int] = set()
        super().__init__(path, **settings)

    def _forget_file(self) -> None:
        super()._forget_file()
        self._reported.clear()  # rows are reported by pid: the next file has its own

    def check(self) -> list[str]:
        """What is wrong with the whole store, read end to end ([] when sound): SQLite's
        ``PRAGMA integrity_check`` (damaged pages and indexes: a flipped bit in an index
        makes a lookup miss, which no row check can see) and, with an integrity key, what a
        keyed read skips (module docstring). Reads every page: for a backup or a schedule,
        not a query path."""
        problems = [
            str(row[0])
            for row in self._attempt(lambda conn: conn.execute("PRAGMA integrity_check").fetchall())
            if row[0] != "ok"
        ]
        key = self._integrity_key
        if key is None:
            return problems
        entry_pages = functools.partial(self._entry_rows, "WHERE pid > ? ORDER BY pid LIMIT ?")
        unsigned = sum(self._decode(row, quiet=True) is None for row in self._rows(entry_pages))
        record_pages = functools.partial(self._record_rows, "rowid > ? ORDER BY rowid LIMIT ?")
        records = sum(not _record_holds(row, key) for row in self._rows(record_pages))
        problems += [
            f"{n} {what} without a valid MAC under the integrity key"
            for n, what in ((unsigned, "entries"), (records, "document records"))
            if n
        ]
        problems += self._attempt(functools.partial(count_problems, key=key))
        if self._attempt(has_document_tables):
            problems += self._attempt(document_count_problems)
        return problems

    def _rows(self, page: Callable[[tuple, sqlite3.Connection], list[tuple]]) -> Iterator[tuple]:
        """Every row ``page((last, size), conn)`` gives, a page per read transaction."""
        last = 0
        while rows := self._attempt(functools.partial(page, (last, READ_BATCH_KEYS))):
            last = rows[-1][0]
            yield from rows

    def _connect(self) -> tuple[sqlite3.Connection, FileIdentity | None]:
        """The base's checked connection; with a key, the key checked against the store's
        MACs (:func:`check_key`).

        Raises:
            IntegrityKeyMismatch: when none of the store's MACs holds under the key.
        """
        conn, opened = super()._connect()
        if self._integrity_key is not None:
            self._budget.start()
            first = functools.partial(
                self._entry_rows, "ORDER BY pid LIMIT ?", (KEY_SAMPLE_ENTRIES,)
            )
            try:
                check_key(conn, self._integrity_key, self.path, first)
            except BaseException:
                close_held_connection("link store", self.path, conn, opened)
                raise
        return conn, opened

    def _decoded(self, rows: Iterable[tuple]) -> list[LinkEntry]:
        """The valid entries of entry rows; new invalid ones reported in one warning."""
        out: list[LinkEntry] = []
        reasons: dict[str, int] = {}
        for row in rows:
            entry = self._decode(row, reasons=reasons)
            if entry is not None:
                out.append(entry)
        if reasons:
            summary = "; ".join(f"{n} × {reason}" for reason, n in sorted(reasons.items()))
            logger.warning(
                "link store %s: skipped %d invalid entries (%s)",
                self.path,
                sum(reasons.values()),
                summary,
            )
        return out

    def _decode(
        self,
        row: tuple,
        *,
        quiet: bool = False,
        reasons: dict[str, int] | None = None,
        verify: bool = True,
    ) -> LinkEntry | None:
        """The entry of a row ``(pid, id, data, doc_id, position)``
        (:func:`~cage_core.expansion.link_rows.entry_from_row`); ``None`` (counted in
        ``reasons`` the first time this process sees the row) when invalid."""
        try:
            return entry_from_row(row, self._integrity_key, verify=verify)
        except LinkIndexFormatError as exc:
            pid = row[0]
            if not quiet and reasons is not None and pid not in self._reported:
                self._reported.add(pid)
                reasons[str(exc)] = reasons.get(str(exc), 0) + 1
            return None


def check_key(
    conn: sqlite3.Connection,
    key: bytes,
    path: object,
    entry_rows: Callable[[sqlite3.Connection], list[tuple]],
) -> None:
    """Raise :class:`IntegrityKeyMismatch` when the store on ``conn`` holds MACs and none
    holds under ``key`` (module docstring); ``entry_rows(conn)`` gives its first
    :data:`KEY_SAMPLE_ENTRIES` entry rows."""
    signed = 0
    for name, _ in _COUNTS:
        holds = _count_holds(conn, key, name)
        if holds:
            return
        signed += holds is not None
    for row in entry_rows(conn):
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


def _record_holds(row: tuple, key: bytes) -> bool:
    try:
        record_from_row(row, key)
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
    mac = conn.execute("SELECT value FROM meta WHERE key = ?", (f"{name}_mac",)).fetchone()
    if mac is None:
        return None
    count = conn.execute("SELECT value FROM meta WHERE key = ?", (name,)).fetchone()
    expected = text_mac(key, f"{name}:{None if count is None else count[0]}")
    return isinstance(mac[0], str) and hmac.compare_digest(mac[0], expected)


def _has_row(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM meta WHERE key = ?", (name,)).fetchone() is not None


def _carries_mac(row: tuple) -> bool:
    """Whether an entry row's ``data`` holds a MAC field (valid or not)."""
    try:
        data = parse_line(row[2]) if isinstance(row[2], str) else None
    except LinkIndexFormatError:
        return False
    return isinstance(data, dict) and MAC_FIELD in data
