"""Which file a ``-wal`` belongs to: the identity stamp of a store file (issue 40, row 3).

SQLite keeps a store's recent commits in the ``-wal`` file beside it, found by name. When a
rebuilt store is moved over a live one (``os.replace``) while a process has the live one
open, that process's ``-wal`` stays at the path: whoever opens the path next reads the old
store's commits over the new file (old entries, a mix, or "malformed"), until a process that
had the old file open notices and removes them
(:func:`~cage_core.stores.files.remove_stale_side_files`). Worse, when such a newcomer
closes a read-write connection as the new file's only one, SQLite checkpoints that WAL into
the new file (it takes the WAL for the file's own), and the rebuilt store is overwritten with
pages of the old one for good.

So each store file carries a random stamp in its SQLite header (``PRAGMA user_version``,
bytes 60..63; 1 to 2³¹ - 1, never 0): written by the store's creating transaction and
checkpointed into the file then, or by the first write to a store made before stamps. Every
write transaction of ours writes it again (:func:`stamped_write`), so page 1 is in every
commit a WAL holds, and the stamp SQLite reads (from the WAL's last page 1, if
it holds one) is that of the file whose commits the WAL holds. The stamp in the file's own
header is read from the file, without SQLite (:func:`header_stamp`). The two differ when
the ``-wal`` beside the file holds another file's commits (or a store was copied into it
with SQLite's backup API without its stamp, which looks the same: docs/reliability.md):
:func:`foreign_wal` compares them at the start of a transaction, inside its snapshot (so
the late commit of an old writer cannot slip in after the check), and says so as
:class:`ForeignWal`, a :class:`~cage_core.stores.files.StoreFileChanged`. A header stamp of
0 (a store made before stamps, not checkpointed since) is not compared.

Reading the header needs a file descriptor that is never closed while SQLite holds locks on
the file in this process: POSIX drops all of a process's locks on a file when it closes any
descriptor of it (measured: another process's close then took itself for the last one and
deleted the WAL this process was writing to). So one descriptor per file is opened before
the first connection of ours to it (:func:`hold_file`) and closed after the last one closed
(:func:`release_file`). A connection to the same file that is not cage-rag's, open in the
same process past that moment, loses its locks then (as SQLite warns of any other opening
of a database file, sqlite.org/howtocorrupt.html, 2.2).

A read-write connection that may have read a foreign WAL is closed while a read-only
connection holds the file (:func:`close_connection`), so its close checkpoints nothing; and
a store is opened through such a read-only connection first when a ``-wal`` with frames is
beside it (:func:`open_guard`), so no read-write connection ever opens a foreign WAL then.

Not detected: a copy of the same store moved over it (a backup copy has the same stamp: copy
it *into* the live store with SQLite's backup API, ``.restore``); a store whose header stamp
is still 0; two stores that drew the same stamp (odds of 1 in 2³¹). Not kept out: a late
commit of an old writer that lands in the instant between a closing connection's check and
its close, or between a graph-store commit and the automatic checkpoint SQLite runs right
after it (the link store checkpoints with :func:`checkpoint_own` instead).
"""

from __future__ import annotations

import logging
import os
import secrets
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from cage_core.stores.database import connect, write_transaction
from cage_core.stores.files import (
    FileIdentity,
    StoreFileChanged,
    file_identity,
    wal_has_frames,
)

__all__ = [
    "ForeignWal",
    "begin_checked",
    "checked_read",
    "checkpoint_own",
    "close_connection",
    "close_held_connection",
    "foreign_wal",
    "hold_file",
    "open_guard",
    "read_stamp",
    "release_file",
    "stamped_write",
]

logger = logging.getLogger(__name__)

STAMP_OFFSET = 60
"""Where ``PRAGMA user_version`` lives in a SQLite file's header (4 bytes, big-endian)."""
_STAMP_LIMIT = 2**31 - 1


class ForeignWal(StoreFileChanged):
    """The ``-wal`` beside a store file holds another file's commits (module docstring)."""


