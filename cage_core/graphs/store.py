"""A persistent, on-disk store of passage graphs and embeddings (SQLite), shared by processes.

Graphs are keyed like the in-memory cache (:func:`cage_core.graphs.cache.graph_key`: SHA-256 of the
parser fingerprint and the passage text), so a changed passage or another pipeline or graph
format never reuses a stale graph. Graph values are ``PassageGraph.to_text()`` (a JSON string)
— never pickle — and are validated on every read: an entry that is malformed, larger than
``MAX_ENTRY_BYTES`` or of another format is logged, deleted and reported as a miss, so the
passage is parsed again. Embeddings live in a second table under keys the caller computes
(opaque strings), validated the same way (:mod:`cage_core.graphs.stored_values`).

Sharing and safety are the store layer's (:mod:`cage_core.stores`: WAL mode, short
``BEGIN IMMEDIATE`` writes, retries while locked, no connection across ``fork()``, a file
created 0600, a crafted or replaced file never read); what is the graph store's own:

* every write is a transaction of at most ``WRITE_BATCH_ROWS`` entries, stored whole or not
  at all;
* a cache fails safe. "Database is locked" after the last attempt degrades a read to a miss
  (the passage is just parsed again) and drops a write, with a warning; only ``len()``
  raises it. Any other storage error (a full disk, a read-only volume, a damaged or crafted
  file, a value too large or not UTF-8, a file replaced or deleted while open) is logged (a
  warning the first time each kind is met, debug after) and counted in
  :attr:`GraphStore.failures`; the lookup is a miss, the write is dropped, the ranking is
  served. A bad row is rejected alone; an error of the whole file drops the connection, and
  the next operation opens the file at the path again (a deleted one is re-created only by
  the constructor);
* the default location is ``$XDG_CACHE_HOME/cage-rag`` (``~/.cache/cage-rag``), never a
  shared world-writable path.

The value formats live in :mod:`cage_core.graphs.stored_values`, the schema and statements in
:mod:`cage_core.graphs.store_database`.
"""

from __future__ import annotations

import functools
import logging
import os
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TypeVar

import numpy as np

from cage_core.graphs.integrity import key_bytes, signed_text, verified
from cage_core.graphs.passage_graph import DEFAULT_MAX_PARSE_CHARS, PassageGraph
from cage_core.graphs.store_database import (  # the batch size, re-exported
    GRAPH_STORE,
    STORAGE_ERRORS,
    WRITE_BATCH_ROWS,
    GraphStoreFile,
    is_of_the_file,
)
from cage_core.graphs.stored_values import (
    embedding_or_none,
    embedding_row,
    graph_from_row,
    stored_bytes,
)
from cage_core.stores.connection import StoreConnection
from cage_core.stores.database import BUSY_TIMEOUT_S, MAX_ATTEMPTS, describe, is_busy
from cage_core.stores.files import create_private_file, file_identity

__all__ = ["WRITE_BATCH_ROWS", "GraphStore", "default_store_path"]

logger = logging.getLogger(__name__)


_T = TypeVar("_T")


