"""The link store's background WAL checkpointer (:mod:`cage_core.expansion.store`).

A writer does not checkpoint the WAL into the database file inside its commit (SQLite's
automatic checkpoint is off: it doubled the time of adding 1,000 entries to a store of 1M);
after each commit it wakes a :class:`WalCheckpointer` thread, which runs a passive checkpoint
on a connection of its own while the writer goes on (SQLite's recommended way,
sqlite.org/wal.html). When the WAL has grown past ``WAL_CHECKPOINT_PAGES`` pages, the writer
checkpoints it itself between two transactions (:meth:`WalCheckpointer.request` says when).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

from cage_core.sqlite_files import FileIdentity, file_identity

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
        self._thread = threading.Thread(target=self._run, name=f"cage-wal-{path.name}", daemon=True)
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
