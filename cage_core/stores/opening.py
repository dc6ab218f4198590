"""How a store file is opened: the sequence both stores share, and what makes a file a store
of one kind (:class:`StoreKind`).

A file is opened read-write when it can be, read-only otherwise
(:func:`~cage_core.stores.database.open_database`: never created here); the ``-wal`` beside
it is checked to be the file's own before any read-write connection of ours holds it
(:func:`~cage_core.stores.stamp.open_guard`) and again as the connection's first read; an
empty file is made a store only when asked (``create``), with its stamp; then the file is
checked by its kind (schema, meta) and set up (WAL mode, ``synchronous=NORMAL``, the
store's pragmas, the time limit on each operation). A file replaced at the path while it
was being opened is opened again.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from cage_core.stores.database import (
    OperationBudget,
    is_busy,
    open_database,
    set_wal,
    stored_text,
)
from cage_core.stores.files import (
    FileIdentity,
    StoreFileChanged,
    file_identity,
    side_file_identities,
)
from cage_core.stores.stamp import (
    checked_read,
    close_connection,
    close_held_connection,
    hold_file,
    open_guard,
    release_file,
    stamped_write,
)

__all__ = ["StoreKind", "open_store"]


@dataclass(frozen=True)
class StoreKind:
    """What makes a SQLite file a store of one kind, and how opening one fails."""

    name: str
    """How messages name it: ``"graph store"``, ``"link store"``."""
    max_value_bytes: int
    """Longest value a connection reads (``SQLITE_LIMIT_LENGTH``)."""
    create: Callable[[sqlite3.Connection], None]
    """Make an empty file a store: its tables and first rows (inside the creating transaction)."""
    check: Callable[[sqlite3.Connection, Path], None]
    """Raise when the file opened is not a sound store of this kind (its schema, its meta)."""
    page_size: int | None = None
    """Bytes per page of a new store (``None``: SQLite's)."""
    precheck: Callable[[Path, FileIdentity | None, bool], None] = lambda *_: None
    """``precheck(path, identity, create)`` before anything is opened (raises to refuse)."""
    open_error: Callable[[Path, sqlite3.Error], BaseException] = lambda path, exc: exc
    """The error to raise for a SQLite error met opening the file (neither a lock nor
    :class:`~cage_core.stores.files.StoreFileChanged`, which are raised as they are)."""


def open_store(
    kind: StoreKind,
    path: Path,
    *,
    timeout: float,
    budget: OperationBudget,
    create: bool,
    pragmas: Sequence[str] = (),
) -> tuple[sqlite3.Connection, FileIdentity | None, tuple[FileIdentity | None, ...]]:
    """A checked connection to the store file at ``path``, the identity of the file it
    opened, and those of its side files. The file is opened read-write when it can be
    (read-only otherwise), its WAL checked to be its own first
    (:func:`~cage_core.stores.stamp.open_guard`: while it is checked, no read-write
    connection of ours holds it), an empty file made a store with ``create`` (in a
    :func:`~cage_core.stores.stamp.stamped_write`), the file checked (``kind.check``), WAL
    mode, ``synchronous=NORMAL``, ``pragmas`` and ``budget`` installed; opened again when
    the file was replaced while opening.

    Raises:
        ForeignWal: when the ``-wal`` beside the file holds another file's commits.
        sqlite3.Error: a lock, or what ``kind.open_error`` makes of any other SQLite error.
    """
    opened = file_identity(path)
    kind.precheck(path, opened, create)
    hold_file(path, opened)  # released by whoever closes the connection, or here
    try:
        with open_guard(kind.name, path, opened, timeout):
            conn = _open_checked(kind, path, opened, timeout, create, pragmas)
    except BaseException as exc:
        release_file(opened)
        if isinstance(exc, sqlite3.Error) and not isinstance(exc, StoreFileChanged):
            mapped = exc if is_busy(exc) else kind.open_error(path, exc)
            if mapped is not exc:
                raise mapped from None
        raise
    budget.install(conn)
    if file_identity(path) != opened:  # replaced while opening: open the new one
        close_held_connection(kind.name, path, conn, opened)
        return open_store(
            kind, path, timeout=timeout, budget=budget, create=create, pragmas=pragmas
        )
    return conn, opened, side_file_identities(path)


def _open_checked(
    kind: StoreKind,
    path: Path,
    opened: FileIdentity | None,
    timeout: float,
    create: bool,
    pragmas: Sequence[str],
) -> sqlite3.Connection:
    """The connection of :func:`open_store` (closed again on any error)."""
    conn, mode = open_database(
        kind.name, path, timeout=timeout, max_value_bytes=kind.max_value_bytes
    )
    conn.text_factory = stored_text
    try:
        with checked_read(kind.name, path, conn, opened):
            pass
        tables = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        if not tables and create:
            if kind.page_size is not None:
                conn.execute(f"PRAGMA page_size = {kind.page_size}")  # only an empty file takes it
            set_wal(conn, kind.name, path)
            with stamped_write(kind.name, path, conn, opened):  # racing creators: one stamp
                kind.create(conn)
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()  # the stamp into the file
        kind.check(conn, path)
        if mode == "rw":
            set_wal(conn, kind.name, path)
        conn.execute("PRAGMA synchronous=NORMAL")  # crash-safe in WAL mode
        for pragma in pragmas:
            conn.execute(f"PRAGMA {pragma}")
    except BaseException:
        close_connection(kind.name, path, conn, opened)
        raise
    return conn