def default_store_path() -> Path:
    """``$XDG_CACHE_HOME/cage-rag/graphs.sqlite`` (``~/.cache/cage-rag/graphs.sqlite``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cage-rag" / "graphs.sqlite"


class GraphStore:
    """SQLite-backed mapping of keys to passage graphs and embeddings (see the module docstring).

    Args:
        path: the SQLite file (created if missing); ``None`` for :func:`default_store_path`.
        busy_timeout_s: how long SQLite waits for a lock per attempt.
        max_attempts: attempts per read or write batch before it degrades (at least 1).
        integrity_key: a secret (bytes or str): graphs are written with an HMAC under it and
            only entries with a valid one are read (:mod:`cage_core.graphs.integrity`; others
            are dropped as misses, with one warning per lookup); ``None``: entries are
            validated for format only (the file's 0600 mode is then their only protection).
        max_parse_chars: the longest text the graphs stored here are built from (the parser's
            ``max_parse_chars``): a stored graph is valid within the limits of a text of that
            length (:func:`~cage_core.graphs.passage_graph.graph_limits`), so graphs of longer
            passages, when so configured, are read back rather than dropped, and a graph
            larger than such a text gives is refused. The store cannot see the setting of the
            parser that wrote an entry: pass the one the readers and writers share
            (:class:`~cage_core.graphs.service.PassageGraphs` does for a store it opens).
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        busy_timeout_s: float = BUSY_TIMEOUT_S,
        max_attempts: int = MAX_ATTEMPTS,
        integrity_key: bytes | str | None = None,
        max_parse_chars: int = DEFAULT_MAX_PARSE_CHARS,
    ) -> None:
        self._integrity_key = key_bytes(integrity_key)
        if max_attempts < 1 or busy_timeout_s < 0:
            raise ValueError("max_attempts must be at least 1 and busy_timeout_s non-negative")
        if isinstance(max_parse_chars, bool) or not isinstance(max_parse_chars, int):
            raise TypeError(f"max_parse_chars must be an int, got {max_parse_chars!r}")
        if max_parse_chars < 1:
            raise ValueError(f"max_parse_chars must be at least 1, got {max_parse_chars}")
        self.max_parse_chars = max_parse_chars
        self.path = Path(path) if path is not None else default_store_path()
        db = StoreConnection(
            self.path,
            GRAPH_STORE,
            busy_timeout_s=busy_timeout_s,
            max_attempts=max_attempts,
            create=True,
            reopen=True,  # a replaced file is opened afresh; a deleted one, once it is back
            on_reopen=lambda changed: self._file.failed(
                changed, "opening the file now at the path"
            ),
            drops=is_of_the_file,
        )
        self._file = GraphStoreFile(db)
        try:
            create_private_file(self.path)
        except OSError as exc:
            self._file.failed(exc, "cannot create the store; every lookup is a miss")
            return
        self._file.attempt(  # open now, so a bad file is reported here
            lambda conn: None,
            "cannot be used now; lookups are misses, writes dropped",
            busy="will open on first use",
        )

    # -- graphs -------------------------------------------------------------------------
    def get_many(self, keys: Sequence[str]) -> dict[str, PassageGraph]:
        """The valid stored graphs among ``keys`` (invalid entries are deleted; {} if locked)."""
        if self._integrity_key is None:
            return self._read_valid("graphs", "key, data", keys, self._decode_graph)
        forged: list[str] = []
        secret = self._integrity_key

        def decode(key: str, data: object) -> PassageGraph | None:
            graph = self._decode_graph(key, data)
            if graph is not None and not verified(graph, data, secret):
                forged.append(key)
                return None
            return graph

        found = self._read_valid("graphs", "key, data", keys, decode)
        if forged:
            logger.warning(
                "graph store %s: ignoring %d entries without a valid MAC under the "
                "integrity key (dropped; those passages are parsed again)",
                self.path,
                len(forged),
            )
        return found

    def get(self, key: str) -> PassageGraph | None:
        return self.get_many([key]).get(key)

    def put_many(self, items: Iterable[tuple[str, PassageGraph]]) -> None:
        """Store graphs, replacing entries with the same key (dropped with a warning if locked)."""
        rows = [(key, signed_text(graph, self._integrity_key)) for key, graph in items]
        self._file.write("graphs", "INSERT OR REPLACE INTO graphs (key, data) VALUES (?, ?)", rows)

    def put(self, key: str, graph: PassageGraph) -> None:
        self.put_many([(key, graph)])

    # -- embeddings ---------------------------------------------------------------------
    def get_embeddings(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """The valid stored embeddings among ``keys``, as new float32 arrays ({} if locked).

        Invalid rows are logged, deleted and left out, like invalid graphs.
        """
        decode = functools.partial(embedding_or_none, self.path)
        return self._read_valid("embeddings", "key, dim, data", keys, decode)

    def put_embeddings(self, items: Iterable[tuple[str, np.ndarray]]) -> None:
        """Store 1-D embeddings as float32, replacing entries with the same key.

        Raises:
            ValueError: as :func:`~cage_core.graphs.stored_values.embedding_row` does, checked
                before anything is written.
        """
        rows = [(key, *embedding_row(key, vector)) for key, vector in items]
        sql = "INSERT OR REPLACE INTO embeddings (key, dim, data) VALUES (?, ?, ?)"
        self._file.write("embeddings", sql, rows)

    # -- housekeeping -------------------------------------------------------------------
    def __len__(self) -> int:
        """Number of stored graphs; 0 while no file is at the path (deleted while open: a
        miss, as lookups are, counted in :attr:`failures` and logged). Raises
        ``sqlite3.OperationalError`` if it stays locked, or with the cause of any other
        storage error."""
        try:
            count = "SELECT COUNT(*) FROM graphs"
            return int(self._file.db.read(lambda conn: conn.execute(count).fetchone()[0]))
        except sqlite3.ProgrammingError:
            raise  # closed
        except STORAGE_ERRORS as exc:
            if is_busy(exc):
                locked = f"graph store {self.path}: database is locked"
                raise sqlite3.OperationalError(locked) from None
            if file_identity(self.path) is None:
                self._file.failed(exc, "no file at the path: len() counts 0")
                return 0
            raise sqlite3.OperationalError(f"graph store {self.path}: {describe(exc)}") from exc

    def __enter__(self) -> GraphStore:
        return self

    def __getstate__(self) -> dict[str, object]:
        """Pickled (and deep-copied) by path and settings: the copy opens its own connection."""
        return {
            "path": self.path,
            "busy_timeout_s": self._file.db.busy_timeout_s,
            "max_attempts": self._file.db.max_attempts,
            "integrity_key": self._integrity_key,
            "max_parse_chars": self.max_parse_chars,
        }

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._file.db.close()  # later calls raise sqlite3.ProgrammingError

    @property
    def failures(self) -> int:
        """Storage errors met (module docstring): each made a lookup a miss or dropped a write."""
        return self._file.failures

    # -- value formats (:mod:`cage_core.graphs.stored_values`) -------------------------
    def _decode_graph(self, key: str, data: object) -> PassageGraph | None:
        return graph_from_row(self.path, key, data, self.max_parse_chars)

    def _read_valid(
        self, table: str, columns: str, keys: Sequence[str], decode: Callable[..., _T | None]
    ) -> dict[str, _T]:
        """``decode(key, *other columns)`` of each row of ``table`` for ``keys`` (``columns``
        starts with ``key`` and ends with ``data``); rows it rejects are dropped."""
        found: dict[str, _T] = {}
        bad: list[tuple[str, object]] = []
        for key, *values in self._file.select(table, columns, keys):
            value = decode(key, *values)
            if value is None:
                bad.append((key, values[-1]))
            else:
                found[key] = value
        self._drop_invalid(table, "data", bad)
        return found

    def _drop_invalid(self, table: str, column: str, bad: list[tuple[str, object]]) -> None:
        """Delete invalid rows, unless another writer has replaced them meanwhile (text that
        is not UTF-8 is matched by its bytes)."""
        text = [(key, stored_bytes(value)) for key, value in bad if isinstance(value, str)]
        other = [(key, value) for key, value in bad if not isinstance(value, str)]
        if text:
            sql = f"DELETE FROM {table} WHERE key = ? AND {column} = CAST(? AS TEXT)"
            self._file.write(table, sql, text)
        if other:
            self._file.write(table, f"DELETE FROM {table} WHERE key = ? AND {column} = ?", other)
