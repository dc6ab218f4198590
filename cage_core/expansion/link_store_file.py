"""The link store's file (:mod:`cage_core.expansion.store`): its tables, how the store layer
opens and checks it (:data:`LINK_STORE`), and how its errors read.

Beyond the store layer's checks (:mod:`cage_core.stores`), the postings of a name are read
up to its stored count plus one (an expansion asks only for names of ``df <= max_link_df``),
whatever the postings table holds, and a value longer than ``MAX_VALUE_BYTES`` skips its row.

The WAL is checkpointed by the writer, between two transactions, once it is longer than
``WAL_CHECKPOINT_PAGES`` pages, and cut back to that size (``journal_size_limit``): a high
bound, because a checkpoint after every commit (SQLite's default, 1,000 pages) doubled the
time of adding 1,000 entries to a store of 1M, and one checkpoint of many commits writes
each page they changed once. SQLite's automatic checkpoint is off (``wal_autocheckpoint``):
it runs right after a commit, where a late commit of an old writer into the ``-wal`` at the
path could be copied in; the writer's checkpoint runs while a reader that found the WAL to
be the file's own holds its snapshot (:func:`~cage_core.stores.stamp.checkpoint_own`).
"""

from __future__ import annotations

import functools
import logging
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from cage_core.expansion.jsonl import FORMAT_TAG
from cage_core.expansion.record import LinkIndexFormatError
from cage_core.stores.connection import StoreConnection
from cage_core.stores.database import (
    READ_BATCH,
    describe,
    is_busy,
    rows_within_bound,
    schema_problem,
)
from cage_core.stores.files import FileIdentity, StoreFileChanged, create_private_file
from cage_core.stores.opening import StoreKind

__all__ = [
    "DOCUMENT_SCHEMA",
    "LINK_PRAGMAS",
    "LINK_STORE",
    "MAX_VALUE_BYTES",
    "PAGE_SIZE",
    "READ_BATCH_KEYS",
    "SCHEMA",
    "STORE_VERSION",
    "WAL_CHECKPOINT_PAGES",
    "LinkStoreFile",
    "open_error",
    "ready_file",
    "worded",
]

logger = logging.getLogger("cage_core.expansion.store")  # the link store's log, from any module

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
WAL_CHECKPOINT_PAGES = 65_536
"""A writer checkpoints the WAL after a commit that leaves it longer than this many pages
(64 MiB of 1 KiB pages), and the file is cut back to that size (module docstring)."""
READ_BATCH_KEYS = READ_BATCH
"""Rows per page of a read in pages (:meth:`LinkStoreFile.pages`)."""

_T = TypeVar("_T")


def _precheck(path: Path, opened: FileIdentity | None, create: bool) -> None:
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


def _create(conn: sqlite3.Connection) -> None:
    for statement in SCHEMA:
        conn.execute(statement)
    conn.executemany(
        "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)",
        [("format", STORE_FORMAT), ("version", STORE_VERSION), ("passages", 0)],
    )


def _check(conn: sqlite3.Connection, path: Path) -> None:
    """Raise :class:`~cage_core.expansion.record.LinkIndexFormatError` unless the ``meta``
    table names a link store of this version and the schema is the store's."""
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
    problem = schema_problem(conn, SCHEMA, DOCUMENT_SCHEMA)
    if problem is not None:
        raise LinkIndexFormatError(f"{path}: not a cage link store ({problem})")


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


def ready_file(path: Path, create: bool) -> None:
    """With ``create``, make the file at ``path`` (0600, in a 0700 directory) unless it is
    there; an empty file there is reported as made a new store (a warning unless another
    writer has just created it: an emptied or truncated-to-zero store loses nothing more,
    but should not pass unnoticed).

    Raises:
        FileNotFoundError: when no file is at ``path`` and not ``create``.
    """
    if not create and not path.is_file():
        raise FileNotFoundError(
            f"no link store at {path} (create one with "
            "LinkIndex.open(path, create=True) or cage enrich)"
        )
    if not create or create_private_file(path) or not is_empty(path):
        return
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


