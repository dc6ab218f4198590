"""A persistent, on-disk store of passage graphs (SQLite), so a passage is parsed once ever.

Entries are keyed like the in-memory cache (:func:`cage_core.cache.graph_key`: SHA-256 of
the parser fingerprint and the passage text), so a changed passage or another pipeline or
graph format never reuses a stale graph. Values are ``PassageGraph.to_text()`` (JSON)
— never pickle — and are validated on every read: an entry that is malformed, larger than
``MAX_ENTRY_BYTES`` or of another format is logged, deleted and reported as a miss, so the
passage is parsed again.

The file is created with user-only permissions (0600) in a directory created 0700; the
default location is ``$XDG_CACHE_HOME/cage-rag`` (``~/.cache/cage-rag``), never a shared
world-writable path. One store may be used from many threads.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

from cage_core.graph.passage_graph import GraphFormatError, PassageGraph

logger = logging.getLogger(__name__)

MAX_ENTRY_BYTES = 8_000_000
"""Stored entries larger than this are treated as corrupt (a 20,000-character passage's
graph is well under 1 MB)."""
_SCHEMA = "CREATE TABLE IF NOT EXISTS graphs (key TEXT PRIMARY KEY, data TEXT NOT NULL)"


def default_store_path() -> Path:
    """``$XDG_CACHE_HOME/cage-rag/graphs.sqlite`` (``~/.cache/cage-rag/graphs.sqlite``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cage-rag" / "graphs.sqlite"


class GraphStore:
    """SQLite-backed mapping of graph keys to passage graphs (see the module docstring)."""

    def __init__(self, path: str | os.PathLike[str] | None = None, *, expected_dim: int = 300) -> None:
        self.path = Path(path) if path is not None else default_store_path()
        self.expected_dim = expected_dim
        self._lock = threading.Lock()
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not self.path.exists():
            fd = os.open(self.path, os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o600)
            os.close(fd)
        self._conn = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30.0)
        with self._lock:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(_SCHEMA)
            self._conn.commit()
        for suffix in ("-wal", "-shm"):
            side = Path(str(self.path) + suffix)
            if side.exists():
                os.chmod(side, 0o600)

    def get_many(self, keys: Sequence[str]) -> dict[str, PassageGraph]:
        """The valid stored graphs among ``keys`` (invalid entries are deleted)."""
        if not keys:
            return {}
        found: dict[str, PassageGraph] = {}
        rows: list[tuple[str, str]] = []
        with self._lock:
            unique = list(dict.fromkeys(keys))
            for start in range(0, len(unique), 500):
                chunk = unique[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows += self._conn.execute(
                    f"SELECT key, data FROM graphs WHERE key IN ({marks})", chunk
                ).fetchall()
        bad: list[str] = []
        for key, data in rows:
            graph = self._decode(key, data)
            if graph is None:
                bad.append(key)
            else:
                found[key] = graph
        if bad:
            self.delete(bad)
        return found

    def get(self, key: str) -> PassageGraph | None:
        return self.get_many([key]).get(key)

    def put_many(self, items: Iterable[tuple[str, PassageGraph]]) -> None:
        rows = [(key, graph.to_text()) for key, graph in items]
        if not rows:
            return
        with self._lock:
            self._conn.executemany("INSERT OR REPLACE INTO graphs (key, data) VALUES (?, ?)", rows)
            self._conn.commit()

    def put(self, key: str, graph: PassageGraph) -> None:
        self.put_many([(key, graph)])

    def delete(self, keys: Sequence[str]) -> None:
        with self._lock:
            self._conn.executemany("DELETE FROM graphs WHERE key = ?", [(k,) for k in keys])
            self._conn.commit()

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM graphs").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> GraphStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _decode(self, key: str, data: object) -> PassageGraph | None:
        if not isinstance(data, str) or len(data) > MAX_ENTRY_BYTES:
            logger.warning("graph store %s: entry %s is not text or too large; dropping it",
                           self.path, key[:12])  # fmt: skip
            return None
        try:
            return PassageGraph.from_stored(data)
        except (RecursionError, GraphFormatError) as exc:
            logger.warning("graph store %s: entry %s is invalid (%s); dropping it",
                           self.path, key[:12], exc)  # fmt: skip
            return None
