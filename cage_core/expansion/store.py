"""The link index stored for random access: a SQLite file, opened without loading, read per query.

:meth:`LinkIndex.open("links.sqlite") <cage_core.expansion.index.LinkIndex.open>` gives a
:class:`~cage_core.expansion.index.LinkIndex` over this storage: the same entries, the same
:meth:`~cage_core.expansion.index.LinkIndex.expand` (one algorithm, reading through
:class:`~cage_core.expansion.index.LinkStorage`), but nothing is loaded: opening reads one row,
an expansion a handful of indexed lookups, and adding or removing entries costs in
proportion to them, not to the index. JSON Lines stays the export and import format::

    index = LinkIndex.open("graphs.links.sqlite", create=True)   # writers: ingest
    index.add_entries(entries)                                    # upserts, keyed by id
    import_jsonl("graphs.links.jsonl", "graphs.links.sqlite")    # an old index, once
    LinkIndex.open("graphs.links.sqlite").save("export.jsonl")   # and back

Layout (version ``STORE_VERSION``)::

    meta(key, value)                   format tag, version, passage count N
    entries(pid, id UNIQUE, data, doc_id, position)   data: {"subject", "keys", "mentions"}
    names(nid, name UNIQUE, keyed, mentioned)         df(name) = keyed + mentioned
    postings(nid, role, pid)           PRIMARY KEY (nid, role, pid), WITHOUT ROWID

``keyed``, ``mentioned`` and ``N`` are kept up to date in the transaction that changes
them, so ``df`` and ``spec`` are one lookup. An entry that is put again replaces the old
one (its postings and counts are taken back first): putting the same entries twice, as a
resumed or retried ingest does, leaves the store as once.

Sharing and safety, as the graph store (:mod:`cage_core.graphs.store`): WAL mode (readers
never wait for writers); every write is ``BEGIN IMMEDIATE`` transactions of at most
``WRITE_BATCH_ENTRIES`` entries, each stored whole or not at all, also when its process
is killed; a locked database is waited for (``busy_timeout_s``) and retried up to
``max_attempts`` times with jittered backoff. Unlike the graph store (a cache), a link
index cannot recompute a lost write: a write still locked after the last attempt raises
``sqlite3.OperationalError`` (the batches before it stay committed; putting the entries
again is safe). One expansion reads in one read transaction, so it sees one state of the
store. A writer does not checkpoint the WAL into the database file inside its commit
(SQLite's automatic checkpoint is off: it doubled the time of adding 1,000 entries to a
store of 1M); after each commit it wakes its own :class:`WalCheckpointer` thread, which
runs a passive checkpoint on a connection of its own while the writer goes on (SQLite's
recommended way, sqlite.org/wal.html); when the WAL has grown past
``WAL_CHECKPOINT_PAGES`` pages (it starts over only after a checkpoint that caught up,
which a writer that never pauses does not let the thread do), the writer checkpoints it
itself between two transactions, and the file is cut back to that size. A connection is
never used across ``fork()``; the file is created 0600 in a 0700 directory.

Every row is untrusted on read: an entry row goes through
:meth:`LinkEntry.from_stored <cage_core.expansion.index.LinkEntry.from_stored>` (the rules of the
JSON Lines loader), a count or posting of the wrong type is ignored, and each bad row is
skipped and reported once per process, in one warning per read. Entries are validated by
the same rules before they are written (:meth:`SqliteLinkStorage.put`), so a store never
holds an entry it cannot read back.

Every file is untrusted too (issue 40; :mod:`cage_core.sqlite_files`): a connection never
creates a file (only ``create=True`` in the constructor does, 0600; the checkpoint thread
never); a file that cannot be written is opened read-only (``mode=ro``, else
``immutable=1``); the schema must be exactly this store's (no view, no trigger), with
``trusted_schema`` off; a value longer than ``MAX_VALUE_BYTES`` is refused before it is read
(its row is skipped); the postings of a name are read up to its stored count plus one
(an expansion asks only for names of ``df <= max_link_df``), whatever the postings table
holds; every operation runs under a time limit. The store is the file at its path: each
transaction first checks that the file there is still the one the connection opened, and
a write checks again after its commit; a replaced or deleted file raises
:class:`~cage_core.sqlite_files.StoreFileChanged` (an ``sqlite3.OperationalError``) saying
what to do, then and at every later call: the stale connection is closed, never used again,
and the file now at the path is opened only by opening the store anew (while any process
still holds the old file, SQLite would read its ``-wal`` over the new file).

Keyed integrity (optional, for stores others can write; like the graph store's,
:mod:`cage_core.graphs.integrity`). With ``integrity_key``, every entry is written with

    mac = HMAC-SHA256(key, "cage-link-mac/1" ␀ canonical entry JSON)

(the entry's ``to_dict()`` with sorted keys) as one more field, ``"mac"``, of its ``data``
(readers without a key ignore it), and the passage count with a MAC of its own (meta row
``passages_mac``). A keyed reader rejects an entry without its valid MAC (one more invalid
row); reads a name's counts only when its postings agree with them (counted up to
``VERIFIED_POSTINGS``; a name whose counts disagree is skipped, with a warning); keeps a
posting only when the entry it points to holds the name in that role; and recounts the
passages when their MAC does not hold. So a flipped bit or an edit by whoever lacks the key
changes no expansion silently. What it cannot see is a whole entry removed with its postings
and counts made consistent: removing is within reach of anyone who can write the file. Errors name their cause
(permission, read-only, corrupt or truncated, empty, newer version).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import logging
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from cage_core.expansion.jsonl import FORMAT_TAG, bounded_lines, header_count, parse_line
from cage_core.expansion.record import MAX_POSITION, LinkEntry, LinkIndexFormatError, valid_id
from cage_core.expansion.storage import NameRole, chunk_order
from cage_core.graphs.integrity import key_bytes
from cage_core.sqlite_files import (
    BUSY_TIMEOUT_S,
    MAX_ATTEMPTS,
    FileIdentity,
    OperationBudget,
    StoreFileChanged,
    changed_file,
    create_private_file,
    describe,
    file_identity,
    is_busy,
    open_database,
    remove_stale_side_files,
    restrict_side_files,
    retry_while_busy,
    schema_problem,
    set_wal,
    side_file_identities,
    write_transaction,
)

__all__ = [
    "STORE_FORMAT",
    "STORE_VERSION",
    "WAL_CHECKPOINT_PAGES",
    "WRITE_BATCH_ENTRIES",
    "SqliteLinkStorage",
    "WalCheckpointer",
    "import_jsonl",
]

logger = logging.getLogger(__name__)

STORE_FORMAT = FORMAT_TAG + "-sqlite"
"""The ``format`` row of a link store's ``meta`` table."""
STORE_VERSION = 1
"""Bump when the tables or the meaning of their columns change."""
WRITE_BATCH_ENTRIES = 1000
"""Entries per write transaction: other writers wait at most about one batch."""
READ_BATCH_KEYS = 500
"""Values per ``… IN (…)`` (SQLite's bound-parameter limit is 999 on old builds)."""
CACHE_KIB = 32 * 1024
"""SQLite page cache per connection (KiB) unless one is given: bounds a querying process's
memory, and holds the pages a write batch changes."""
PAGE_SIZE = 1024
"""Bytes per database page of a new store. An upsert of a batch changes about a page per
posting (names are spread all over the postings), and each changed page is written whole
to the WAL and back: adding 1,000 entries to a store of 100k wrote 11 MB of WAL with 1 KiB
pages against 20 MB with SQLite's 4 KiB, for ~10% more CPU (the gap grows with the store,
whose B-trees spread over more pages)."""
WAL_CHECKPOINT_PAGES = 65_536
"""A writer checkpoints the WAL itself after a commit that leaves more pages in it than this
(64 MiB of 1 KiB pages): the bound on the WAL while the background thread falls behind."""
ROLES: dict[NameRole, int] = {"key": 0, "mention": 1}
"""How a posting's role is stored."""
MAX_VALUE_BYTES = 4 * 256_000 + 1024
"""Longest value a connection reads (SQLite's ``SQLITE_LIMIT_LENGTH``): a stored entry is a
line of at most ``MAX_LINE_CHARS`` characters, four bytes each at most."""

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value NOT NULL)",
    (
        "CREATE TABLE IF NOT EXISTS entries (pid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, "
        "data TEXT NOT NULL, doc_id TEXT, position INTEGER)"
    ),
    "CREATE INDEX IF NOT EXISTS entries_by_doc ON entries (doc_id) WHERE doc_id IS NOT NULL",
    (
        "CREATE TABLE IF NOT EXISTS names (nid INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, "
        "keyed INTEGER NOT NULL, mentioned INTEGER NOT NULL)"
    ),
    (
        "CREATE TABLE IF NOT EXISTS postings (nid INTEGER NOT NULL, role INTEGER NOT NULL, "
        "pid INTEGER NOT NULL, PRIMARY KEY (nid, role, pid)) WITHOUT ROWID"
    ),
)
_DATA_FIELDS = frozenset({"subject", "keys", "mentions"})
MAC_FIELD = "mac"
"""The field of an entry's ``data`` holding its MAC (keyed stores)."""
VERIFIED_POSTINGS = 4096
"""A keyed reader counts a name's postings up to this many to check its stored counts (a
count above it is checked to be above it: such a name makes no link unless ``max_link_df``
is raised past it)."""
_MAC_DOMAIN = b"cage-link-mac/1\x00"