LINK_STORE = StoreKind(
    "link store",
    MAX_VALUE_BYTES,
    _create,
    _check,
    page_size=PAGE_SIZE,
    precheck=_precheck,
    open_error=open_error,
)
"""A link store file, as the store layer opens it (module docstring)."""
LINK_PRAGMAS = (
    "wal_autocheckpoint = 0",
    f"journal_size_limit = {WAL_CHECKPOINT_PAGES * PAGE_SIZE}",
)
"""Set on every connection: the WAL's bound (module docstring)."""


@contextmanager
def worded(path: Path) -> Iterator[None]:
    """Raise a SQLite error met inside, but a lock, a closed store or a changed file, as one
    of the same class whose message names the cause
    (:func:`~cage_core.stores.database.describe`)."""
    try:
        yield
    except (sqlite3.ProgrammingError, StoreFileChanged):
        raise
    except sqlite3.DatabaseError as exc:
        if getattr(exc, "sqlite_errorcode", None) is None or is_busy(exc):
            raise  # ours, already worded, or a lock (callers handle it)
        raise type(exc)(f"link store {path}: {describe(exc)}") from exc


class LinkStoreFile:
    """The link store's file as its entries (:class:`~cage_core.expansion.store.SqliteLinkStorage`)
    and its document records (:class:`~cage_core.expansion.link_documents.LinkDocuments`)
    read and write it: through one :class:`~cage_core.stores.connection.StoreConnection`,
    errors worded (:func:`worded`), a bad row reported once per kind.

    Args:
        db: the store's connection.
        key: the store's integrity key (``None``: rows are validated for format only).
    """

    def __init__(self, db: StoreConnection, key: bytes | None) -> None:
        self.db = db
        self.path = db.path
        self.key = key
        self._warned: set[str] = set()

    def read(self, op: Callable[[sqlite3.Connection], _T]) -> _T:
        """``op(connection)`` in a checked read transaction (or the one of ``reading()``)."""
        with worded(self.path):
            return self.db.read(op)

    def write(self, op: Callable[[sqlite3.Connection], _T]) -> _T:
        """``op(connection)`` in one write transaction; the file at the path checked after
        its commit (:meth:`~cage_core.stores.connection.StoreConnection.confirm_written`),
        then the WAL checkpointed when past its bound (module docstring)."""
        with worded(self.path):
            result = self.db.write(op)
        self.db.confirm_written()
        self.db.checkpoint_past(WAL_CHECKPOINT_PAGES * PAGE_SIZE)
        return result

    def pages(
        self, page: Callable[[tuple, sqlite3.Connection], list[tuple]]
    ) -> Iterator[list[tuple]]:
        """The pages of rows ``page((last, size), conn)`` gives, each read in its own
        transaction (no long transaction); ``last`` is the first value of the last page's
        last row."""
        last = 0
        while rows := self.read(functools.partial(page, (last, READ_BATCH_KEYS))):
            last = rows[-1][0]
            yield rows

    def warn_once(
        self, kind: str, message: str, *args: object, level: int = logging.WARNING
    ) -> None:
        """A warning (or a line at ``level``) the first time this store meets ``kind`` of bad
        row or lack; debug after."""
        logger.log(logging.DEBUG if kind in self._warned else level, message, *args)
        self._warned.add(kind)

    def select_in(self, conn: sqlite3.Connection, sql: str, values: list[Any]) -> list[tuple]:
        """Rows of ``sql`` (ending in ``IN``) for ``values``; those holding a value past
        ``MAX_VALUE_BYTES`` are left out, with a warning
        (:func:`~cage_core.stores.database.rows_within_bound`)."""
        return rows_within_bound(conn, sql, values, lambda value: self.warn_too_large())

    def warn_too_large(self) -> None:
        self.warn_once(
            "too large",
            "link store %s: skipped rows holding a value larger than %d bytes",
            self.path,
            MAX_VALUE_BYTES,
        )
