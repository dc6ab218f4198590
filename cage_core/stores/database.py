"""How a store's SQLite connection is opened, guarded and run: WAL mode, write
transactions, busy retries, and the defences against a crafted file.

Both stores (:mod:`cage_core.graphs.store`, :mod:`cage_core.expansion.store`) follow the
same rules, kept here once:

* the database runs in WAL mode, so readers never wait for a writer (:func:`set_wal`);
* a write is one ``BEGIN IMMEDIATE`` transaction, rolled back on any error
  (:func:`write_transaction`);
* a locked database is waited for (SQLite's busy timeout), then the operation is retried up to
  ``max_attempts`` times in all, with full-jitter exponential backoff between attempts
  (:func:`retry_while_busy`); what a store does when every attempt found it locked is its own;
* a connection never creates a file (only a store's constructor, asked to, makes one), and
  opens a file it cannot write read-only (:func:`open_database`);
* a crafted file is refused cheaply (SQLite's advice for untrusted databases,
  sqlite.org/security.html): the schema must be exactly the store's own tables and indexes
  (:func:`schema_problem`: no view, no trigger), ``PRAGMA trusted_schema=OFF``, no value
  longer than the store's bound is ever read (``SQLITE_LIMIT_LENGTH``: such a read fails
  at once with :class:`sqlite3.DataError`), and every operation runs under a time limit
  (a progress handler, :class:`OperationBudget`);
* an error says what to do about it (:func:`describe`): permission, read-only, full,
  corrupt or truncated, not a database, replaced while open.
"""

from __future__ import annotations

import functools
import logging
import random
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from cage_core.stores.files import StoreFileChanged

__all__ = [
    "BUSY_TIMEOUT_S",
    "MAX_ATTEMPTS",
    "OPERATION_TIME_LIMIT_S",
    "READ_BATCH",
    "OperationBudget",
    "backoff_s",
    "connect",
    "describe",
    "is_busy",
    "is_utf8",
    "open_database",
    "retry_while_busy",
    "rows_within_bound",
    "schema_problem",
    "set_wal",
    "stored_text",
    "write_transaction",
]

logger = logging.getLogger(__name__)

BUSY_TIMEOUT_S = 2.0
"""How long SQLite itself waits for another connection's lock, per attempt."""
MAX_ATTEMPTS = 4
"""Attempts at one read or write batch before the store gives up on it."""
BACKOFF_BASE_S = 0.05
"""Backoff before the second attempt; it doubles for each later one (full jitter)."""
BACKOFF_CAP_S = 1.0
"""Longest backoff between two attempts."""
READ_BATCH = 500
"""Values per ``… IN (…)`` (SQLite's bound-parameter limit is 999 on old builds)."""
OPERATION_TIME_LIMIT_S = 60.0
"""Longest one read or write operation may run before SQLite is told to stop (a backstop
against crafted files; a sound store's operations take milliseconds)."""

_BUSY_CODES = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})
_BUSY_MESSAGES = ("database is locked", "database table is locked", "database schema is locked")
_T = TypeVar("_T")


def backoff_s(attempt: int) -> float:
    """Full-jitter exponential backoff before attempt number ``attempt`` (0-based, ≥ 1)."""
    return random.uniform(0, min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2 ** (attempt - 1)))


def is_busy(exc: BaseException) -> bool:
    """Whether ``exc`` is a ``sqlite3.OperationalError`` saying the database was locked
    (``SQLITE_BUSY`` / ``SQLITE_LOCKED``).

    An error without SQLite's code (raised by Python's module itself, e.g. text that is not
    UTF-8) is busy only when its message is SQLite's own for a lock, never because a stored
    value it quotes holds the word "locked".
    """
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in _BUSY_CODES  # extended codes keep the primary in the low byte
    return str(exc).startswith(_BUSY_MESSAGES)


def retry_while_busy(op: Callable[[], _T], max_attempts: int) -> _T:
    """``op()``, tried again after a backoff while it raises a busy
    ``sqlite3.OperationalError`` (:func:`is_busy`), at most ``max_attempts`` times in all.

    Raises:
        sqlite3.OperationalError: any other at once; the last busy one when every attempt
            found the database locked.
    """
    for attempt in range(max_attempts):
        if attempt:
            time.sleep(backoff_s(attempt))
        try:
            return op()
        except sqlite3.OperationalError as exc:
            if not is_busy(exc) or attempt == max_attempts - 1:
                raise
    raise ValueError(f"max_attempts must be at least 1, got {max_attempts}")


