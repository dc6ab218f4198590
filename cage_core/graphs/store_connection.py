"""One process's connection to a graph store file (:mod:`cage_core.graphs.store` states the
rules): opened on first use, under a lock; opened afresh when the file at the path was
replaced (a deleted file is an error, never re-created here); dropped after an error of the
whole file, so that the next use reopens it; retried while the database is locked
(:func:`cage_core.sqlite_files.retry_while_busy`); never used across ``fork()`` (a forked
child opens its own and leaves the parent's untouched, never closing it, as SQLite
requires). Storage errors are counted and logged, a warning the first time each kind is met.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from cage_core.graphs.store_database import is_of_the_file, open_graph_database
from cage_core.sqlite_files import (
    FileIdentity,
    OperationBudget,
    changed_file,
    describe,
    file_identity,
    is_busy,
    remove_stale_side_files,
    retry_while_busy,
)
from cage_core.sqlite_stamp import checked_read, close_held_connection, stamped_write

__all__ = ["STORAGE_ERRORS", "GraphStoreConnection", "StoreBusy", "StoreFailed"]

logger = logging.getLogger("cage_core.graphs.store")
"""The store's log: its messages keep one logger name wherever their code lives."""

_T = TypeVar("_T")


class StoreBusy(Exception):
    """The database stayed locked through every attempt."""


class StoreFailed(Exception):
    """Any other storage error (module docstring); its cause is the original error."""


STORAGE_ERRORS = (sqlite3.DatabaseError, OSError)
"""What a storage failure raises (``sqlite3.ProgrammingError``, a closed store, is not one)."""

_STORES: weakref.WeakSet[GraphStoreConnection] = weakref.WeakSet()
"""Every open store in this process, so a forked child can drop their connections."""
_INHERITED: list[sqlite3.Connection] = []
"""Connections a forked child inherited: kept alive, never used or closed (closing one
could release or checkpoint state that belongs to the parent)."""


class GraphStoreConnection:
    """This process's connection to the graph store file at ``path`` (module docstring).

    Args:
        path: the SQLite file.
        busy_timeout_s: how long SQLite waits for a lock per attempt.
        max_attempts: attempts per operation before it raises :class:`StoreBusy`.
    """

    def __init__(self, path: Path, busy_timeout_s: float, max_attempts: int) -> None:
        self.path = path
        self._busy_timeout_s = busy_timeout_s
        self._max_attempts = max_attempts
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._opened: FileIdentity | None = None
        self._sides: tuple[FileIdentity | None, ...] = ()
        self._budget = OperationBudget()
        self._closed = False
        self.failures = 0
        """Storage errors met (module docstring): each made a lookup a miss or dropped a write."""
        self._reported: set[str] = set()
        _STORES.add(self)

    def close(self) -> None:
        """Close this process's connection; later calls raise ``sqlite3.ProgrammingError``."""
        with self._lock:
            self._closed = True
            if self._conn is not None:
                if self._opened is not None and changed_file(
                    "graph store", self.path, self._opened
                ):  # as the next operation would: the old file's -wal leaves the path
                    remove_stale_side_files("graph store", self.path, self._sides)
                close_held_connection("graph store", self.path, self._conn, self._opened)
                self._conn = None

    def _failed(self, exc: BaseException | None, consequence: str) -> None:
        """Count a storage error; warn the first time this store meets its kind."""
        self.failures += 1
        cause = describe(exc) if exc is not None else "unknown error"
        kind = cause.split(" (")[0]
        level = logging.DEBUG if kind in self._reported else logging.WARNING
        self._reported.add(kind)
        logger.log(level, "graph store %s: %s; %s", self.path, cause, consequence)

    def _attempt(self, op: Callable[[sqlite3.Connection], _T], *, write: bool = False) -> _T:
        """``op(connection)`` under the store lock, retried while the database is locked: in
        a read transaction, or with ``write`` a write transaction, whose WAL was checked
        first (:mod:`cage_core.sqlite_stamp`: another file's commits are never read).

        Raises:
            StoreBusy: (from the last ``sqlite3.OperationalError``) when every attempt found it locked.
        """

        def run() -> _T:
            with self._connection() as conn:
                self._budget.start()
                transaction = stamped_write if write else checked_read
                with transaction("graph store", self.path, conn, self._opened):
                    return op(conn)

        try:
            return retry_while_busy(run, self._max_attempts)
        except sqlite3.ProgrammingError:
            raise  # closed
        except STORAGE_ERRORS as exc:
            if isinstance(exc, sqlite3.OperationalError) and is_busy(exc):
                raise StoreBusy() from exc
            if is_of_the_file(exc):
                self._drop_connection()
            raise StoreFailed() from exc

    def _drop_connection(self) -> None:
        """Forget the connection after an error of the whole file: the next use reopens."""
        with self._lock:
            conn, self._conn, opened = self._conn, None, self._opened
            self._opened = None
        if conn is not None:
            close_held_connection("graph store", self.path, conn, opened)

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        """This process's connection (opened on first use), held under the store lock."""
        with self._lock:
            if self._closed:
                raise sqlite3.ProgrammingError(f"graph store {self.path} is closed")
            if self._conn is not None and self._opened is not None:
                changed = changed_file("graph store", self.path, self._opened)
                if changed is not None:  # replaced: open the new file; deleted: an error
                    remove_stale_side_files("graph store", self.path, self._sides)
                    close_held_connection(
                        "graph store", self.path, self._conn, self._opened
                    )  # a moved file: closed without a checkpoint
                    self._conn = self._opened = None
                    if file_identity(self.path) is None:
                        raise changed
                    self._failed(changed, "opening the file now at the path")
            if self._conn is None:
                self._conn, self._opened = self._connect()
            yield self._conn

    def _connect(self) -> tuple[sqlite3.Connection, FileIdentity | None]:
        conn, opened, self._sides = open_graph_database(
            self.path, self._busy_timeout_s, self._budget
        )
        return conn, opened

    def _forget_connection_after_fork(self) -> None:
        """In a forked child: a fresh lock, and the parent's connection left untouched."""
        self._lock = threading.Lock()
        if self._conn is not None:
            _INHERITED.append(self._conn)
            self._conn = None


def _after_fork_in_child() -> None:
    for store in list(_STORES):
        store._forget_connection_after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