_SIGNED_FIELDS = _DATA_FIELDS | {MAC_FIELD}
_T = TypeVar("_T")

_STORES: weakref.WeakSet[SqliteLinkStorage] = weakref.WeakSet()
"""Every open link store in this process, so a forked child can drop their connections."""
_INHERITED: list[sqlite3.Connection] = []
"""Connections a forked child inherited: kept alive, never used or closed."""


def _text(value: bytes) -> str:
    """Stored text as ``str``; invalid UTF-8 becomes lone surrogates, which validation rejects."""
    return value.decode("utf-8", "surrogateescape")


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

    Raises:
        FileNotFoundError: when ``path`` does not exist and not ``create``.
        LinkIndexFormatError: when the file is not a link store of this version.
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
    ) -> None:
        self._integrity_key = key_bytes(integrity_key)
        cache_kib = CACHE_KIB if cache_kib is None else cache_kib
        if max_attempts < 1 or busy_timeout_s < 0 or cache_kib < 1:
            raise ValueError("max_attempts and cache_kib must be at least 1 and busy_timeout_s "
                             "non-negative")  # fmt: skip
        self.path = Path(path)
        self._busy_timeout_s = busy_timeout_s
        self._max_attempts = max_attempts
        self._cache_kib = cache_kib
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._closed = False
        self._reported: set[int] = set()
        self._checkpointer: WalCheckpointer | None = None
        self._read_nids: dict[str, tuple[int, int, int]] | None = None
        """Inside :meth:`reading`: ``(nid, keyed, mentioned)`` of each name :meth:`counts` read."""
        self._warned: set[str] = set()
        self._opened: FileIdentity | None = None
        self._changed: StoreFileChanged | None = None
        self._sides: tuple[FileIdentity | None, ...] = ()
        """Set when the file at the path was replaced or deleted: raised by every call."""
        self._budget = OperationBudget()
        if create:
            if not create_private_file(self.path) and _is_empty(self.path):
                _report_empty(self.path)
        elif not self.path.is_file():
            raise FileNotFoundError(
                f"no link store at {self.path} (create one with "
                "LinkIndex.open(path, create=True) or cage enrich)"
            )
        self._create = create
        _STORES.add(self)
        self._attempt(lambda conn: None)  # open and check now, so a bad file fails here

    # -- LinkStorage: reads -------------------------------------------------------------
    def __len__(self) -> int:
        return self._attempt(self._count)

    def get(self, ids: Sequence[str]) -> dict[str, LinkEntry]:
        wanted = [i for i in dict.fromkeys(ids) if valid_id(i)]  # no other id is ever stored
        rows = self._select(
            "SELECT pid, id, data, doc_id, position FROM entries WHERE id IN", wanted
        )
        return {entry.id: entry for entry in self._decoded(rows)}

    def counts(self, names: Collection[str]) -> dict[str, tuple[int, int]]:
        return {
            name: (keyed, mentioned)
            for name, (_, keyed, mentioned) in self._name_rows(names).items()
        }

    def _name_rows(self, names: Collection[str]) -> dict[str, tuple[int, int, int]]:
        """``(nid, keyed, mentioned)`` of the valid rows of ``names`` (kept for holders()
        inside reading())."""
        wanted = {name for name in names if _is_text(name)}
        rows = self._select("SELECT name, keyed, mentioned, nid FROM names WHERE name IN",
                            list(wanted))  # fmt: skip
        out, bad = {}, 0
        for name, keyed, mentioned, nid in rows:
            if name in wanted and _count_ok(keyed) and _count_ok(mentioned) and _count_ok(nid):
                out[name] = (nid, keyed, mentioned)
            else:
                bad += 1
        if self._integrity_key is not None and out:
            agreeing = self._attempt(functools.partial(_agreeing_counts, out))
            if len(agreeing) < len(out):
                self._warn_once(
                    "disagreeing counts",
                    "link store %s: skipped %d names whose "
                    "stored counts disagree with their postings (altered, or written "
                    "without the integrity key)",
                    self.path,
                    len(out) - len(agreeing),
                )
            out = agreeing
        if self._read_nids is not None:  # inside reading(): holders() may use them
            self._read_nids.update(out)
        if bad:
            self._warn_once("counts", "link store %s: ignored %d name counts that are not ints "
                                      ">= 0", self.path, bad)  # fmt: skip
        return out

    def holders(self, names: Collection[str], role: NameRole) -> dict[str, Collection[str]]:
        """The passages holding each name in ``role``: at most its stored count plus one
        (module docstring), so a store whose postings outnumber its counts costs no more."""
        wanted = {name for name in names if _is_text(name)}
        known = dict(self._read_nids or {})  # names counts() read in this read transaction
        unknown = [n for n in wanted if n not in known]
        if unknown:
            known.update(self._name_rows(unknown))
        r = ROLES[role]
        bounds = [
            (name, nid, counts[r] + 1)
            for name, (nid, *counts) in known.items()
            if name in wanted and counts[r] > 0
        ]
        sql = (
            "SELECT e.id FROM (SELECT pid FROM postings WHERE nid = ? AND role = ? LIMIT ?) "
            "AS p JOIN entries AS e ON e.pid = p.pid"
        )
        rows = self._attempt(functools.partial(_postings, sql, r, bounds)) if bounds else []
        out: dict[str, set[str]] = {}
        bad = 0
        for name, passage_id in rows:
            if name in wanted and valid_id(passage_id):
                out.setdefault(name, set()).add(passage_id)
            else:
                bad += 1
        if self._integrity_key is not None and out:
            bad += self._drop_unheld(out, role)
        if bad:
            self._warn_once("postings", "link store %s: ignored %d postings with an invalid "
                                        "passage id", self.path, bad)  # fmt: skip
        return out  # type: ignore[return-value]

    def _drop_unheld(self, holders: dict[str, set[str]], role: NameRole) -> int:
        """Keyed: keep only the postings whose (MAC-checked) entry holds the name in
        ``role``; returns how many were dropped."""
        entries = self.get([i for ids in holders.values() for i in ids])
        dropped = 0
        for name, ids in holders.items():
            held = {
                i
                for i in ids
                if i in entries
                and name in (entries[i].keys if role == "key" else entries[i].mentions)
            }
            dropped += len(ids) - len(held)
            ids &= held
        for name in [name for name, ids in holders.items() if not ids]:
            del holders[name]
        return dropped

    def iter_entries(self) -> Iterator[LinkEntry]:
        """Every valid entry, in the order put, read in pages (no long read transaction)."""
        where = "WHERE pid > ? ORDER BY pid LIMIT ?"
        last = 0
        while True:
            page = (last, READ_BATCH_KEYS)
            rows: list[tuple] = self._attempt(functools.partial(self._entry_rows, where, page))
            if not rows:
                return
            last = rows[-1][0]
            yield from self._decoded(rows)

    def document_entries(
        self, doc_id: str, positions: Collection[int] | None = None
    ) -> list[LinkEntry]:
        if not valid_id(doc_id):
            return []  # no other document id is ever stored
        where = "WHERE doc_id = ?"
        wanted: list[int] = []
        if positions is not None:  # filtered in SQL: only these rows are decoded
            wanted = [p for p in set(positions) if _position_ok(p)]
            if not wanted:
                return []
            where += f" AND position IN ({','.join('?' * len(wanted))})"
        rows = self._attempt(functools.partial(self._entry_rows, where, (doc_id, *wanted)))
        return sorted(self._decoded(rows), key=chunk_order)

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Hold one read transaction: the reads inside see one state of the store."""
        with self._lock:
            conn = self._connection()
            if conn.in_transaction:  # nested
                yield
                return
            self._attempt(lambda c: c.execute("BEGIN"))
            self._read_nids = {}
            try:
                yield
            finally:
                self._read_nids = None
                if conn.in_transaction:
                    conn.execute("COMMIT")

    # -- LinkStorage: writes ------------------------------------------------------------
    def put(self, entries: Sequence[LinkEntry]) -> None:
        """Upsert ``entries`` in transactions of ``WRITE_BATCH_ENTRIES`` (module docstring).

        Raises:
            ValueError: when an entry is one a reader would reject (an empty, too long or
                not UTF-8 id, names not in ``link_name`` form, ...: the rules of
                :meth:`LinkEntry.from_stored`); checked for all before anything is written.
        """
        for entry in entries:
            _check_storable(entry)
        latest: dict[str, LinkEntry] = {}
        for entry in entries:  # a repeated id: the last, at its last place (as put one by one)
            latest.pop(entry.id, None)
            latest[entry.id] = entry
        batch = list(latest.values())
        for start in range(0, len(batch), WRITE_BATCH_ENTRIES):
            chunk = batch[start : start + WRITE_BATCH_ENTRIES]
            ids = [entry.id for entry in chunk]
            self._write(functools.partial(self._replace, ids=ids, entries=chunk))

    def delete(self, ids: Sequence[str]) -> int:
        unique = list(dict.fromkeys(ids))
        removed = 0
        for start in range(0, len(unique), WRITE_BATCH_ENTRIES):
            chunk = unique[start : start + WRITE_BATCH_ENTRIES]
            removed += self._write(functools.partial(self._replace, ids=chunk, entries=[]))
        return removed

    def _replace(self, conn: sqlite3.Connection, ids: list[str],
                 entries: Sequence[LinkEntry]) -> int:  # fmt: skip
        """In the open write transaction: take back the entries of ``ids`` (rows, postings,
        counts), then add ``entries``; returns how many old entries there were."""
        old = self._select_in(conn, "SELECT pid, id, data, doc_id, position FROM entries "
                                    "WHERE id IN", ids)  # fmt: skip
        delta: dict[str, list[int]] = {}
        gone: list[tuple[str, int, int]] = []
        for row in old:
            entry = self._decode(row, quiet=True, verify=False)  # its names, MAC or not
            if entry is None:  # its postings cannot be found; the join on pid hides them
                logger.warning("link store %s: replaced an invalid entry row (pid %s); its "
                               "names' counts may be off by one", self.path, row[0])  # fmt: skip
                continue
            for role, names in (("key", entry.keys), ("mention", entry.mentions)):
                r = ROLES[role]  # type: ignore[index]
                for name in names:
                    delta.setdefault(name, [0, 0])[r] -= 1
                    gone.append((name, r, row[0]))
        conn.executemany("DELETE FROM entries WHERE pid = ?", [(row[0],) for row in old])
        added: list[tuple[str, int, int]] = []
        for entry in entries:
            cursor = conn.execute(
                "INSERT INTO entries (id, data, doc_id, position) VALUES (?, ?, ?, ?)",
                (entry.id, _entry_data(entry, self._integrity_key), entry.doc_id, entry.position),
            )
            pid = cursor.lastrowid
            for role, names in (("key", entry.keys), ("mention", entry.mentions)):
                r = ROLES[role]  # type: ignore[index]
                for name in names:
                    delta.setdefault(name, [0, 0])[r] += 1
                    added.append((name, r, pid))  # type: ignore[arg-type]
        nids = dict(self._select_in(conn, "SELECT name, nid FROM names WHERE name IN",
                                    list(delta)))  # fmt: skip
        for name in delta:
            if name not in nids:
                cursor = conn.execute("INSERT INTO names (name, keyed, mentioned) "
                                      "VALUES (?, 0, 0)", (name,))  # fmt: skip
                nids[name] = cursor.lastrowid
        # In key order: each B-tree page is visited once per statement.
        conn.executemany("DELETE FROM postings WHERE nid = ? AND role = ? AND pid = ?",
                         sorted((nids[n], r, p) for n, r, p in gone))  # fmt: skip
        conn.executemany("INSERT OR IGNORE INTO postings (nid, role, pid) VALUES (?, ?, ?)",
                         sorted((nids[n], r, p) for n, r, p in added))  # fmt: skip
        changed = sorted(((k, m, nids[n]) for n, (k, m) in delta.items() if k or m),
                         key=lambda row: row[2])  # fmt: skip
        conn.executemany("UPDATE names SET keyed = keyed + ?, mentioned = mentioned + ? "
                         "WHERE nid = ?", changed)  # fmt: skip
        conn.executemany("DELETE FROM names WHERE nid = ? AND keyed <= 0 AND mentioned <= 0",
                         [(nid,) for k, m, nid in changed if k < 0 or m < 0])  # fmt: skip
        change = len(entries) - len(old)
        if change:
            conn.execute("UPDATE meta SET value = value + ? WHERE key = 'passages'", (change,))
        if self._integrity_key is not None:
            (passages,) = conn.execute("SELECT value FROM meta WHERE key = 'passages'").fetchone()
            conn.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('passages_mac', ?)",
                (_mac(self._integrity_key, f"passages:{passages}"),),
            )
        return len(old)

    # -- housekeeping -------------------------------------------------------------------
    def check(self) -> list[str]:
        """What is wrong with the whole store, read end to end ([] when sound): SQLite's
        ``PRAGMA integrity_check`` (damaged pages and indexes: a flipped bit in an index
        makes a lookup miss, which no row check can see) and, with an integrity key, the
        entries without a valid MAC. Reads every page: for a backup or a schedule, not a
        query path."""
        problems = [
            str(row[0])
            for row in self._attempt(lambda conn: conn.execute("PRAGMA integrity_check").fetchall())
            if row[0] != "ok"
        ]
        if self._integrity_key is not None:
            where = "WHERE pid > ? ORDER BY pid LIMIT ?"
            last, unsigned = 0, 0
            while rows := self._attempt(
                functools.partial(self._entry_rows, where, (last, READ_BATCH_KEYS))
            ):
                last = rows[-1][0]
                unsigned += sum(self._decode(row, quiet=True) is None for row in rows)
            if unsigned:
                problems.append(f"{unsigned} entries without a valid MAC under the integrity key")
        return problems

    def close(self) -> None:
        """Close this process's connection; later calls raise ``sqlite3.ProgrammingError``."""
        with self._lock:
            self._closed = True
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            checkpointer, self._checkpointer = self._checkpointer, None
        if checkpointer is not None:
            checkpointer.stop()

    def __getstate__(self) -> dict[str, object]:
        """Pickled by path and settings: the copy opens its own connection (never creates)."""
        return {
            "path": self.path,
            "busy_timeout_s": self._busy_timeout_s,
            "max_attempts": self._max_attempts,
            "cache_kib": self._cache_kib,
            "integrity_key": self._integrity_key,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(  # type: ignore[misc]
            state["path"],
            busy_timeout_s=state["busy_timeout_s"],
            max_attempts=state["max_attempts"],
            cache_kib=state["cache_kib"],
            integrity_key=state.get("integrity_key"),
        )

    def __repr__(self) -> str:
        return f"SqliteLinkStorage({str(self.path)!r})"

    # -- rows ---------------------------------------------------------------------------
    def _warn_once(self, kind: str, message: str, *args: object) -> None:
        """A warning the first time this process meets ``kind`` of bad row; debug after."""
        level = logging.DEBUG if kind in self._warned else logging.WARNING
        self._warned.add(kind)
        logger.log(level, message, *args)

    def _count(self, conn: sqlite3.Connection) -> int:
        row = conn.execute("SELECT value FROM meta WHERE key = 'passages'").fetchone()
        if row is not None and _count_ok(row[0]) and self._count_signed(conn, row[0]):
            return int(row[0])
        logger.warning("link store %s: the stored passage count is invalid; counting",
                       self.path)  # fmt: skip
        return int(conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0])

    def _count_signed(self, conn: sqlite3.Connection, passages: int) -> bool:
        """Without a key: ``True``; with one: whether the count carries its valid MAC."""
        if self._integrity_key is None:
            return True
        row = conn.execute("SELECT value FROM meta WHERE key = 'passages_mac'").fetchone()
        expected = _mac(self._integrity_key, f"passages:{passages}")
        return row is not None and isinstance(row[0], str) and hmac.compare_digest(row[0], expected)

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
            logger.warning("link store %s: skipped %d invalid entries (%s)", self.path,
                           sum(reasons.values()), summary)  # fmt: skip
        return out

    def _decode(
        self,
        row: tuple,
        *,
        quiet: bool = False,
        reasons: dict[str, int] | None = None,
        verify: bool = True,
    ) -> LinkEntry | None:
        """The entry of a row ``(pid, id, data, doc_id, position)``, validated as the JSON
        Lines loader validates a line; ``None`` (counted in ``reasons`` the first time this
        process sees the row) when invalid."""
        pid, passage_id, data, doc_id, position = row
        try:
            if data is None and passage_id is None:
                raise LinkIndexFormatError(f"a value is larger than {MAX_VALUE_BYTES} bytes")
            if not isinstance(data, str):
                raise LinkIndexFormatError("data is not text")
            stored = parse_line(data)
            if not isinstance(stored, dict) or not _DATA_FIELDS <= set(stored) <= _SIGNED_FIELDS:
                raise LinkIndexFormatError(
                    "data has exactly the fields subject, keys, mentions (and mac)"
                )
            mac = stored.pop(MAC_FIELD, None)
            stored["id"] = passage_id
            if doc_id is not None:
                stored["doc_id"] = doc_id
            if position is not None:
                stored["position"] = position
            entry = LinkEntry.from_stored(stored)
            if (
                verify
                and self._integrity_key is not None
                and not (
                    isinstance(mac, str)
                    and hmac.compare_digest(mac, _entry_mac(entry, self._integrity_key))
                )
            ):
                raise LinkIndexFormatError("no valid MAC under the integrity key")
            return entry
        except LinkIndexFormatError as exc:
            if not quiet and reasons is not None and pid not in self._reported:
                self._reported.add(pid)
                reasons[str(exc)] = reasons.get(str(exc), 0) + 1
            return None

    def _select(self, sql: str, values: list[Any], before: tuple = ()) -> list[tuple]:
        if not values:
            return []
        return self._attempt(lambda conn: self._select_in(conn, sql, values, before))

    def _select_in(self, conn: sqlite3.Connection, sql: str, values: list[Any],
                   before: tuple = ()) -> list[tuple]:  # fmt: skip
        """Rows of ``sql`` (ending in ``IN``) for ``values``, ``READ_BATCH_KEYS`` at a time; a
        batch holding a value past ``MAX_VALUE_BYTES`` is read value by value, and the rows of
        such values are left out (SQLite refuses them before reading them)."""
        rows: list[tuple] = []
        for start in range(0, len(values), READ_BATCH_KEYS):
            chunk = values[start : start + READ_BATCH_KEYS]
            try:
                rows += conn.execute(
                    f"{sql} ({','.join('?' * len(chunk))})", (*before, *chunk)
                ).fetchall()
            except sqlite3.DataError:
                for value in chunk:
                    try:
                        rows += conn.execute(f"{sql} (?)", (*before, value)).fetchall()
                    except sqlite3.DataError:
                        self._warn_once(
                            "too large",
                            "link store %s: skipped rows holding a value larger than %d bytes",
                            self.path,
                            MAX_VALUE_BYTES,
                        )
        return rows

    def _entry_rows(self, where: str, parameters: tuple, conn: sqlite3.Connection) -> list[tuple]:
        """Entry rows ``WHERE …``; when one holds a value past ``MAX_VALUE_BYTES``, the others
        (read by ``pid``, which SQLite reads without the values)."""
        columns = "pid, id, data, doc_id, position"
        try:
            return conn.execute(f"SELECT {columns} FROM entries {where}", parameters).fetchall()
        except sqlite3.DataError:
            pass
        rows: list[tuple] = []
        for (pid,) in conn.execute(f"SELECT pid FROM entries {where}", parameters).fetchall():
            try:
                rows += conn.execute(
                    f"SELECT {columns} FROM entries WHERE pid = ?", (pid,)
                ).fetchall()
            except sqlite3.DataError:
                rows.append((pid, None, None, None, None))  # reported as an invalid row
        return rows

    # -- SQLite access: locking, retries, fork safety -----------------------------------
    def _write(self, op: Callable[[sqlite3.Connection], _T]) -> _T:
        """``op`` inside one ``BEGIN IMMEDIATE`` transaction, retried while locked."""

        def transaction(conn: sqlite3.Connection) -> _T:
            if conn.in_transaction:
                raise RuntimeError("a link store cannot be written inside reading()")
            with write_transaction(conn):
                return op(conn)

        result = self._attempt(transaction)
        self._check_written()
        self._after_commit()
        return result

    def _check_written(self) -> None:
        """After a commit: the file at the path must still be the one written to.

        Raises:
            StoreFileChanged: when it was replaced or deleted meanwhile (the batch may have
                gone to the old file; putting it again is safe).
        """
        with self._lock:
            if self._opened is None:
                return
            changed = changed_file("link store", self.path, self._opened)
            if changed is None:
                return
            self._drop_connection(changed)
        raise StoreFileChanged(
            f"{changed}; the last write may have gone to the old file: put "
            "those entries again in the store now at the path"
        )

    def _after_commit(self) -> None:
        """Wake the checkpointer; checkpoint here when the WAL has outgrown its bound."""
        with self._lock:
            if self._checkpointer is None:
                self._checkpointer = WalCheckpointer(
                    self.path, self._busy_timeout_s, opened=self._opened
                )
                # a store dropped unclosed ends its thread too
                weakref.finalize(self, self._checkpointer.stop, wait=False)
            checkpointer = self._checkpointer
        if not checkpointer.request():
            return
        try:  # the WAL outgrew its bound (or the thread is gone): the writer catches up
            row = self._attempt(lambda conn: conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
                                .fetchone())  # fmt: skip
            if not row[0] and row[1] == row[2]:  # all copied: the next write starts it over
                checkpointer.caught_up()
        except sqlite3.OperationalError as exc:
            logger.debug("link store %s: checkpoint skipped (%s)", self.path, exc)

    def _attempt(self, op: Callable[[sqlite3.Connection], _T]) -> _T:
        """``op(connection)`` under the store lock, retried while the database is locked;
        the last ``sqlite3.OperationalError`` is raised when every attempt found it locked,
        any other SQLite error at once, of the same class, its message naming the cause
        (:func:`~cage_core.sqlite_files.describe`)."""

        def run() -> _T:
            with self._lock:
                conn = self._connection()
                self._budget.start()
                return op(conn)

        try:
            return retry_while_busy(run, self._max_attempts)
        except (sqlite3.ProgrammingError, StoreFileChanged):
            raise
        except sqlite3.DatabaseError as exc:
            if getattr(exc, "sqlite_errorcode", None) is None or is_busy(exc):
                raise  # ours, already worded, or a lock (callers handle it)
            raise type(exc)(f"link store {self.path}: {describe(exc)}") from exc

    def _connection(self) -> sqlite3.Connection:
        """This process's connection (opened and checked on first use); hold ``_lock``.

        Raises:
            StoreFileChanged: at the start of a transaction, when the file at the path is not
                the one the connection opened (module docstring), and at every call after.
        """
        if self._closed:
            raise sqlite3.ProgrammingError(f"link store {self.path} is closed")
        if self._changed is not None:
            raise self._changed
        if self._conn is not None and self._opened is not None and not self._conn.in_transaction:
            changed = changed_file("link store", self.path, self._opened)
            if changed is not None:
                self._drop_connection(changed)
                raise changed
        if self._conn is None:
            self._conn, self._opened = self._connect()
        return self._conn

    def _drop_connection(self, changed: StoreFileChanged) -> None:
        """Close the connection to a file no longer at the path, for good: every later call
        raises ``changed`` (hold ``_lock``). Opening the file now at the path is left to the
        caller: while a process still has the old file open, its ``-wal`` beside the new
        file would mix the two (docs/reliability.md)."""
        self._changed = changed
        remove_stale_side_files("link store", self.path, self._sides)
        conn, self._conn, self._opened = self._conn, None, None
        checkpointer, self._checkpointer = self._checkpointer, None
        if checkpointer is not None:  # its connection closed too: the last close of the old
            checkpointer.stop()  # file cleans its -wal away from the path
        if conn is not None:
            try:
                conn.close()
            except sqlite3.Error as exc:
                logger.debug(
                    "link store %s: closing a stale connection failed (%s)", self.path, exc
                )

    def _connect(self) -> tuple[sqlite3.Connection, FileIdentity | None]:
        """A checked connection to the file at the path, and that file's identity."""
        opened = file_identity(self.path)
        if opened is None:
            raise FileNotFoundError(
                f"no link store at {self.path} (it was there when opened; deleted since?)"
            )
        if _is_empty(self.path) and not self._create:
            raise LinkIndexFormatError(
                f"{self.path}: the file is empty (0 bytes), not a link store "
                "yet: a writer creates one with LinkIndex.open(path, "
                "create=True) or cage enrich"
            )
        try:
            conn, mode = open_database(
                "link store",
                self.path,
                timeout=self._busy_timeout_s,
                max_value_bytes=MAX_VALUE_BYTES,
            )
        except sqlite3.Error as exc:
            raise _open_error(self.path, exc) from None
        conn.text_factory = _text
        try:
            conn.execute(f"PRAGMA cache_size = -{self._cache_kib}")
            tables = {
                row[0]
                for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
            if not tables and self._create:
                conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")  # only an empty file takes it
                set_wal(conn, "link store", self.path)
                with write_transaction(conn):
                    for statement in _SCHEMA:
                        conn.execute(statement)
                    conn.executemany(
                        "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)",
                        [("format", STORE_FORMAT), ("version", STORE_VERSION), ("passages", 0)],
                    )
            _check_meta(conn, self.path)
            problem = schema_problem(conn, _SCHEMA)
            if problem is not None:
                raise LinkIndexFormatError(f"{self.path}: not a cage link store ({problem})")
            if mode == "rw":
                set_wal(conn, "link store", self.path)
            conn.execute("PRAGMA synchronous=NORMAL")  # crash-safe in WAL mode
            conn.execute("PRAGMA wal_autocheckpoint=0")  # WalCheckpointer's work
            conn.execute(f"PRAGMA journal_size_limit={WAL_CHECKPOINT_PAGES * PAGE_SIZE}")
            self._budget.install(conn)
        except sqlite3.Error as exc:
            conn.close()
            if isinstance(exc, sqlite3.OperationalError) and is_busy(exc):
                raise
            raise _open_error(self.path, exc) from None
        except BaseException:
            conn.close()
            raise
        if mode == "rw":
            restrict_side_files(self.path)
        if file_identity(self.path) != opened:  # replaced while opening: open the new one
            conn.close()
            return self._connect()
        self._sides = side_file_identities(self.path)
        return conn, opened

    def _forget_connection_after_fork(self) -> None:
        """In a forked child: a fresh lock, and the parent's connection left untouched."""
        self._lock = threading.RLock()
        if self._conn is not None:
            _INHERITED.append(self._conn)
            self._conn = None
        if self._checkpointer is not None:  # its thread did not survive the fork
            self._checkpointer.forget_after_fork()
            self._checkpointer = None


class WalCheckpointer:
    """A daemon thread that checkpoints a WAL-mode SQLite file when asked, on its own
    connection (``PRAGMA wal_checkpoint(PASSIVE)``: it never waits for readers or writers,
    and copies what the readers allow). :meth:`request` after each commit; :meth:`stop`
    runs a last checkpoint and ends the thread. A checkpoint is crash-safe whenever it is
    killed; a failed one is logged at debug level and left to the next request. It never
    creates a file (``mode=rw``), and checkpoints only the file ``opened`` (its writer's):
    when another file, or none, is at the path, it does nothing."""

    def __init__(
        self, path: Path, busy_timeout_s: float, *, opened: FileIdentity | None = None
    ) -> None:
        self.path = path
        self._opened = opened
        self._busy_timeout_s = busy_timeout_s
        self._wake = threading.Event()
        self._stopping = False
        self._wal_pages = 0
        self._conn: sqlite3.Connection | None = None
        self._thread = threading.Thread(target=self._run, name=f"cage-wal-{path.name}",
                                        daemon=True)  # fmt: skip
        self._thread.start()

    def request(self) -> bool:
        """Ask for a checkpoint; ``True`` when the WAL held more than ``WAL_CHECKPOINT_PAGES``
        pages at the last one or the thread is gone: the caller should checkpoint now, between
        its transactions, so that its next one starts the WAL over (a writer that never
        pauses never lets the thread catch up)."""
        self._wake.set()
        return self._wal_pages > WAL_CHECKPOINT_PAGES or not self._thread.is_alive()

    def caught_up(self) -> None:
        """Someone else checkpointed the whole WAL."""
        self._wal_pages = 0

    def stop(self, *, wait: bool = True) -> None:
        """A last checkpoint, then the thread ends (``wait``: for at most ``busy_timeout_s``)."""
        self._stopping = True
        self._wake.set()
        if wait and self._thread is not threading.current_thread():
            self._thread.join(self._busy_timeout_s + 1.0)

    def forget_after_fork(self) -> None:
        """In a forked child: the parent's thread is not here; its connection is never used."""
        if self._conn is not None:
            _INHERITED.append(self._conn)
            self._conn = None

    def _run(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            self._checkpoint()
            if self._stopping:
                if self._conn is not None:
                    self._conn.close()
                    self._conn = None
                return

    def _checkpoint(self) -> None:
        try:
            now = file_identity(self.path)
            if now is None or (self._opened is not None and now != self._opened):
                if self._conn is not None:  # the file it checkpointed is gone from the path
                    self._conn.close()
                    self._conn = None
                return
            if self._conn is None:
                uri = f"{self.path.absolute().as_uri()}?mode=rw"  # never creates the file
                self._conn = sqlite3.connect(
                    uri,
                    uri=True,
                    timeout=self._busy_timeout_s,
                    isolation_level=None,
                    check_same_thread=False,
                )
                if self._opened is None:
                    self._opened = now
            _, wal, _ = self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            self._wal_pages = wal  # the WAL restarts only after a checkpoint that caught up
        except sqlite3.Error as exc:
            logger.debug("link store %s: background checkpoint failed (%s)", self.path, exc)


def _fetch_all(sql: str, parameters: tuple, conn: sqlite3.Connection) -> list[tuple]:
    return conn.execute(sql, parameters).fetchall()


def _check_meta(conn: sqlite3.Connection, path: Path) -> None:
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('format', 'version')"))
    except sqlite3.OperationalError as exc:
        if is_busy(exc):
            raise
        raise LinkIndexFormatError(f"{path}: not a cage link store (no meta table)") from None
    if meta.get("format") != STORE_FORMAT:
        raise LinkIndexFormatError(f"{path}: not a cage link store (missing format tag)")
    version = meta.get("version")
    if version != STORE_VERSION:
        if type(version) is int and version > STORE_VERSION:
            raise LinkIndexFormatError(
                f"{path}: link store version {version} was written by a "
                f"newer cage-rag (this one reads version {STORE_VERSION}): "
                "upgrade cage-rag, or rebuild it with this cage-rag"
            )
        raise LinkIndexFormatError(
            f"{path}: link store version {version!r} is not "
            f"{STORE_VERSION}; rebuild it with this cage-rag"
        )


def _open_error(path: Path, exc: sqlite3.Error) -> Exception:
    """The error to raise for ``exc`` met opening the store at ``path``: a format error when
    the file is not a sound store, else an ``sqlite3.OperationalError`` naming the cause."""
    if isinstance(exc, LinkIndexFormatError):
        return exc
    code = getattr(exc, "sqlite_errorcode", None)
    primary = None if code is None else code & 0xFF
    if primary == sqlite3.SQLITE_NOTADB:
        return LinkIndexFormatError(f"{path}: not a cage link store ({describe(exc)})")
    if primary in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_TOOBIG) or isinstance(
        exc, sqlite3.DataError
    ):
        return LinkIndexFormatError(f"{path}: the link store is {describe(exc)}")
    return sqlite3.OperationalError(f"link store {path}: {describe(exc)}")


def _check_storable(entry: LinkEntry) -> None:
    """Refuse an entry a reader would reject (:meth:`LinkEntry.from_stored`'s rules)."""
    try:
        LinkEntry.from_stored(entry.to_dict())
    except LinkIndexFormatError as exc:
        raise ValueError(
            f"link entry {entry.id!r:.60} would not be readable back: {exc}; nothing was written"
        ) from None


EMPTY_FILE_RACE_S = 10.0
"""An empty store file younger than this is taken for one another writer is creating now."""


def _report_empty(path: Path) -> None:
    """Say that an existing empty file is made a new store: a warning when the file is not
    one another writer has just created (an emptied or truncated-to-zero store loses nothing
    more, but should not pass unnoticed)."""
    try:
        age = time.time() - path.stat().st_mtime
    except OSError:
        return
    level = logging.INFO if age < EMPTY_FILE_RACE_S else logging.WARNING
    logger.log(
        level,
        "link store %s: the file is empty (0 bytes); initialising a new link store in it",
        path,
    )


def _is_empty(path: Path) -> bool:
    try:
        return path.stat().st_size == 0
    except OSError:
        return False


def _is_text(value: object) -> bool:
    """A string SQLite can bind (valid UTF-8: no lone surrogates)."""
    if not isinstance(value, str):
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _postings(
    sql: str, role: int, bounds: list[tuple[str, int, int]], conn: sqlite3.Connection
) -> list[tuple[str, str]]:
    """``(name, passage id)`` of the postings of each ``(name, nid, most)`` in ``role``, at
    most ``most`` each."""
    rows: list[tuple[str, str]] = []
    for name, nid, most in bounds:
        rows += [(name, passage_id) for (passage_id,) in conn.execute(sql, (nid, role, most))]
    return rows


def _position_ok(value: object) -> bool:
    """A position SQLite can compare (an int in the stored range; never a bool)."""
    return type(value) is int and 0 <= value <= MAX_POSITION


def _count_ok(value: object) -> bool:
    return type(value) is int and value >= 0


def _entry_data(entry: LinkEntry, key: bytes | None = None) -> str:
    data = {"subject": entry.subject, "keys": list(entry.keys), "mentions": list(entry.mentions)}
    if key is not None:
        data[MAC_FIELD] = _entry_mac(entry, key)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _mac(key: bytes, text: str) -> str:
    return hmac.new(key, _MAC_DOMAIN + text.encode("utf-8"), hashlib.sha256).hexdigest()


def _entry_mac(entry: LinkEntry, key: bytes) -> str:
    """The MAC of an entry (module docstring): over its canonical JSON, every field."""
    return _mac(
        key, json.dumps(entry.to_dict(), ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    )


def _agreeing_counts(
    rows: dict[str, tuple[int, int, int]], conn: sqlite3.Connection
) -> dict[str, tuple[int, int, int]]:
    """The names of ``rows`` (``(nid, keyed, mentioned)``) whose postings agree with their
    counts, up to ``VERIFIED_POSTINGS`` each."""
    sql = "SELECT count(*) FROM (SELECT 1 FROM postings WHERE nid = ? AND role = ? LIMIT ?)"
    out = {}
    for name, row in rows.items():
        nid, counts = row[0], row[1:]
        found = [
            conn.execute(sql, (nid, role, VERIFIED_POSTINGS + 1)).fetchone()[0]
            for role in ROLES.values()
        ]
        if all(min(count, VERIFIED_POSTINGS + 1) == n for count, n in zip(counts, found)):
            out[name] = row
    return out


def import_jsonl(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> int:
    """Copy the JSON Lines link index at ``source`` into the SQLite store at ``target``
    (created if absent; an entry replaces the one with its id), streaming: the file is
    validated line by line as :meth:`LinkIndex.load <cage_core.expansion.index.LinkIndex.load>`
    does (a bad header raises; bad lines and repeated ids — the first one stays — are
    skipped, in one warning), never held whole. Returns the entries imported.

    Raises:
        LinkIndexFormatError: when the file's header is missing, malformed or of another
            version, or the target is not a link store.
    """
    storage = SqliteLinkStorage(target, create=True)
    seen: set[str] = set()
    skipped: dict[str, int] = {}
    pending: list[LinkEntry] = []
    imported = 0
    try:
        with open(source, "rb") as handle:
            lines = bounded_lines(handle)
            first = next(lines, b"")
            if first == b"":  # None: a first line past the length bound, which header_count names
                raise LinkIndexFormatError(f"{source}: empty; not a cage link index")
            header_count(first, str(source))
            for line in lines:
                try:
                    entry = LinkEntry.from_stored(parse_line(line))
                    if entry.id in seen:
                        raise LinkIndexFormatError("repeated id")
                except LinkIndexFormatError as exc:
                    skipped[str(exc)] = skipped.get(str(exc), 0) + 1
                    continue
                seen.add(entry.id)
                pending.append(entry)
                if len(pending) == WRITE_BATCH_ENTRIES:
                    storage.put(pending)
                    imported, pending = imported + len(pending), []
            storage.put(pending)
            imported += len(pending)
    finally:
        storage.close()
    if skipped:
        summary = "; ".join(f"{n} × {reason}" for reason, n in sorted(skipped.items()))
        logger.warning("%s: skipped %d invalid entries (%s)", source, sum(skipped.values()),
                       summary)  # fmt: skip
    logger.info("imported %d link entries from %s into %s", imported, source, target)
    return imported


def _after_fork_in_child() -> None:
    for store in list(_STORES):
        store._forget_connection_after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
