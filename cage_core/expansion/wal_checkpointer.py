"""The link store's background WAL checkpointer (:mod:`cage_core.expansion.store`).

A writer does not checkpoint the WAL into the database file inside its commit (SQLite's
automatic checkpoint is off: it doubled the time of adding 1,000 entries to a store of 1M);
after each commit it wakes a :class:`WalCheckpointer` thread, which runs a passive checkpoint
on a connection of its own while the writer goes on (SQLite's recommended way,
sqlite.org/wal.html). When the WAL has grown past ``WAL_CHECKPOINT_PAGES`` pages, the writer
checkpoints it itself between two transactions (:meth:`WalCheckpointer.request` says when,
:meth:`WalCheckpointer.checkpoint_now` does it).

A checkpoint copies only commits of the file's own: it runs while a read-only connection
holds a snapshot whose WAL it found to be the file's (:func:`~cage_core.sqlite_stamp.foreign_wal`;
a checkpoint never copies past a reader's snapshot), so the commits of a file that was
replaced at the path while its writer still wrote into the ``-wal`` there are never copied
into the file now at the path.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

from cage_core.sqlite_files import FileIdentity, file_identity
from cage_core.sqlite_stamp import (
    ForeignWal,
    close_held_connection,
    foreign_wal,
    hold_file,
    release_file,
)

__all__ = ["WAL_CHECKPOINT_PAGES", "WalCheckpointer"]

logger = logging.getLogger("cage_core.expansion.store")
"""The link store's log: its messages keep one logger name wherever their code lives."""

WAL_CHECKPOINT_PAGES = 65_536
"""A writer checkpoints the WAL itself after a commit that leaves more pages in it than this
(64 MiB of 1 KiB pages): the bound on the WAL while the background thread falls behind."""
_INHERITED: list[sqlite3.Connection] = []
"""Connections a forked child inherited: kept alive, never used or closed."""


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
        self._guard: sqlite3.Connection | None = None
        """A read-only connection whose snapshot bounds each checkpoint (module docstring)."""
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name=f"cage-wal-{path.name}", daemon=True)
        self._thread.start()

    def request(self) -> bool:
        """Ask for a checkpoint; ``True`` when the WAL held more than ``WAL_CHECKPOINT_PAGES``
        pages at the last one or the thread is gone: the caller should checkpoint now, between
        its transactions, so that its next one starts the WAL over (a writer that never
        pauses never lets the thread catch up)."""
        self._wake.set()
        return self._wal_pages > WAL_CHECKPOINT_PAGES or not self._thread.is_alive()

    def checkpoint_now(self, conn: sqlite3.Connection) -> None:
        """Checkpoint on ``conn``, a writer's connection between two transactions, as the
        thread does (module docstring).

        Raises:
            ForeignWal: when the WAL holds another file's commits (nothing is copied).
            sqlite3.Error: when the checkpoint fails.
        """
        guard = self._connect("ro")
        try:
            foreign = self._guarded_checkpoint(conn, guard)
        finally:
            guard.close()
        if foreign is not None:
            raise foreign

    def stop(self, *, wait: bool = True) -> None:
        """A last checkpoint, then the thread ends (``wait``: for at most ``busy_timeout_s``)."""
        self._stopping = True
        self._wake.set()
        if wait and self._thread is not threading.current_thread():
            self._thread.join(self._busy_timeout_s + 1.0)

    def forget_after_fork(self) -> None:
        """In a forked child: the parent's thread is not here; its connection is never used."""
        self._lock = threading.Lock()
        for conn in (self._conn, self._guard):
            if conn is not None:
                _INHERITED.append(conn)
        self._conn = self._guard = None

    def _run(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            self._checkpoint()
            if self._stopping:
                with self._lock:
                    self._close()
                return

    def _checkpoint(self) -> None:
        with self._lock:
            try:
                now = file_identity(self.path)
                if now is None or (self._opened is not None and now != self._opened):
                    self._close()  # the file it checkpointed is gone from the path
                    return
                if self._conn is None:
                    self._opened = self._opened or now
                    hold_file(self.path, self._opened)  # released by _close
                    try:
                        self._conn = self._connect("rw")  # never creates the file
                    except sqlite3.Error:
                        release_file(self._opened)
                        raise
                if self._guard is None:
                    self._guard = self._connect("ro")
                foreign = self._guarded_checkpoint(self._conn, self._guard)
                if foreign is not None:
                    logger.debug("%s; not checkpointed", foreign)
                    self._close()
            except sqlite3.Error as exc:
                logger.debug("link store %s: checkpoint failed (%s)", self.path, exc)

    def _guarded_checkpoint(
        self, conn: sqlite3.Connection, guard: sqlite3.Connection
    ) -> ForeignWal | None:
        """A passive checkpoint on ``conn`` while ``guard`` holds a snapshot whose WAL is the
        file's own; the error, and no checkpoint, when it is another file's."""
        guard.execute("BEGIN")
        try:
            foreign = foreign_wal("link store", self.path, guard, self._opened)
            if foreign is not None:
                return foreign
            row = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        finally:
            guard.execute("ROLLBACK")
        if not row[0] and row[1] == row[2]:  # all copied: the next write starts the WAL over
            self._wal_pages = 0
        else:
            self._wal_pages = row[1]  # the WAL restarts only after a checkpoint that caught up
        return None

    def _connect(self, mode: str) -> sqlite3.Connection:
        return sqlite3.connect(
            f"{self.path.absolute().as_uri()}?mode={mode}",
            uri=True,
            timeout=self._busy_timeout_s,
            isolation_level=None,
            check_same_thread=False,
        )

    def _close(self) -> None:
        """Close both connections (hold ``_lock``): the guard first, so that the last close
        of the file, when it is this one, checkpoints and removes the WAL (when the WAL is
        the file's own: :func:`~cage_core.sqlite_stamp.close_connection`)."""
        guard, conn, self._guard, self._conn = self._guard, self._conn, None, None
        if guard is not None:
            guard.close()
        if conn is not None:
            close_held_connection("link store", self.path, conn, self._opened)
