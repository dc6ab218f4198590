"""One process's connection to a link store file (:mod:`cage_core.expansion.store`): opened
and checked on first use, retried while locked, written in short transactions, never used
across ``fork()``, and never used again once the file at its path was replaced or deleted:
every later call raises ``StoreFileChanged``, or, for a store opened with ``reopen=True``
(the expansion retrievers' own, :func:`~cage_core.expansion.contract.load_link_index`), the
next call once a file is at the path again opens that file (one warning; the new file's
``-wal`` is checked as at any open, :mod:`cage_core.sqlite_stamp`). A write whose commit may
have gone to the old file raises either way.

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
from typing import Any, TypeVar

from cage_core.expansion.link_store_file import (
    MAX_VALUE_BYTES,
    is_empty,
    open_link_database,
    report_empty,
)
from cage_core.expansion.wal_checkpointer import WalCheckpointer
from cage_core.sqlite_files import (
    FileIdentity,
    OperationBudget,
    StoreFileChanged,
    changed_file,
    create_private_file,
    describe,
    file_identity,
    is_busy,
    remove_stale_side_files,
    retry_while_busy,
)
from cage_core.sqlite_stamp import (
    ForeignWal,
    close_held_connection,
    foreign_wal,
    stamped_write,
)

__all__ = ["READ_BATCH_KEYS", "LinkStoreConnection"]

logger = logging.getLogger("cage_core.expansion.store")
"""The link store's log: its messages keep one logger name wherever their code lives."""

READ_BATCH_KEYS = 500
"""Values per ``… IN (…)`` (SQLite's bound-parameter limit is 999 on old builds)."""

_T = TypeVar("_T")

_STORES: weakref.WeakSet[LinkStoreConnection] = weakref.WeakSet()
"""Every open link store in this process, so a forked child can drop their connections."""
_INHERITED: list[sqlite3.Connection] = []
"""Connections a forked child inherited: kept alive, never used or closed."""