@contextmanager
def write_transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """A ``BEGIN IMMEDIATE`` transaction, rolled back on any error (the connection stays usable)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def set_wal(conn: sqlite3.Connection, store: str, path: Path) -> None:
    """Put ``conn``'s database in WAL mode (readers never wait for writers); where the file
    system cannot, warn that ``store`` at ``path`` will make readers wait."""
    if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if mode != "wal":
            logger.warning(
                "%s %s: WAL mode unavailable (journal mode %s); readers will wait for writers",
                store,
                path,
                mode,
            )


class OperationBudget:
    """A time limit on each operation of a connection: :meth:`start` before it; SQLite's
    progress handler stops a statement past the limit (``sqlite3.OperationalError:
    interrupted``)."""

    CHECK_EVERY = 10_000
    """Virtual-machine instructions between two looks at the clock."""

    def __init__(self, limit_s: float = OPERATION_TIME_LIMIT_S) -> None:
        self.limit_s = limit_s
        self._deadline = time.monotonic() + limit_s

    def install(self, conn: sqlite3.Connection) -> None:
        conn.set_progress_handler(self._past_deadline, self.CHECK_EVERY)

    def start(self) -> None:
        self._deadline = time.monotonic() + self.limit_s

    def _past_deadline(self) -> int:
        return int(time.monotonic() > self._deadline)


def connect(path: Path, query: str, timeout: float) -> sqlite3.Connection:
    """A connection to the file at ``path`` opened with the URI ``query`` (``mode=rw``, ...):
    autocommit (the stores begin their own transactions), usable from any thread (under the
    store's lock)."""
    uri = path.absolute().as_uri()
    return sqlite3.connect(
        f"{uri}?{query}", uri=True, timeout=timeout, isolation_level=None, check_same_thread=False
    )


def open_database(
    store: str, path: Path, *, timeout: float, max_value_bytes: int
) -> tuple[sqlite3.Connection, str]:
    """A connection to the existing file at ``path`` and the mode it was opened in: ``"rw"``;
    where the file cannot be written, ``"ro"``; where SQLite cannot even read it so (a WAL
    file on a read-only volume without its ``-shm``), ``"immutable"`` (logged: commits
    still in a ``-wal`` beside it are then not seen). Never creates a file.

    Every connection gets the defences of the module docstring: ``trusted_schema`` off,
    values longer than ``max_value_bytes`` refused on read (``SQLITE_LIMIT_LENGTH``).

    Raises:
        sqlite3.Error: when the file cannot be opened at all (see :func:`describe`).
    """
    error: sqlite3.Error | None = None
    for mode, query in (("rw", "mode=rw"), ("ro", "mode=ro"), ("immutable", "mode=ro&immutable=1")):
        try:
            conn = connect(path, query, timeout)
        except sqlite3.Error as exc:
            error = exc
            if not _cannot_open(exc):
                raise
            continue
        try:
            conn.execute("PRAGMA trusted_schema=OFF")
            conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, max_value_bytes)
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # reads the header
        except sqlite3.Error as exc:
            conn.close()
            error = exc
            if mode == "immutable" or not _cannot_open(exc):
                raise
            continue
        if mode != "rw" and (store, path, mode) not in _REPORTED_MODES:
            _REPORTED_MODES.add((store, path, mode))
            _log_read_only(store, path, mode)
        return conn, mode
    assert error is not None
    raise error


_REPORTED_MODES: set[tuple[str, Path, str]] = set()
"""The read-only openings already logged by this process (one line per store and mode)."""


def _log_read_only(store: str, path: Path, mode: str) -> None:
    if mode == "ro":
        logger.info("%s %s: opened read-only (the file cannot be written here)", store, path)
        return
    wal = Path(str(path) + "-wal")
    if wal.is_file() and wal.stat().st_size:
        logger.warning(
            "%s %s: opened read-only and immutable (SQLite cannot share the file "
            "read-only here); its -wal file is not read, so the commits still in it "
            "are not seen: checkpoint the store before moving it to read-only media "
            "(docs/reliability.md)",
            store,
            path,
        )
    else:
        logger.info(
            "%s %s: opened read-only and immutable (the file and its directory cannot "
            "be written; changes made to it meanwhile are not seen)",
            store,
            path,
        )


