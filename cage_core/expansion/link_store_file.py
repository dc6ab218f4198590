"""The link store's file (:mod:`cage_core.expansion.store`): its tables, and how it is opened
and checked.

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
and the file now at the path is opened only by opening the store anew (or, for a store opened
with ``reopen=True``, at the next call: :mod:`cage_core.expansion.link_store_connection`). A ``-wal`` beside the
file that holds another file's commits (left by a process that still has a replaced file
open) is refused at open and at every transaction, never read, nor checkpointed into the
file (:mod:`cage_core.sqlite_stamp`: every write commits the file's stamp).
"""

from __future__ import annotations

import logging
import sqlite3
import time
from pathlib import Path

from cage_core.expansion.jsonl import FORMAT_TAG
from cage_core.expansion.record import LinkIndexFormatError
from cage_core.expansion.wal_checkpointer import WAL_CHECKPOINT_PAGES
from cage_core.sqlite_files import (
    FileIdentity,
    OperationBudget,
    StoreFileChanged,
    describe,
    file_identity,
    is_busy,
    open_database,
    restrict_side_files,
    schema_problem,
    set_wal,
    side_file_identities,
    write_transaction,
)
from cage_core.sqlite_stamp import (
    checkpoint_new_store,
    close_connection,
    close_held_connection,
    foreign_wal,
    hold_file,
    open_guard,
    release_file,
    stamp_new_store,
)

__all__ = [
    "DOCUMENT_SCHEMA",
    "EMPTY_FILE_RACE_S",
    "MAX_VALUE_BYTES",
    "PAGE_SIZE",
    "SCHEMA",
    "STORE_FORMAT",
    "STORE_VERSION",
    "check_meta",
    "is_empty",
    "open_error",
    "open_link_database",
    "report_empty",
    "stored_text",
]

logger = logging.getLogger("cage_core.expansion.store")
"""The link store's log: its messages keep one logger name wherever their code lives."""

