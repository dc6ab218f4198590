"""The graph store's SQLite file: its schema (:data:`GRAPH_STORE`, opened by the store layer,
:func:`cage_core.stores.opening.open_store`), and how :class:`GraphStoreFile` reads and writes
it as a cache must (:mod:`cage_core.graphs.store` states the rules).
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from cage_core.graphs.stored_values import MAX_ENTRY_BYTES
from cage_core.stores.connection import StoreConnection
from cage_core.stores.database import (
    describe,
    is_busy,
    rows_within_bound,
    schema_problem,
)
from cage_core.stores.opening import StoreKind

__all__ = [
    "GRAPH_STORE",
    "STORAGE_ERRORS",
    "WRITE_BATCH_ROWS",
    "GraphStoreFile",
    "is_of_the_file",
]

logger = logging.getLogger("cage_core.graphs.store")  # the graph store's log, from any module

WRITE_BATCH_ROWS = 256
"""Entries per write transaction: short enough that other writers wait only briefly."""
STORAGE_ERRORS = (sqlite3.DatabaseError, OSError)
"""What a storage failure raises (``sqlite3.ProgrammingError``, a closed store, is not one)."""

_T = TypeVar("_T")

TABLES = {
    "graphs": "CREATE TABLE IF NOT EXISTS graphs (key TEXT PRIMARY KEY, data TEXT NOT NULL)",
    "embeddings": "CREATE TABLE IF NOT EXISTS embeddings "
    "(key TEXT PRIMARY KEY, dim INTEGER NOT NULL, data BLOB NOT NULL)",
}
"""The store's tables, by name: the statement that creates each (and the exact schema)."""


def _create(conn: sqlite3.Connection) -> None:
    for statement in TABLES.values():
        conn.execute(statement)


def _check(conn: sqlite3.Connection, path: Path) -> None:
    problem = schema_problem(conn, tuple(TABLES.values()))
    if problem is not None:
        raise sqlite3.DatabaseError(f"not a cage graph store: {problem}")


GRAPH_STORE = StoreKind("graph store", MAX_ENTRY_BYTES + 1024, _create, _check)
"""A graph store file, as the store layer opens it."""


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


class GraphStoreFile:
    """The graph store's file as the store reads and writes it (module docstring).

    Args:
        db: the store's connection.
    """

    def __init__(self, db: StoreConnection) -> None:
        self.db = db
        self.path = db.path
        self.failures = 0
        """Storage errors met: each made a lookup a miss or dropped a write."""
        self._reported: set[str] = set()

    def attempt(
        self,
        op: Callable[[sqlite3.Connection], _T],
        consequence: str,
        *,
        write: bool = False,
        busy: str | None = None,
    ) -> tuple[bool, _T | None]:
        """``(True, op(connection))`` in a read transaction, or with ``write`` a write
        transaction (:class:`~cage_core.stores.connection.StoreConnection`: retried while
        locked); ``(False, None)`` on a storage error, logged with its ``consequence``
        (``busy``, when given, if every attempt found the database locked). A closed store
        raises ``sqlite3.ProgrammingError``."""
        try:
            return True, self.db.write(op) if write else self.db.read(op)
        except sqlite3.ProgrammingError:
            raise  # closed
        except STORAGE_ERRORS as exc:
            if is_busy(exc):
                logger.warning(
                    "graph store %s: still locked after %d attempts; %s",
                    self.path,
                    self.db.max_attempts,
                    busy or consequence,
                )
            else:
                self.failed(exc, consequence)
            return False, None

    def failed(self, exc: BaseException, consequence: str) -> None:
        """Count a storage error; warn the first time this store meets its kind."""
        self.failures += 1
        cause = describe(exc)
        kind = cause.split(" (")[0]
        level = logging.DEBUG if kind in self._reported else logging.WARNING
        self._reported.add(kind)
        logger.log(level, "graph store %s: %s; %s", self.path, cause, consequence)

    def select(self, table: str, columns: str, keys: Sequence[str]) -> list[tuple]:
        """Rows of ``table`` for the distinct ``keys``; [] with a warning on a storage error."""
        unique = list(dict.fromkeys(keys))
        if not unique:
            return []

        def read(conn: sqlite3.Connection) -> list[tuple]:
            sql = f"SELECT {columns} FROM {table} WHERE key IN"
            return rows_within_bound(conn, sql, unique, self._oversized)

        _, rows = self.attempt(read, f"{len(unique)} {table} lookups count as misses")
        return rows or []

    def write(self, table: str, sql: str, rows: list[tuple]) -> None:
        """Run ``sql`` for every row, one ``BEGIN IMMEDIATE`` transaction per batch.

        If a batch stays locked through every attempt, it and the rest are dropped with a
        warning; the batches before it stay committed.
        """
        for start in range(0, len(rows), WRITE_BATCH_ROWS):
            batch = rows[start : start + WRITE_BATCH_ROWS]
            dropped = f"dropped {len(rows) - start} {table} writes"

            def run(conn: sqlite3.Connection, batch: list[tuple] = batch) -> object:
                return conn.executemany(sql, batch)

            done, _ = self.attempt(run, dropped, write=True)
            if not done:
                return

    def _oversized(self, key: str) -> None:
        self.failed(
            sqlite3.DataError("value too large"),
            f"entry {key[:12]} is larger than {MAX_ENTRY_BYTES} bytes; a miss",
        )
