"""The link index stored for random access: a SQLite file, opened without loading, read per query.

:meth:`LinkIndex.open("links.sqlite") <cage_core.expansion.index.LinkIndex.open>` gives a
:class:`~cage_core.expansion.index.LinkIndex` over this storage: the same entries, the same
:meth:`~cage_core.expansion.index.LinkIndex.expand` (one algorithm, reading through
:class:`~cage_core.expansion.index.LinkStorage`), but nothing is loaded: opening reads one row,
an expansion a handful of indexed lookups, and adding or removing entries costs in
proportion to them, not to the index. JSON Lines stays the export and import format::

    index = LinkIndex.open("graphs.links.sqlite", create=True)   # writers: ingest
    index.add_entries(entries)                                    # upserts, keyed by id
    import_jsonl("graphs.links.jsonl", "graphs.links.sqlite")    # store_import: an old index
    LinkIndex.open("graphs.links.sqlite").save("export.jsonl")   # and back

Layout (version ``STORE_VERSION``)::

    meta(key, value)                   format tag, version, passage count N
    entries(pid, id UNIQUE, data, doc_id, position)   data: {"subject", "keys", "mentions"}
    names(nid, name UNIQUE, keyed, mentioned)         df(name) = keyed + mentioned
    postings(nid, role, pid)           PRIMARY KEY (nid, role, pid), WITHOUT ROWID
    documents, document_words, document_counts   the document records (routing's), added
                                       by their first writer:
                                       :mod:`~cage_core.expansion.link_documents`

``keyed``, ``mentioned`` and ``N`` are kept up to date in the transaction that changes
them, so ``df`` and ``spec`` are one lookup. An entry that is put again replaces the old
one (its postings and counts are taken back first): putting the same entries twice, as a
resumed or retried ingest does, leaves the store as once.

Sharing and safety are the store layer's (:mod:`cage_core.stores`), with the link store's
schema and meta (:mod:`cage_core.expansion.link_store_file`); what is the link store's own:
a write is a transaction of at most ``WRITE_BATCH_ENTRIES`` entries, and one still locked
after the last attempt raises ``sqlite3.OperationalError`` (putting the entries again is
safe); one expansion reads in one read transaction (:meth:`SqliteLinkStorage.reading`); a
file replaced or deleted under the store raises ``StoreFileChanged`` at every call, or, with
``reopen=True`` (the expansion retrievers' own,
:func:`~cage_core.expansion.contract.load_link_index`), the next call once a file is at the
path opens it (one warning); a write whose commit may have gone to the old file raises.

Every row is untrusted on read: an entry row goes through
:meth:`LinkEntry.from_stored <cage_core.expansion.index.LinkEntry.from_stored>` (the rules of the
JSON Lines loader), a count or posting of the wrong type is ignored, and each bad row is
skipped and reported once per process, in one warning per read. Entries are validated by
the same rules before they are written (:meth:`SqliteLinkStorage.put`), so a store never
holds an entry it cannot read back.

Keyed integrity (optional, for stores others can write; with ``integrity_key``): every entry
and the passage count carry an HMAC, checked on read (:mod:`cage_core.expansion.link_rows`); a
key none of the store's MACs holds under is refused at open (:class:`IntegrityKeyMismatch`),
and :meth:`SqliteLinkStorage.check` reads the whole store
(:mod:`cage_core.expansion.link_integrity`). Errors name their cause (permission, read-only,
corrupt or truncated, empty, newer version).
"""

from __future__ import annotations

