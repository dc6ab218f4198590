"""One process's connection to a store file: the life cycle both stores share.

A :class:`StoreConnection` is opened and checked on first use
(:func:`~cage_core.stores.opening.open_store`), under a lock; it runs every operation in a
transaction whose WAL was checked first (:mod:`cage_core.stores.stamp`: another file's
commits are never read), retried while the database is locked
(:func:`~cage_core.stores.database.retry_while_busy`); at the start of every transaction it
checks that the file at the path is still the one it opened
(:func:`~cage_core.stores.files.changed_file`); it is never used across ``fork()`` (a forked
child opens its own and leaves the parent's untouched, never closing it, as SQLite
requires).

What a store decides for itself is its :class:`~cage_core.stores.opening.StoreKind` (its
tables, its checks, how an error met opening it reads) and the arguments of
:class:`StoreConnection`.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Literal, TypeVar

from cage_core.stores.database import OperationBudget, is_busy, retry_while_busy
from cage_core.stores.files import (
    FileIdentity,
    StoreFileChanged,
    changed_file,
    file_identity,
    remove_stale_side_files,
    wal_bytes,
)
from cage_core.stores.opening import StoreKind, open_store
from cage_core.stores.stamp import (
    ForeignWal,
    begin_checked,
    checked_read,
    checkpoint_own,
    close_held_connection,
    stamped_write,
)

__all__ = ["StoreConnection"]

logger = logging.getLogger(__name__)

_T = TypeVar("_T")


_CONNECTIONS: weakref.WeakSet[StoreConnection] = weakref.WeakSet()
"""Every open store connection in this process, so a forked child can drop them."""
_INHERITED: list[sqlite3.Connection] = []
"""Connections a forked child inherited: kept alive, never used or closed (closing one
could release or checkpoint state that belongs to the parent)."""


class StoreConnection:
    """This process's connection to the store file at ``path`` (module docstring).

    Args:
        path: the store file.
        kind: what makes it a store, and how opening it fails.
        busy_timeout_s: how long SQLite waits for a lock per attempt.
        max_attempts: attempts per operation before the last lock error is raised.
        create: make an empty file a store at open.
        reopen: when the file at the path was replaced, or deleted and put back, open the
            file now there at the next call (``on_reopen(changed)`` first) rather than
            raise ``StoreFileChanged`` at every call.
        pragmas: set on every connection once it is checked (``"cache_size = -1024"``).
        prepared: called with each new connection, before it is used (a further check:
            what it raises closes the connection and is raised).
        drops: which errors of an operation (neither a lock nor a closed store) drop the
            connection, so that the next call opens the file again; a ``ForeignWal``
            always does.
    """

    def __init__(
        self,
        path: Path,
        kind: StoreKind,
        *,
        busy_timeout_s: float,
        max_attempts: int,
        create: bool,
        reopen: bool,
        pragmas: Sequence[str] = (),
        prepared: Callable[[sqlite3.Connection], None] | None = None,
        on_reopen: Callable[[StoreFileChanged], None] | None = None,
        drops: Callable[[BaseException], bool] = lambda exc: False,
    ) -> None:
        self.path = path
        self.kind = kind
        self.busy_timeout_s = busy_timeout_s
        self.max_attempts = max_attempts
        self.create = create
        self.reopen = reopen
        self._pragmas = tuple(pragmas)
        self._prepared = prepared
        self._on_reopen = on_reopen
        self._drops = drops
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._opened: FileIdentity | None = None
        self._sides: tuple[FileIdentity | None, ...] = ()
        self._changed: StoreFileChanged | None = None
        """Set when the file at the path was replaced or deleted: raised by every call."""
        self._closed = False
        self.budget = OperationBudget()
        _CONNECTIONS.add(self)

    def read(self, op: Callable[[sqlite3.Connection], _T]) -> _T:
        """``op(connection)`` in a read transaction whose WAL was checked first (inside
        :meth:`reading`, in its transaction), retried while the database is locked.

        Raises:
            ForeignWal: when the WAL holds another file's commits (the connection is closed;
                the next call opens the file again).
            StoreFileChanged: when the file at the path is not the one opened.
            sqlite3.Error: what ``op`` or SQLite raised (the last lock error when every
                attempt found the database locked).
        """
        return self._attempt(op, "read")

    def write(self, op: Callable[[sqlite3.Connection], _T]) -> _T:
        """``op(connection)`` in one ``BEGIN IMMEDIATE`` transaction that checked the WAL and
        wrote the file's stamp (:func:`~cage_core.stores.stamp.stamped_write`), retried while
        locked; raises as :meth:`read` does, and ``RuntimeError`` inside :meth:`reading`."""
        return self._attempt(op, "write")

    def checkpoint_past(self, bound_bytes: int) -> None:
        """Between two transactions: when the ``-wal`` is longer than ``bound_bytes``, a
        passive checkpoint that copies only the file's own commits
        (:func:`~cage_core.stores.stamp.checkpoint_own`; with ``journal_size_limit`` at the
        bound, the WAL starts over at that length after it)."""
        if wal_bytes(self.path) <= bound_bytes:
            return
        with self._lock:
            conn = self._conn
            if conn is not None and not conn.in_transaction:
                self.budget.start()
                checkpoint_own(self.kind.name, self.path, conn, self._opened)

    @contextmanager
    def reading(self) -> Iterator[bool]:
        """Hold one read transaction: the reads inside see one state of the store. Yields
        whether this block began it (``False`` nested in another)."""
        with self._lock:
            if self._conn is not None and self._conn.in_transaction:
                yield False
                return
            conn = self._attempt(lambda conn: conn, "begin")
            try:
                yield True
            finally:
                if conn.in_transaction:
                    conn.execute("COMMIT")

    def confirm_written(self) -> None:
        """After a commit: the file at the path must still be the one written to.

        Raises:
            StoreFileChanged: when it was replaced or deleted meanwhile (the commit may have
                gone to the old file); every later call raises it too, as after any change.
        """
        with self._lock:
            if self._opened is None:
                return
            changed = changed_file(self.kind.name, self.path, self._opened)
            if changed is None:
                return
            self._leave(changed)
        raise StoreFileChanged(
            f"{changed}; the last write may have gone to the old file: put "
            "those entries again in the store now at the path"
        )

    def close(self) -> None:
        """Close this process's connection; later calls raise ``sqlite3.ProgrammingError``."""
        with self._lock:
            self._closed = True
            if self._conn is not None:
                if self._opened is not None and changed_file(
                    self.kind.name, self.path, self._opened
                ):  # as the next operation would: the old file's -wal leaves the path
                    remove_stale_side_files(self.kind.name, self.path, self._sides)
                close_held_connection(self.kind.name, self.path, self._conn, self._opened)
                self._conn = None

    def connection(self) -> sqlite3.Connection:
        """This process's connection, opened on first use (for tests and tools)."""
        with self._lock:
            return self._connection()

    def _attempt(
        self, op: Callable[[sqlite3.Connection], _T], how: Literal["read", "write", "begin"]
    ) -> _T:
        def run() -> _T:
            with self._lock:
                conn = self._connection()
                self.budget.start()
                try:
                    return self._run(conn, op, how)
                except (sqlite3.Error, OSError) as exc:
                    if isinstance(exc, ForeignWal) or (
                        not isinstance(exc, sqlite3.ProgrammingError)
                        and not is_busy(exc)
                        and self._drops(exc)
                    ):
                        self._forget_connection()
                    raise

        return retry_while_busy(run, self.max_attempts)

    def _run(
        self,
        conn: sqlite3.Connection,
        op: Callable[[sqlite3.Connection], _T],
        how: Literal["read", "write", "begin"],
    ) -> _T:
        """``op(conn)`` in the transaction ``how`` asks for (hold ``_lock``)."""
        name = self.kind.name
        if how == "write":
            if conn.in_transaction:
                raise RuntimeError(f"a {name} cannot be written inside reading()")
            with stamped_write(name, self.path, conn, self._opened):
                return op(conn)
        if conn.in_transaction:
            return op(conn)
        if how == "read":
            with checked_read(name, self.path, conn, self._opened):
                return op(conn)
        begin_checked(name, self.path, conn, self._opened)  # left open for reading()
        return op(conn)

    def _connection(self) -> sqlite3.Connection:
        """This process's connection (opened and checked on first use); hold ``_lock``.

        Raises:
            StoreFileChanged: at the start of a transaction, when the file at the path is not
                the one the connection opened (module docstring), and at every call after.
        """
        if self._closed:
            raise sqlite3.ProgrammingError(f"{self.kind.name} {self.path} is closed")
        if self._changed is not None and not self._reopened():
            raise self._changed
        if self._conn is not None and self._opened is not None and not self._conn.in_transaction:
            changed = changed_file(self.kind.name, self.path, self._opened)
            if changed is not None:
                self._leave(changed)
                if not self._reopened():
                    raise changed
        if self._conn is None:
            self._connect()
        assert self._conn is not None
        return self._conn

    def _connect(self) -> None:
        conn, opened, sides = open_store(
            self.kind,
            self.path,
            timeout=self.busy_timeout_s,
            budget=self.budget,
            create=self.create,
            pragmas=self._pragmas,
        )
        if self._prepared is not None:
            self.budget.start()
            try:
                self._prepared(conn)
            except BaseException:
                close_held_connection(self.kind.name, self.path, conn, opened)
                raise
        self._conn, self._opened, self._sides = conn, opened, sides

    def _reopened(self) -> bool:
        """With ``reopen``, when a file is at the path again: forget the change (after
        ``on_reopen``), so the caller opens the file now there; hold ``_lock``."""
        if not self.reopen or self._changed is None or file_identity(self.path) is None:
            return False
        if self._on_reopen is not None:
            self._on_reopen(self._changed)
        self._changed = None
        return True

    def _leave(self, changed: StoreFileChanged) -> None:
        """Close the connection to a file no longer at the path, for good: every later call
        raises ``changed`` unless :meth:`_reopened` (hold ``_lock``). Its ``-wal`` and
        ``-shm`` leave the path, so whoever opens the file now there does not read the old
        file's commits over it (docs/reliability.md)."""
        self._changed = changed
        remove_stale_side_files(self.kind.name, self.path, self._sides)
        self._forget_connection()  # a moved file: closed without a checkpoint

    def _forget_connection(self) -> None:
        """Close the connection without checkpointing another file's WAL into the file (hold
        ``_lock``); the next call opens the file again."""
        conn, opened = self._conn, self._opened
        self._conn = self._opened = None
        if conn is not None:
            close_held_connection(self.kind.name, self.path, conn, opened)

    def _forget_connection_after_fork(self) -> None:
        """In a forked child: a fresh lock, and the parent's connection left untouched."""
        self._lock = threading.RLock()
        if self._conn is not None:
            _INHERITED.append(self._conn)
            self._conn = None


def _after_fork_in_child() -> None:
    for connection in list(_CONNECTIONS):
        connection._forget_connection_after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
