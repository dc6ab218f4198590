"""A store file on disk: created private, named by its identity, its side files its own.

What both stores (:mod:`cage_core.stores`) do with the file itself:

* the file is created 0600 in a directory created 0700, race-free (:func:`create_private_file`),
  and SQLite gives its ``-wal`` / ``-shm`` side files the file's mode whenever it creates them;
* the store is the file at the path: :func:`file_identity` (device and inode) is taken when
  a connection opens and compared at every transaction (:func:`changed_file`), so a file
  replaced or deleted under an open store is noticed, never silently read or written; the
  ``-wal`` and ``-shm`` a replaced file left at the path are removed by whoever had it open
  (:func:`remove_stale_side_files`), and the ``-wal`` beside a file is checked to be the
  file's own by its stamp (:mod:`cage_core.stores.stamp`).
"""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

__all__ = [
    "FILE_MODE",
    "FileIdentity",
    "StoreFileChanged",
    "changed_file",
    "create_private_file",
    "file_identity",
    "remove_stale_side_files",
    "side_file_identities",
    "wal_bytes",
    "wal_has_frames",
]

logger = logging.getLogger(__name__)

FILE_MODE = 0o600
DIR_MODE = 0o700
SIDE_FILE_SUFFIXES = ("-wal", "-shm")
WAL_HEADER_BYTES = 32
"""A ``-wal`` file no longer than its header holds no commit."""


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


def wal_bytes(path: Path) -> int:
    """The length of the ``-wal`` beside ``path`` (0 when there is none)."""
    try:
        return os.stat(str(path) + "-wal").st_size
    except OSError:
        return 0


def wal_has_frames(path: Path) -> bool:
    """Whether a ``-wal`` beside ``path`` may hold commits (is longer than its header)."""
    return wal_bytes(path) > WAL_HEADER_BYTES
