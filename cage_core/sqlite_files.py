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
"""

from __future__ import annotations

import logging
import os
import random
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

__all__ = [
    "BACKOFF_BASE_S",
    "BACKOFF_CAP_S",
    "BUSY_TIMEOUT_S",
    "DIR_MODE",
    "FILE_MODE",
    "MAX_ATTEMPTS",
    "SIDE_FILE_SUFFIXES",
    "backoff_s",
    "create_private_file",
    "is_busy",
    "restrict_side_files",
    "retry_while_busy",
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
FILE_MODE = 0o600
DIR_MODE = 0o700
SIDE_FILE_SUFFIXES = ("-wal", "-shm")

_BUSY_CODES = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})
_T = TypeVar("_T")


def backoff_s(attempt: int) -> float:
    """Full-jitter exponential backoff before attempt number ``attempt`` (0-based, ≥ 1)."""
    return random.uniform(0, min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2 ** (attempt - 1)))


def is_busy(exc: sqlite3.OperationalError) -> bool:
    """Whether ``exc`` says the database was locked (``SQLITE_BUSY`` / ``SQLITE_LOCKED``)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in _BUSY_CODES  # extended codes keep the primary in the low byte
    message = str(exc).lower()
    return "locked" in message or "busy" in message


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
            logger.warning("%s %s: WAL mode unavailable (journal mode %s); readers will wait "
                           "for writers", store, path, mode)  # fmt: skip


def create_private_file(path: Path) -> None:
    """Create ``path`` 0600 in a 0700 directory unless it exists (safe against racing creators)."""
    path.parent.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        return  # already there, or another process created it first
    os.close(fd)


def restrict_side_files(path: Path) -> None:
    """Give the ``-wal`` and ``-shm`` files of the database at ``path`` mode 0600 where they exist."""
    for suffix in SIDE_FILE_SUFFIXES:
        try:
            os.chmod(str(path) + suffix, FILE_MODE)
        except FileNotFoundError:
            pass  # not created yet, or removed by another process's last close