def read_stamp(conn: sqlite3.Connection) -> int:
    """The stamp SQLite reads for ``conn``'s database (the WAL's last page 1, if it has one)."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def header_stamp(opened: FileIdentity) -> int | None:
    """The stamp in the header of the file ``opened`` as it is on disk (bytes 60..63, read
    without SQLite, :func:`hold_file`); ``None`` when this process holds no descriptor of
    it, 0 for a file shorter than a header."""
    with _HELD_LOCK:
        held = _HELD.get(opened)
        if held is None or not held.fds:
            return None
        try:
            header = os.pread(held.fds[0], 4, STAMP_OFFSET)
        except OSError:
            return None
    return int.from_bytes(header, "big") if len(header) == 4 else 0


def foreign_wal(
    store: str, path: Path, conn: sqlite3.Connection, opened: FileIdentity | None
) -> ForeignWal | None:
    """The error to raise when the ``-wal`` beside ``path`` holds another file's commits.

    Call it as the first read of a transaction of ``conn`` (its snapshot), on the file
    ``opened``; raises the ``sqlite3.Error`` of that read."""
    return _compared(store, path, read_stamp(conn), opened)


def _compared(store: str, path: Path, seen: int, opened: FileIdentity | None) -> ForeignWal | None:
    """:func:`foreign_wal` for the stamp ``seen`` through SQLite."""
    on_disk = None if opened is None else header_stamp(opened)
    if not on_disk or seen == on_disk:
        return None
    return ForeignWal(
        f"{store} {path}: the -wal file beside it holds another file's commits (stamp "
        f"{seen}; this file's is {on_disk}), so nothing was read or written: a store was "
        "moved over this one (os.replace, mv) while a process had it open, and that process still "
        "holds its -wal (it removes it at its next operation on the store or its close; "
        "or stop it), or one was copied into it with SQLite's backup API without this "
        "store's stamp. docs/reliability.md says how to replace a live store"
    )


@contextmanager
def stamped_write(
    store: str, path: Path, conn: sqlite3.Connection, opened: FileIdentity | None
) -> Iterator[None]:
    """A ``BEGIN IMMEDIATE`` transaction that first checks the WAL (:func:`foreign_wal`), then
    writes the file's stamp again (a new one into a store without one), so that its commit
    holds page 1; rolled back on any error.

    Raises:
        ForeignWal: when the WAL holds another file's commits (nothing is written)."""
    with write_transaction(conn):
        seen = read_stamp(conn)
        foreign = _compared(store, path, seen, opened)
        if foreign is not None:
            raise foreign
        conn.execute(f"PRAGMA user_version = {seen or secrets.randbelow(_STAMP_LIMIT) + 1}")
        yield


def begin_checked(
    store: str, path: Path, conn: sqlite3.Connection, opened: FileIdentity | None
) -> None:
    """Begin a read transaction whose first read checks the WAL (:func:`foreign_wal`), so that
    its snapshot holds none of another file's commits (the caller ends it).

    Raises:
        ForeignWal: when it would (the transaction is rolled back; nothing is read).
    """
    conn.execute("BEGIN")
    try:
        foreign = foreign_wal(store, path, conn, opened)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    if foreign is not None:
        conn.execute("ROLLBACK")
        raise foreign


@contextmanager
def checked_read(
    store: str, path: Path, conn: sqlite3.Connection, opened: FileIdentity | None
) -> Iterator[None]:
    """A read transaction begun by :func:`begin_checked`, ended after, also on error."""
    begin_checked(store, path, conn, opened)
    try:
        yield
    finally:
        if conn.in_transaction:
            conn.execute("ROLLBACK")  # it wrote nothing


def checkpoint_own(
    store: str, path: Path, conn: sqlite3.Connection, opened: FileIdentity | None
) -> None:
    """A passive checkpoint on ``conn``, between its transactions, that copies only commits of
    the file ``opened``: it runs while a read-only connection holds a snapshot whose WAL it
    found to be the file's own (a checkpoint never copies past a reader's snapshot; none when
    the WAL is another file's). Errors are logged at debug level."""
    try:
        with open_guard(store, path, opened, timeout=0.0) as guarded:
            if guarded:
                conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    except ForeignWal as foreign:
        logger.debug("%s; not checkpointed", foreign)
    except sqlite3.Error as exc:
        logger.debug("%s %s: checkpoint skipped (%s)", store, path, exc)


@contextmanager
def open_guard(
    store: str, path: Path, opened: FileIdentity | None, timeout: float
) -> Iterator[bool]:
    """Hold, for the block, a read-only connection to the file ``opened`` at ``path``, in a
    read transaction, that found the WAL beside it to be the file's own (while it is open, no
    other connection's close is the file's last, so none checkpoints); yields whether one is
    held: none when no WAL with frames is beside the file, or the file cannot be opened
    read-only (a WAL then cannot be read either).

    Raises:
        ForeignWal: when the WAL holds another file's commits (before the block).
        sqlite3.Error: when reading the file fails otherwise (locked, damaged).
    """
    guard, foreign = _checked_guard(store, path, opened, timeout)
    try:
        if foreign is not None:
            raise foreign
        yield guard is not None
    finally:
        if guard is not None:
            guard.close()  # read-only: its close writes nothing into the file


