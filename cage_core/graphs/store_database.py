"""The graph store's SQLite file: its schema, how it is opened, and the statements the store
runs (:mod:`cage_core.graphs.store` states the sharing and fail-safe rules).

A file is opened read-write when it can be (read-only otherwise), in WAL mode with
``synchronous=NORMAL``; an empty writable file gets the two tables (:data:`TABLES`); a file
whose schema is not exactly these tables is refused (``sqlite3.DatabaseError``, from
:func:`cage_core.sqlite_files.schema_problem`). Values longer than the connection's length
bound raise ``sqlite3.DataError`` before they are read; :func:`rows_within_bound` reads the
others of their batch.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from cage_core.graphs.stored_values import MAX_ENTRY_BYTES, stored_text
from cage_core.sqlite_files import (
    FileIdentity,
    OperationBudget,
    file_identity,
    open_database,
    restrict_side_files,
    schema_problem,
    set_wal,
    side_file_identities,
    write_transaction,
)
from cage_core.sqlite_stamp import (
    checked_read,
    checkpoint_new_store,
    close_connection,
    close_held_connection,
    hold_file,
    open_guard,
    release_file,
    stamp_new_store,
)

__all__ = [
    "TABLES",
    "count_graphs",
    "execute_batch",
    "is_of_the_file",
    "open_graph_database",
    "rows_within_bound",
]

TABLES = {
    "graphs": "CREATE TABLE IF NOT EXISTS graphs (key TEXT PRIMARY KEY, data TEXT NOT NULL)",
    "embeddings": "CREATE TABLE IF NOT EXISTS embeddings "
    "(key TEXT PRIMARY KEY, dim INTEGER NOT NULL, data BLOB NOT NULL)",
}
"""The store's tables, by name: the statement that creates each (and the exact schema)."""


def open_graph_database(
    path: Path, busy_timeout_s: float, budget: OperationBudget
) -> tuple[sqlite3.Connection, FileIdentity | None, tuple[FileIdentity | None, ...]]:
    """``(connection, identity of the file opened, identities of its side files)``: the store
    file at ``path`` opened (module docstring), with ``budget`` installed; opened again when
    the file was replaced while opening.

    Raises:
        ForeignWal: when the ``-wal`` beside the file holds another file's commits
            (:mod:`cage_core.sqlite_stamp`; no read-write connection opened it).
    """
    opened = file_identity(path)
    hold_file(path, opened)  # released by whoever closes the connection, or here
    try:
        guard = open_guard("graph store", path, opened, busy_timeout_s)
        try:
            conn, mode = _open_checked(path, opened, busy_timeout_s, budget)
        finally:
            if guard is not None:
                guard.close()
    except BaseException:
        release_file(opened)
        raise
    if mode == "rw":
        restrict_side_files(path)
    if file_identity(path) != opened:  # replaced while opening: open again
        close_held_connection("graph store", path, conn, opened)
        return open_graph_database(path, busy_timeout_s, budget)
    return conn, opened, side_file_identities(path)


def _open_checked(
    path: Path, opened: FileIdentity | None, busy_timeout_s: float, budget: OperationBudget
) -> tuple[sqlite3.Connection, str]:
    """The connection of :func:`open_graph_database` and its mode, its WAL checked first, a
    new store given its stamp (:mod:`cage_core.sqlite_stamp`)."""
    conn, mode = open_database(
        "graph store",
        path,
        timeout=busy_timeout_s,
        max_value_bytes=MAX_ENTRY_BYTES + 1024,
    )
    conn.text_factory = stored_text
    try:
        with checked_read("graph store", path, conn, opened):
            pass
        conn.execute("PRAGMA synchronous=NORMAL")  # crash-safe in WAL mode
        tables = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        if not {row[0] for row in tables} and mode == "rw":
            set_wal(conn, "graph store", path)
            with write_transaction(conn):
                for statement in TABLES.values():
                    conn.execute(statement)
                stamp_new_store(conn)
            checkpoint_new_store(conn)
        problem = schema_problem(conn, tuple(TABLES.values()))
        if problem is not None:
            raise sqlite3.DatabaseError(f"not a cage graph store: {problem}")
        if mode == "rw":
            set_wal(conn, "graph store", path)
        budget.install(conn)
    except BaseException:
        close_connection("graph store", path, conn, opened)
        raise
    return conn, mode


def execute_batch(sql: str, batch: list[tuple], conn: sqlite3.Connection) -> None:
    """``sql`` for every row of ``batch`` (inside the caller's write transaction)."""
    conn.executemany(sql, batch)


def is_of_the_file(exc: BaseException) -> bool:
    """Whether ``exc`` may mean the open file itself is gone or bad (the next use reopens),
    rather than a refused write (read-only, full) or one oversized value."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(exc, sqlite3.DataError) or code is None:
        return not isinstance(exc, sqlite3.DataError)
    return (code & 0xFF) not in (
        sqlite3.SQLITE_READONLY,
        sqlite3.SQLITE_FULL,
        sqlite3.SQLITE_TOOBIG,
    )


def rows_within_bound(
    conn: sqlite3.Connection,
    table: str,
    columns: str,
    keys: list[str],
    oversized: Callable[[str], None],
) -> list[tuple]:
    """Rows of ``table`` for ``keys``; where one holds a value past the connection's length
    bound (``sqlite3.DataError``, raised before the value is read), the others key by key,
    and ``oversized(key)`` for each such one."""
    sql = f"SELECT {columns} FROM {table} WHERE key IN ({','.join('?' * len(keys))})"
    try:
        return conn.execute(sql, keys).fetchall()
    except sqlite3.DataError:
        pass
    rows: list[tuple] = []
    for key in keys:
        try:
            rows += conn.execute(f"SELECT {columns} FROM {table} WHERE key = ?", (key,)).fetchall()
        except sqlite3.DataError:
            oversized(key)
    return rows


def count_graphs(conn: sqlite3.Connection) -> int:
    """The number of stored graphs."""
    return int(conn.execute("SELECT COUNT(*) FROM graphs").fetchone()[0])