import functools
import logging
import os
import sqlite3
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cage_core.expansion.documents import DocumentRecord
from cage_core.expansion.link_documents import LinkDocuments
from cage_core.expansion.link_integrity import IntegrityKeyMismatch, check_key, store_problems
from cage_core.expansion.link_names import LinkNames
from cage_core.expansion.link_rows import (
    CHECKED_POSITION,
    ENTRY_COLUMNS,
    count_ok,
    count_signed,
    document_rows,
    entry_from_row,
    entry_rows,
    position_ok,
)
from cage_core.expansion.link_store_file import (
    LINK_PRAGMAS,
    LINK_STORE,
    MAX_VALUE_BYTES,
    PAGE_SIZE,
    STORE_VERSION,
    WAL_CHECKPOINT_PAGES,
    LinkStoreFile,
    ready_file,
    worded,
)
from cage_core.expansion.link_writes import replace_entries
from cage_core.expansion.record import LinkEntry, LinkIndexFormatError, valid_id
from cage_core.expansion.storage import NameRole, check_storable, chunk_order
from cage_core.graphs.integrity import key_bytes
from cage_core.stores.connection import StoreConnection
from cage_core.stores.database import BUSY_TIMEOUT_S, MAX_ATTEMPTS
from cage_core.stores.files import StoreFileChanged

__all__ = [
    "IntegrityKeyMismatch",
    "MAX_VALUE_BYTES",
    "PAGE_SIZE",
    "STORE_VERSION",
    "WAL_CHECKPOINT_PAGES",
    "WRITE_BATCH_ENTRIES",
    "SqliteLinkStorage",
]

logger = logging.getLogger(__name__)

WRITE_BATCH_ENTRIES = 1000
"""Entries per write transaction: other writers wait at most about one batch."""
CACHE_KIB = 32 * 1024
"""SQLite page cache per connection (KiB) unless one is given: bounds a querying process's
memory, and holds the pages a write batch changes."""


