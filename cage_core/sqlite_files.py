"""What the two SQLite stores share: private files, WAL mode, write transactions, busy retries.

The graph store (:mod:`cage_core.graphs.store`) and the link store
(:mod:`cage_core.expansion.store`) are one file each, read and written by many processes at
once. Both follow the same rules, kept here once:

* the file is created 0600 in a directory created 0700, race-free (:func:`create_private_file`),
  and its ``-wal`` / ``-shm`` side files are given the same mode (:func:`restrict_side_files`);
* the database runs in WAL mode, so readers never wait for a writer (:func:`set_wal`);
* a write is one ``BEGIN IMMEDIATE`` transaction, rolled back on any error
  (:func:`write_transaction`);
* a locked database is waited for (SQLite's busy timeout), then the operation is retried up to
  ``max_attempts`` times in all, with full-jitter exponential backoff between attempts
  (:func:`retry_while_busy`). What a store does when every attempt found the file locked is
  its own: the graph store degrades to a miss or drops the write, the link store raises.

And the same defences (issue 40), because a store file may be damaged, moved or written by
someone else:

* a connection never creates a file: it opens ``mode=rw`` (:func:`open_database`), so only a
  store's constructor, asked to create one, makes a file (0600); a file that cannot be
  written (a read-only volume, a directory the reader cannot write) is opened ``mode=ro``,
  and where SQLite cannot even do that (no ``-shm`` beside a WAL file), ``immutable=1``,
  with a log line saying what that costs;
* the store is the file at the path: :func:`file_identity` (device and inode) is taken when
  a connection opens and compared at every transaction (:func:`changed_file`), so a file
  replaced or deleted under an open store is noticed, never silently read or written; and
  the ``-wal`` beside it is the file's own: :mod:`cage_core.sqlite_stamp` checks it by the
  stamp in the file's header at open and in every transaction;
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
import os
import random
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple, TypeVar

__all__ = [
    "BACKOFF_BASE_S",
    "BACKOFF_CAP_S",
    "BUSY_TIMEOUT_S",
    "DIR_MODE",
    "FILE_MODE",
    "MAX_ATTEMPTS",
    "OPERATION_TIME_LIMIT_S",
    "SIDE_FILE_SUFFIXES",
    "FileIdentity",
    "OperationBudget",
    "StoreFileChanged",
    "backoff_s",
    "changed_file",
    "create_private_file",
    "describe",
    "file_identity",
    "is_busy",
    "open_database",
    "restrict_side_files",
    "retry_while_busy",
    "remove_stale_side_files",
    "schema_problem",
    "side_file_identities",
    "set_wal",
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
OPERATION_TIME_LIMIT_S = 60.0
"""Longest one read or write operation may run before SQLite is told to stop (a backstop
against crafted files; a sound store's operations take milliseconds)."""
FILE_MODE = 0o600
DIR_MODE = 0o700
SIDE_FILE_SUFFIXES = ("-wal", "-shm")

_BUSY_CODES = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})
_BUSY_MESSAGES = ("database is locked", "database table is locked", "database schema is locked")
_T = TypeVar("_T")


def backoff_s(attempt: int) -> float:
    """Full-jitter exponential backoff before attempt number ``attempt`` (0-based, ≥ 1)."""
    return random.uniform(0, min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2 ** (attempt - 1)))


def is_busy(exc: sqlite3.Error) -> bool:
    """Whether ``exc`` says the database was locked (``SQLITE_BUSY`` / ``SQLITE_LOCKED``).

    An error without SQLite's code (raised by Python's module itself, e.g. text that is not
    UTF-8) is busy only when its message is SQLite's own for a lock, never because a stored
    value it quotes holds the word "locked".
    """
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


def create_private_file(path: Path) -> bool:
    """Create ``path`` 0600 in a 0700 directory unless it exists (safe against racing
    creators); whether this call created it."""
    path.parent.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        return False  # already there, or another process created it first
    os.close(fd)
    return True


def restrict_side_files(path: Path) -> None:
    """Give the ``-wal`` and ``-shm`` files of the database at ``path`` mode 0600 where they
    exist and this process may (not on a read-only volume, nor another user's files)."""
    for suffix in SIDE_FILE_SUFFIXES:
        try:
            os.chmod(str(path) + suffix, FILE_MODE)
        except OSError:
            pass  # not created yet, removed by another process's last close, or not ours


class FileIdentity(NamedTuple):
    """Which file a path named: its device and inode."""

    device: int
    inode: int


class StoreFileChanged(sqlite3.OperationalError):
    """The file at a store's path is no longer the one its connection opened (replaced, as
    by ``os.replace`` of a rebuilt store, or deleted)."""


def file_identity(path: Path) -> FileIdentity | None:
    """The identity of the file at ``path`` now; ``None`` when there is none."""
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return FileIdentity(info.st_dev, info.st_ino)


def changed_file(store: str, path: Path, opened: FileIdentity) -> StoreFileChanged | None:
    """The error to raise when the file at ``path`` is not the one opened (``opened``)."""
    now = file_identity(path)
    if now == opened:
        return None
    if now is None:
        return StoreFileChanged(
            f"{store} {path} was deleted while open; nothing more is read "
            "from or written to the deleted file (reopen the store once a "
            "file is back at the path)"
        )
    return StoreFileChanged(
        f"{store} {path} was replaced by another file while open (e.g. "
        "os.replace of a rebuilt store); swap a live store with SQLite's "
        "backup API instead (docs/reliability.md)"
    )


def side_file_identities(path: Path) -> tuple[FileIdentity | None, ...]:
    """The identities of the ``-wal`` and ``-shm`` files of ``path`` now (``None``: absent).

    Taken right after a connection's first read, while it holds them open: SQLite removes
    them only at the last connection's close, so they stay the connection's own files."""
    return tuple(file_identity(Path(str(path) + suffix)) for suffix in SIDE_FILE_SUFFIXES)


def remove_stale_side_files(store: str, path: Path, sides: Sequence[FileIdentity | None]) -> None:
    """After the file at ``path`` was replaced or deleted under a connection: remove the
    ``-wal`` and ``-shm`` still at the path that are that connection's (``sides``, from
    :func:`side_file_identities`), so that whoever opens the path next does not read the old
    file's WAL over the new file (SQLite leaves them there: it never checkpoints into, or
    deletes the WAL of, a moved file)."""
    for suffix, opened in zip(SIDE_FILE_SUFFIXES, sides):
        side = Path(str(path) + suffix)
        if opened is not None and file_identity(side) == opened:
            try:
                side.unlink()
            except FileNotFoundError:
                continue
            logger.info(
                "%s %s: removed %s, left by the file that was at the path", store, path, side.name
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
    uri = path.absolute().as_uri()
    error: sqlite3.Error | None = None
    for mode, query in (("rw", "mode=rw"), ("ro", "mode=ro"), ("immutable", "mode=ro&immutable=1")):
        try:
            conn = sqlite3.connect(
                f"{uri}?{query}",
                uri=True,
                timeout=timeout,
                isolation_level=None,
                check_same_thread=False,
            )
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