def _cannot_open(exc: sqlite3.Error) -> bool:
    """Whether ``exc`` says the file or its side files could not be opened or written
    (read-only volume, permission), as opposed to a damaged or locked file."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return False
    return (code & 0xFF) in {
        sqlite3.SQLITE_CANTOPEN,
        sqlite3.SQLITE_READONLY,
        sqlite3.SQLITE_PERM,
        sqlite3.SQLITE_IOERR,
        sqlite3.SQLITE_AUTH,
    }


def describe(exc: BaseException) -> str:
    """What an error opening or using a store file means, in words a user can act on."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary = None if code is None else code & 0xFF
    causes = {
        sqlite3.SQLITE_NOTADB: "not a SQLite database: a damaged or truncated store, or "
        "another kind of file",
        sqlite3.SQLITE_CORRUPT: "corrupt or truncated (SQLite: malformed): restore it from a "
        "backup or rebuild it",
        sqlite3.SQLITE_CANTOPEN: "cannot be opened: check that it exists and that this user "
        "may read it and its directory",
        sqlite3.SQLITE_PERM: "permission denied: check the file's and its directory's permissions",
        sqlite3.SQLITE_READONLY: "read-only here (file permissions or a read-only volume): "
        "it can be read but not written",
        sqlite3.SQLITE_FULL: "the disk is full: free space, then write again",
        sqlite3.SQLITE_IOERR: "an I/O error reading or writing it (a full or failing disk, "
        "or a file system that does not support SQLite's locks)",
        sqlite3.SQLITE_INTERRUPT: f"an operation ran past the time limit "
        f"({OPERATION_TIME_LIMIT_S:g} s): a crafted or damaged store?",
        sqlite3.SQLITE_TOOBIG: "holds a value larger than a store ever writes (crafted or damaged)",
    }
    if isinstance(exc, StoreFileChanged):
        return str(exc)
    if isinstance(exc, PermissionError):
        return f"permission denied ({exc.strerror}): check the file's and directory's permissions"
    if isinstance(exc, OSError):
        return f"{causes[sqlite3.SQLITE_CANTOPEN]} ({exc.strerror or exc})"
    cause = causes.get(primary) if primary is not None else None
    return f"{cause} ({exc})" if cause else str(exc)


def schema_problem(
    conn: sqlite3.Connection, ddl: Sequence[str], optional: Sequence[str] = ()
) -> str | None:
    """What is wrong with the schema of ``conn``'s database next to the store's own ``ddl``
    (its ``CREATE`` statements), or ``None``: the same tables and indexes, defined alike,
    and nothing else (no view, no trigger, no extra table or index; ``ANALYZE``'s
    statistics tables are allowed: they only guide the query planner). The tables of
    ``optional`` (added by a later writer, in one transaction) are all there, defined
    alike, or none is."""
    found = {row for row in _schema(conn) if not row[1].startswith(_STATISTICS)}
    expected = _expected_schema(tuple(ddl))
    later = _expected_schema(tuple(ddl) + tuple(optional)) - expected
    if {name for _, name, _ in later} & {name for _, name, _ in found}:
        expected = expected | later
    for kind, name, _ in sorted(found - expected):
        if kind in ("view", "trigger"):
            return f"it holds a {kind} ({name}), which a store never has"
        if any(name == other for _, other, _ in expected):
            return f"its {kind} {name} is not defined as this store's"
        return f"it holds a {kind} ({name}) that is not the store's"
    missing = sorted(name for _, name, _ in expected - found)
    return f"it lacks {', '.join(missing)}" if missing else None


_STATISTICS = "sqlite_stat"


def _schema(conn: sqlite3.Connection) -> set[tuple[str, str, str]]:
    rows = conn.execute("SELECT type, name, sql FROM sqlite_master")
    return {(str(kind), str(name), " ".join(str(sql or "").split())) for kind, name, sql in rows}


@functools.lru_cache(maxsize=8)
def _expected_schema(ddl: tuple[str, ...]) -> frozenset[tuple[str, str, str]]:
    """The schema a fresh database gets from ``ddl`` (as SQLite writes it down)."""
    conn = sqlite3.connect(":memory:")
    try:
        for statement in ddl:
            conn.execute(statement)
        return frozenset(_schema(conn))
    finally:
        conn.close()


def is_utf8(text: str) -> bool:
    """No lone surrogates: the text can be written as UTF-8 (and was, when read through
    :func:`stored_text`)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def stored_text(value: bytes) -> str:
    """Stored text as ``str`` (a connection's ``text_factory``): invalid UTF-8 becomes lone
    surrogates, which the stores' validation rejects, rather than an error deep in sqlite3."""
    return value.decode("utf-8", "surrogateescape")


def rows_within_bound(
    conn: sqlite3.Connection,
    sql: str,
    values: Sequence[Any],
    oversized: Callable[[Any], object],
    *,
    then: str = "",
    parameters: tuple = (),
) -> list[tuple]:
    """Rows of ``sql`` (ending in ``IN``) for ``values``, :data:`READ_BATCH` at a time (the
    clause ``then`` after, with ``parameters``). A batch holding a value past the connection's
    length bound (``sqlite3.DataError``, raised before the value is read:
    :func:`open_database`) is read value by value, and ``oversized(value)`` is called for each
    value whose rows hold one (they are left out)."""
    rows: list[tuple] = []
    for start in range(0, len(values), READ_BATCH):
        chunk = values[start : start + READ_BATCH]
        try:
            marks = ",".join("?" * len(chunk))
            rows += conn.execute(f"{sql} ({marks}) {then}", (*chunk, *parameters)).fetchall()
        except sqlite3.DataError:
            for value in chunk:
                try:
                    rows += conn.execute(f"{sql} (?) {then}", (value, *parameters)).fetchall()
                except sqlite3.DataError:
                    oversized(value)
    return rows