class SqliteLinkStorage:
    """:class:`~cage_core.expansion.index.LinkStorage` in a SQLite file (module docstring).

    Args:
        path: the store file.
        create: create it (and its tables) when missing; else a missing file raises.
        busy_timeout_s: how long SQLite waits for a lock per attempt.
        max_attempts: attempts per read or write transaction (at least 1).
        cache_kib: SQLite page cache of this process's connection (default ``CACHE_KIB``).
        integrity_key: a secret (bytes or str): entries are written with a MAC under it and
            read only with a valid one (module docstring); ``None``: rows are validated for
            format only.
        reopen: open the file now at the path at the next call after the store's file was
            replaced, or deleted and put back, rather than raise ``StoreFileChanged`` at every
            call (module docstring); for readers.

    Raises:
        FileNotFoundError: when ``path`` does not exist and not ``create``.
        LinkIndexFormatError: when the file is not a link store of this version.
        IntegrityKeyMismatch: when the store holds MACs and none holds under
            ``integrity_key`` (:mod:`~cage_core.expansion.link_integrity`).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        create: bool = False,
        busy_timeout_s: float = BUSY_TIMEOUT_S,
        max_attempts: int = MAX_ATTEMPTS,
        cache_kib: int | None = None,
        integrity_key: bytes | str | None = None,
        reopen: bool = False,
    ) -> None:
        self._integrity_key = key_bytes(integrity_key)
        cache_kib = CACHE_KIB if cache_kib is None else cache_kib
        if max_attempts < 1 or busy_timeout_s < 0 or cache_kib < 1:
            raise ValueError(
                "max_attempts and cache_kib must be at least 1 and busy_timeout_s non-negative"
            )
        self.path = Path(path)
        self._cache_kib = cache_kib
        self._reported: set[int] = set()
        """The pids of the invalid rows already reported (by this store, in this file)."""
        ready_file(self.path, create)
        key = self._integrity_key
        db = StoreConnection(
            self.path,
            LINK_STORE,
            busy_timeout_s=busy_timeout_s,
            max_attempts=max_attempts,
            create=create,
            reopen=reopen,
            pragmas=(f"cache_size = -{cache_kib}", *LINK_PRAGMAS),
            prepared=None if key is None else lambda conn: check_key(conn, key, self.path),
            on_reopen=self._reopening,
        )
        self._file = LinkStoreFile(db, key)
        self._documents = LinkDocuments(self._file)
        self._names = LinkNames(self._file, self.get)
        self._file.read(lambda conn: None)  # open and check now, so a bad file fails here

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Hold one read transaction: the reads inside see one state of the store."""
        with worded(self.path), self._file.db.reading() as first:
            if not first:  # nested
                yield
                return
            with self._names.remembering():
                yield

    def close(self) -> None:
        self._file.db.close()  # later calls raise sqlite3.ProgrammingError

    def check(self) -> list[str]:
        """What is wrong with the whole store, read end to end ([] when sound):
        :func:`~cage_core.expansion.link_integrity.store_problems`."""
        return store_problems(self._file)

    # -- LinkStorage: reads -------------------------------------------------------------
    def __len__(self) -> int:
        return self._file.read(self._count)

    def get(self, ids: Sequence[str]) -> dict[str, LinkEntry]:
        wanted = [i for i in dict.fromkeys(ids) if valid_id(i)]  # no other id is ever stored
        if not wanted:
            return {}
        sql = f"SELECT {ENTRY_COLUMNS} FROM entries WHERE id IN"
        rows = self._file.read(lambda conn: self._file.select_in(conn, sql, wanted))
        return {entry.id: entry for entry in self._decoded(rows)}

    def counts(self, names: Collection[str]) -> dict[str, tuple[int, int]]:
        return self._names.counts(names)

    def holders(self, names: Collection[str], role: NameRole) -> dict[str, Collection[str]]:
        """:meth:`LinkNames.holders <cage_core.expansion.link_names.LinkNames.holders>`."""
        return self._names.holders(names, role)

    def iter_entries(self) -> Iterator[LinkEntry]:
        """Every valid entry, in the order put, read in pages (no long read transaction)."""
        for rows in self._file.pages(
            functools.partial(entry_rows, "WHERE pid > ? ORDER BY pid LIMIT ?")
        ):
            yield from self._decoded(rows)

    def document_entries(
        self, doc_id: str, positions: Collection[int] | None = None
    ) -> list[LinkEntry]:
        """The document's valid entries (at ``positions``, filtered in SQL: only those rows
        are decoded). A row holding a value past ``MAX_VALUE_BYTES`` is refused as a seed's
        own is, before anything after it in the row is read
        (:data:`~cage_core.expansion.link_rows.CHECKED_POSITION`), and reported as invalid."""
        if not valid_id(doc_id):
            return []  # no other document id is ever stored
        condition = ""
        wanted: tuple[int, ...] = ()
        if positions is not None:
            wanted = tuple(p for p in set(positions) if position_ok(p))
            if not wanted:
                return []
            condition = f"AND {CHECKED_POSITION} IN ({','.join('?' * len(wanted))})"
        rows, oversized = self._file.read(
            lambda conn: document_rows(conn, ENTRY_COLUMNS, doc_id, condition, wanted)
        )
        rows += [(pid, None, None, None, None) for pid in oversized]  # reported as invalid
        return sorted(self._decoded(rows), key=chunk_order)

    def document_chunk_ids(self, doc_id: str) -> list[str]:
        """The ids of the document's entries in :meth:`document_entries`' order; a row
        holding a value past ``MAX_VALUE_BYTES`` is left out (its position is never read)."""
        if not valid_id(doc_id):
            return []
        columns = f"id, {CHECKED_POSITION}"
        rows, oversized = self._file.read(
            lambda conn: document_rows(conn, columns=columns, doc_id=doc_id)
        )
        if oversized:
            self._file.warn_too_large()
        places = [
            (position is None, position or 0, pid)
            for pid, position in rows
            if valid_id(pid) and (position is None or position_ok(position))
        ]
        return [pid for _, _, pid in sorted(places)]

    # -- LinkStorage: document records --------------------------------------------------
    def documents(self) -> LinkDocuments:
        return self._documents

    def put_documents(self, records: Sequence[DocumentRecord]) -> None:
        """Upsert ``records`` (:class:`~cage_core.expansion.link_documents.LinkDocuments`)."""
        self._documents.put_documents(records)

    def document_records(self) -> Iterator[DocumentRecord]:
        return self._documents.document_records()

    # -- LinkStorage: writes ------------------------------------------------------------
    def put(self, entries: Sequence[LinkEntry]) -> None:
        """:meth:`LinkStorage.put <cage_core.expansion.storage.LinkStorage.put>`, in
        transactions of ``WRITE_BATCH_ENTRIES`` (module docstring)."""
        for entry in entries:
            check_storable(entry)
        latest: dict[str, LinkEntry] = {}
        for entry in entries:  # a repeated id: the last, at its last place (as put one by one)
            latest.pop(entry.id, None)
            latest[entry.id] = entry
        batch = list(latest.values())
        for start in range(0, len(batch), WRITE_BATCH_ENTRIES):
            chunk = batch[start : start + WRITE_BATCH_ENTRIES]
            ids = [entry.id for entry in chunk]
            self._file.write(functools.partial(self._replace, ids=ids, entries=chunk))

    def delete(self, ids: Sequence[str]) -> int:
        unique = list(dict.fromkeys(ids))
        removed = 0
        for start in range(0, len(unique), WRITE_BATCH_ENTRIES):
            chunk = unique[start : start + WRITE_BATCH_ENTRIES]
            removed += self._file.write(functools.partial(self._replace, ids=chunk, entries=[]))
        return removed

    def _replace(
        self, conn: sqlite3.Connection, ids: list[str], entries: Sequence[LinkEntry]
    ) -> int:
        """In the open write transaction: take back the entries of ``ids``, then add
        ``entries`` (:func:`~cage_core.expansion.link_writes.replace_entries`), and the
        records of the documents left without entries; returns how many old entries there
        were."""
        old = self._file.select_in(conn, f"SELECT {ENTRY_COLUMNS} FROM entries WHERE id IN", ids)
        removed = replace_entries(
            conn,
            old,
            entries,
            key=self._integrity_key,
            path=self.path,
            select_in=self._file.select_in,
        )
        left = {row[3] for row in old if valid_id(row[3])} - {e.doc_id for e in entries}
        self._documents.drop_emptied_documents(conn, left)  # a record goes with its last entry
        return removed

    # -- housekeeping -------------------------------------------------------------------
    def __getstate__(self) -> dict[str, object]:
        """Pickled by path and settings: the copy opens its own connection (never creates)."""
        db = self._file.db
        return {
            "path": self.path,
            "busy_timeout_s": db.busy_timeout_s,
            "max_attempts": db.max_attempts,
            "cache_kib": self._cache_kib,
            "integrity_key": self._integrity_key,
            "reopen": db.reopen,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    def __repr__(self) -> str:
        return f"SqliteLinkStorage({str(self.path)!r})"

    # -- rows ---------------------------------------------------------------------------
    def _count(self, conn: sqlite3.Connection) -> int:
        row = conn.execute("SELECT value FROM meta WHERE key = 'passages'").fetchone()
        if row is not None and count_ok(row[0]) and count_signed(conn, self._integrity_key, row[0]):
            return int(row[0])
        logger.warning("link store %s: the stored passage count is invalid; counting", self.path)
        return int(conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0])

    def _decoded(self, rows: Iterable[tuple]) -> list[LinkEntry]:
        """The valid entries of entry rows (:func:`~cage_core.expansion.link_rows.entry_from_row`);
        the invalid ones this store has not reported yet reported in one warning."""
        out: list[LinkEntry] = []
        reasons: dict[str, int] = {}
        for row in rows:
            try:
                out.append(entry_from_row(row, self._integrity_key))
            except LinkIndexFormatError as exc:
                if row[0] not in self._reported:
                    self._reported.add(row[0])
                    reasons[str(exc)] = reasons.get(str(exc), 0) + 1
        if reasons:
            summary = "; ".join(f"{n} × {reason}" for reason, n in sorted(reasons.items()))
            logger.warning(
                "link store %s: skipped %d invalid entries (%s)",
                self.path,
                sum(reasons.values()),
                summary,
            )
        return out

    def _reopening(self, changed: StoreFileChanged) -> None:
        """Before the file now at the path is opened: what was read of the old one goes."""
        logger.warning("%s; opening the file now at the path", changed)
        self._reported.clear()  # rows are reported by pid: the next file has its own
        self._documents.forget_file()