STORE_FORMAT = FORMAT_TAG + "-sqlite"
"""The ``format`` row of a link store's ``meta`` table."""
STORE_VERSION = 1
"""Bump when the tables or the meaning of their columns change."""
PAGE_SIZE = 1024
"""Bytes per database page of a new store. An upsert of a batch changes about a page per
posting (names are spread all over the postings), and each changed page is written whole
to the WAL and back: adding 1,000 entries to a store of 100k wrote 11 MB of WAL with 1 KiB
pages against 20 MB with SQLite's 4 KiB, for ~10% more CPU (the gap grows with the store,
whose B-trees spread over more pages)."""
MAX_VALUE_BYTES = 4 * 256_000 + 1024
"""Longest value a connection reads (SQLite's ``SQLITE_LIMIT_LENGTH``): a stored entry is a
line of at most ``MAX_LINE_CHARS`` characters, four bytes each at most."""
SCHEMA = (
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
"""The store's tables and index: the statements that create them (and the exact schema)."""
DOCUMENT_SCHEMA = (
    (
        "CREATE TABLE IF NOT EXISTS documents (doc_id TEXT PRIMARY KEY, name TEXT NOT NULL, "
        "words TEXT NOT NULL, mac TEXT)"
    ),
    (
        "CREATE TABLE IF NOT EXISTS document_words (word TEXT NOT NULL, doc_id TEXT NOT NULL, "
        "PRIMARY KEY (word, doc_id)) WITHOUT ROWID"
    ),
    (
        "CREATE TABLE IF NOT EXISTS document_counts (word TEXT PRIMARY KEY, "
        "documents INTEGER NOT NULL) WITHOUT ROWID"
    ),
)
"""The document records' tables (:mod:`cage_core.expansion.link_documents`), added by the
first writer of records in its transaction: a store written before them has none."""
EMPTY_FILE_RACE_S = 10.0
"""An empty store file younger than this is taken for one another writer is creating now."""


def stored_text(value: bytes) -> str:
    """Stored text as ``str``; invalid UTF-8 becomes lone surrogates, which validation rejects."""
    return value.decode("utf-8", "surrogateescape")


def open_link_database(
    path: Path, *, busy_timeout_s: float, cache_kib: int, create: bool, budget: OperationBudget
) -> tuple[sqlite3.Connection, FileIdentity | None, tuple[FileIdentity | None, ...]]:
    """A checked connection to the link store file at ``path`` (module docstring), that file's
    identity and its side files' identities; with ``create``, an empty file is made a store.

    Raises:
        FileNotFoundError: when no file is at ``path``.
        LinkIndexFormatError: when the file is not a link store of this version.
        sqlite3.OperationalError: naming the cause of any other failure to open it.
    """
    opened = file_identity(path)
    if opened is None:
        raise FileNotFoundError(
            f"no link store at {path} (it was there when opened; deleted since?)"
        )
    if is_empty(path) and not create:
        raise LinkIndexFormatError(
            f"{path}: the file is empty (0 bytes), not a link store "
            "yet: a writer creates one with LinkIndex.open(path, "
            "create=True) or cage enrich"
        )
    hold_file(path, opened)  # released by whoever closes the connection, or here
    try:
        conn, mode = _open_guarded(path, opened, busy_timeout_s, cache_kib, create, budget)
    except BaseException:
        release_file(opened)
        raise
    if mode == "rw":
        restrict_side_files(path)
    if file_identity(path) != opened:  # replaced while opening: open the new one
        close_held_connection("link store", path, conn, opened)
        return open_link_database(
            path, busy_timeout_s=busy_timeout_s, cache_kib=cache_kib, create=create, budget=budget
        )
    return conn, opened, side_file_identities(path)


def _open_guarded(
    path: Path,
    opened: FileIdentity,
    busy_timeout_s: float,
    cache_kib: int,
    create: bool,
    budget: OperationBudget,
) -> tuple[sqlite3.Connection, str]:
    """:func:`_open_checked` while a read-only connection that found the WAL to be the
    file's own holds the file (:func:`~cage_core.sqlite_stamp.open_guard`)."""
    try:
        guard = open_guard("link store", path, opened, busy_timeout_s)
    except sqlite3.Error as exc:
        if isinstance(exc, StoreFileChanged) or is_busy(exc):
            raise
        raise open_error(path, exc) from None
    try:
        return _open_checked(path, opened, busy_timeout_s, cache_kib, create, budget)
    finally:
        if guard is not None:
            guard.close()


def _open_checked(
    path: Path,
    opened: FileIdentity,
    busy_timeout_s: float,
    cache_kib: int,
    create: bool,
    budget: OperationBudget,
) -> tuple[sqlite3.Connection, str]:
    """The connection of :func:`open_link_database` and its mode, its WAL checked first
    (:func:`~cage_core.sqlite_stamp.foreign_wal`), a new store given its stamp."""
    try:
        conn, mode = open_database(
            "link store",
            path,
            timeout=busy_timeout_s,
            max_value_bytes=MAX_VALUE_BYTES,
        )
    except sqlite3.Error as exc:
        raise open_error(path, exc) from None
    conn.text_factory = stored_text
    try:
        conn.execute("BEGIN")
        foreign = foreign_wal("link store", path, conn, opened)
        conn.execute("COMMIT")
        if foreign is not None:
            raise foreign
        conn.execute(f"PRAGMA cache_size = -{cache_kib}")
        tables = {
            row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        if not tables and create:
            conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")  # only an empty file takes it
            set_wal(conn, "link store", path)
            with write_transaction(conn):
                for statement in SCHEMA:
                    conn.execute(statement)
                conn.executemany(
                    "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)",
                    [("format", STORE_FORMAT), ("version", STORE_VERSION), ("passages", 0)],
                )
                stamp_new_store(conn)
            checkpoint_new_store(conn)
        check_meta(conn, path)
        problem = schema_problem(conn, SCHEMA, DOCUMENT_SCHEMA)
        if problem is not None:
            raise LinkIndexFormatError(f"{path}: not a cage link store ({problem})")
        if mode == "rw":
            set_wal(conn, "link store", path)
        conn.execute("PRAGMA synchronous=NORMAL")  # crash-safe in WAL mode
        conn.execute("PRAGMA wal_autocheckpoint=0")  # WalCheckpointer's work
        conn.execute(f"PRAGMA journal_size_limit={WAL_CHECKPOINT_PAGES * PAGE_SIZE}")
        budget.install(conn)
    except sqlite3.Error as exc:
        close_connection("link store", path, conn, opened)
        if isinstance(exc, StoreFileChanged) or (
            isinstance(exc, sqlite3.OperationalError) and is_busy(exc)
        ):
            raise
        raise open_error(path, exc) from None
    except BaseException:
        close_connection("link store", path, conn, opened)
        raise
    return conn, mode


def check_meta(conn: sqlite3.Connection, path: Path) -> None:
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


def open_error(path: Path, exc: sqlite3.Error) -> Exception:
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


def report_empty(path: Path) -> None:
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


def is_empty(path: Path) -> bool:
    try:
        return path.stat().st_size == 0
    except OSError:
        return False