def close_connection(
    store: str, path: Path, conn: sqlite3.Connection, opened: FileIdentity | None
) -> None:
    """Close ``conn`` (a connection to the file ``opened``) so that its close never
    checkpoints another file's WAL into the file: when a WAL with frames is beside the file,
    a read-only connection checks it first (:func:`foreign_wal`) and, when it is foreign,
    stays open across the close (module docstring). A file no longer at ``path`` needs no
    guard: SQLite never checkpoints into a moved or deleted file. Errors are logged at debug
    level."""
    guard: sqlite3.Connection | None = None
    if opened is not None and file_identity(path) == opened:
        try:
            guard, foreign = _checked_guard(store, path, opened, timeout=0.0)
        except sqlite3.Error as exc:
            logger.debug("%s %s: WAL not checked at close (%s)", store, path, exc)
        else:
            if foreign is None and guard is not None:
                guard.close()  # the WAL is the file's own: the close may checkpoint it
                guard = None
            elif foreign is not None:
                logger.info("%s; closed without a checkpoint", foreign)
    try:
        conn.close()
    except sqlite3.Error as exc:
        logger.debug("%s %s: closing a connection failed (%s)", store, path, exc)
    finally:
        if guard is not None:
            guard.close()


def _checked_guard(
    store: str, path: Path, opened: FileIdentity | None, timeout: float
) -> tuple[sqlite3.Connection | None, ForeignWal | None]:
    """A read-only connection to ``path`` in a read transaction, and what :func:`foreign_wal`
    says of it; ``(None, None)`` when no WAL with frames is beside the file or it cannot be
    opened read-only."""
    if opened is None or not wal_has_frames(path):
        return None, None
    try:
        guard = connect(path, "mode=ro", timeout)
    except sqlite3.Error:
        return None, None
    try:
        guard.execute("BEGIN")
        return guard, foreign_wal(store, path, guard, opened)
    except sqlite3.Error as exc:
        guard.close()
        code = getattr(exc, "sqlite_errorcode", None)
        if code is not None and (code & 0xFF) in (sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY):
            return None, None  # no -shm it may create: the file is read with immutable=1
        raise


class _Held(NamedTuple):
    fds: list[int]
    """Descriptors of the file (the first is read; more only when the path changed files
    while one was being opened)."""
    connections: int


_HELD: dict[FileIdentity, _Held] = {}
"""The store files this process has connections of ours to (module docstring)."""
_HELD_LOCK = threading.Lock()


def hold_file(path: Path, opened: FileIdentity | None) -> None:
    """Count one more connection of ours to the file ``opened`` at ``path`` (call before
    opening it): while any is counted, a descriptor of the file stays open for
    :func:`header_stamp`."""
    if opened is None:
        return
    with _HELD_LOCK:
        held = _HELD.get(opened)
        if held is not None:
            _HELD[opened] = held._replace(connections=held.connections + 1)
            return
        fds: list[int] = []
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            pass  # no stamp is read: the file is checked by its identity alone
        else:
            info = os.fstat(fd)
            found = FileIdentity(info.st_dev, info.st_ino)
            if found == opened:
                fds.append(fd)
            elif found in _HELD:  # the path holds another file now, one of ours: keep it
                _HELD[found].fds.append(fd)  # open as long as that one is
            else:
                os.close(fd)  # no connection of ours to that file: no lock of ours to drop
        _HELD[opened] = _Held(fds, 1)


def close_held_connection(
    store: str, path: Path, conn: sqlite3.Connection, opened: FileIdentity | None
) -> None:
    """:func:`close_connection`, then :func:`release_file`: the close of a connection opened
    on a file this process holds (:func:`hold_file`)."""
    close_connection(store, path, conn, opened)
    release_file(opened)


def release_file(opened: FileIdentity | None) -> None:
    """One connection of ours to the file ``opened`` fewer (call after closing it): the
    descriptor is closed with the last (module docstring)."""
    if opened is None:
        return
    with _HELD_LOCK:
        held = _HELD.get(opened)
        if held is None:
            return
        if held.connections > 1:
            _HELD[opened] = held._replace(connections=held.connections - 1)
            return
        del _HELD[opened]
    for fd in held.fds:
        os.close(fd)


def _after_fork_in_child() -> None:
    global _HELD_LOCK
    _HELD_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