class LinkStoreConnection:
    """This process's connection to the link store file at ``path`` (module docstring); the
    base of :class:`~cage_core.expansion.store.SqliteLinkStorage`.

    Args:
        path: the store file.
        create: create it (and its tables) when missing; else a missing file raises.
        busy_timeout_s: how long SQLite waits for a lock per attempt.
        max_attempts: attempts per read or write transaction (at least 1).
        cache_kib: SQLite page cache of this process's connection.
        reopen: when the file at the path was replaced, or deleted and put back, open the
            file now there at the next call (one warning) rather than raise
            ``StoreFileChanged`` at every call (module docstring).

    Raises:
        FileNotFoundError: when ``path`` does not exist and not ``create``.
        LinkIndexFormatError: when the file is not a link store of this version.
    """

    def __init__(
        self,
        path: Path,
        *,
        create: bool,
        busy_timeout_s: float,
        max_attempts: int,
        cache_kib: int,
        reopen: bool = False,
    ) -> None:
        self.path = path
        self._reopen = reopen
        self._busy_timeout_s = busy_timeout_s
        self._max_attempts = max_attempts
        self._cache_kib = cache_kib
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._closed = False
        self._checkpointer: WalCheckpointer | None = None
        self._warned: set[str] = set()
        self._opened: FileIdentity | None = None
        self._changed: StoreFileChanged | None = None
        self._sides: tuple[FileIdentity | None, ...] = ()
        """Set when the file at the path was replaced or deleted: raised by every call."""
        self._budget = OperationBudget()
        self._read_nids: dict[str, tuple[int, int, int]] | None = None
        """Inside :meth:`reading`: ``(nid, keyed, mentioned)`` of each name read by ``counts``."""
        if create:
            if not create_private_file(self.path) and is_empty(self.path):
                report_empty(self.path)
        elif not self.path.is_file():
            raise FileNotFoundError(
                f"no link store at {self.path} (create one with "
                "LinkIndex.open(path, create=True) or cage enrich)"
            )
        self._create = create
        _STORES.add(self)
        self._attempt(lambda conn: None)  # open and check now, so a bad file fails here

    def close(self) -> None:
        """Close this process's connection; later calls raise ``sqlite3.ProgrammingError``."""
        with self._lock:
            self._closed = True
            if self._conn is not None:
                if self._opened is not None and changed_file(
                    "link store", self.path, self._opened
                ):  # as the next operation would: the old file's -wal leaves the path
                    remove_stale_side_files("link store", self.path, self._sides)
                close_held_connection("link store", self.path, self._conn, self._opened)
                self._conn = None
            checkpointer, self._checkpointer = self._checkpointer, None
        if checkpointer is not None:
            checkpointer.stop()

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Hold one read transaction: the reads inside see one state of the store."""
        with self._lock:
            conn = self._connection()
            if conn.in_transaction:  # nested
                yield
                return
            self._attempt(self._begin_checked, snapshot=False)
            self._read_nids = {}
            try:
                yield
            finally:
                self._read_nids = None
                if conn.in_transaction:
                    conn.execute("COMMIT")

    # -- rows ---------------------------------------------------------------------------
    def _warn_once(self, kind: str, message: str, *args: object) -> None:
        """A warning the first time this process meets ``kind`` of bad row; debug after."""
        level = logging.DEBUG if kind in self._warned else logging.WARNING
        self._warned.add(kind)
        logger.log(level, message, *args)

    def _select(self, sql: str, values: list[Any], before: tuple = ()) -> list[tuple]:
        if not values:
            return []
        return self._attempt(lambda conn: self._select_in(conn, sql, values, before))

    def _select_in(
        self, conn: sqlite3.Connection, sql: str, values: list[Any], before: tuple = ()
    ) -> list[tuple]:
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
            with stamped_write("link store", self.path, conn, self._opened):
                return op(conn)

        result = self._attempt(transaction, snapshot=False)
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
            self._attempt(checkpointer.checkpoint_now, snapshot=False)
        except sqlite3.OperationalError as exc:
            logger.debug("link store %s: checkpoint skipped (%s)", self.path, exc)

    def _attempt(self, op: Callable[[sqlite3.Connection], _T], *, snapshot: bool = True) -> _T:
        """``op(connection)`` under the store lock, retried while the database is locked;
        the last ``sqlite3.OperationalError`` is raised when every attempt found it locked,
        any other SQLite error at once, of the same class, its message naming the cause
        (:func:`~cage_core.sqlite_files.describe`). With ``snapshot``, outside a transaction,
        ``op`` runs in a read transaction whose WAL was checked first (:meth:`_begin_checked`).

        Raises:
            ForeignWal: when the WAL beside the file holds another file's commits (the
                connection is closed; the next call opens the file again).
        """

        def run() -> _T:
            with self._lock:
                try:
                    conn = self._connection()
                    self._budget.start()
                    if not snapshot or conn.in_transaction:
                        return op(conn)
                    self._begin_checked(conn)
                    try:
                        return op(conn)
                    finally:
                        if conn.in_transaction:
                            conn.execute("COMMIT")
                except ForeignWal:
                    self._forget_connection()
                    raise

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
        if self._changed is not None and not self._reopened(self._changed):
            raise self._changed
        if self._conn is not None and self._opened is not None and not self._conn.in_transaction:
            changed = changed_file("link store", self.path, self._opened)
            if changed is not None:
                self._drop_connection(changed)
                if not self._reopened(changed):
                    raise changed
        if self._conn is None:
            self._conn, self._opened = self._connect()
        return self._conn

    def _reopened(self, changed: StoreFileChanged) -> bool:
        """With ``reopen``, when a file is at the path again: forget ``changed`` (logged) and
        what was read of the old file, so the caller opens the file now there; hold ``_lock``."""
        if not self._reopen or file_identity(self.path) is None:
            return False
        logger.warning("%s; opening the file now at the path", changed)
        self._changed = None
        self._forget_file()
        return True

    def _forget_file(self) -> None:
        """What a subclass knows of the file it read: dropped before another file is opened."""

    def _begin_checked(self, conn: sqlite3.Connection) -> None:
        """Begin a read transaction whose first read checks the WAL
        (:func:`~cage_core.sqlite_stamp.foreign_wal`), so its snapshot holds none of another
        file's commits.

        Raises:
            ForeignWal: when it would (the transaction is rolled back).
        """
        conn.execute("BEGIN")
        try:
            foreign = foreign_wal("link store", self.path, conn, self._opened)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        if foreign is not None:
            conn.execute("ROLLBACK")
            raise foreign

    def _forget_connection(self) -> None:
        """Close the connection (and the checkpointer's) without checkpointing another file's
        WAL into the file (hold ``_lock``); the next call opens the file again."""
        conn, opened = self._conn, self._opened
        self._conn = self._opened = None
        checkpointer, self._checkpointer = self._checkpointer, None
        if conn is not None:
            close_held_connection("link store", self.path, conn, opened)
        if checkpointer is not None:
            checkpointer.stop()

    def _drop_connection(self, changed: StoreFileChanged) -> None:
        """Close the connection to a file no longer at the path, for good: every later call
        raises ``changed`` (hold ``_lock``). Opening the file now at the path is left to the
        caller: while a process still has the old file open, its ``-wal`` beside the new
        file would mix the two (docs/reliability.md)."""
        self._changed = changed
        remove_stale_side_files("link store", self.path, self._sides)
        conn, opened = self._conn, self._opened
        self._conn = self._opened = None
        checkpointer, self._checkpointer = self._checkpointer, None
        if checkpointer is not None:  # its connection closed too: the last close of the old
            checkpointer.stop()  # file cleans its -wal away from the path
        if conn is not None:
            close_held_connection("link store", self.path, conn, opened)  # moved: no checkpoint

    def _connect(self) -> tuple[sqlite3.Connection, FileIdentity | None]:
        """A checked connection to the file at the path, and that file's identity."""
        conn, opened, self._sides = open_link_database(
            self.path,
            busy_timeout_s=self._busy_timeout_s,
            cache_kib=self._cache_kib,
            create=self._create,
            budget=self._budget,
        )
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


def _after_fork_in_child() -> None:
    for store in list(_STORES):
        store._forget_connection_after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
