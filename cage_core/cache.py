"""An in-memory, bounded, thread-safe LRU cache of passage graphs keyed by content.

The key is a SHA-256 of the parsed text together with the parser fingerprint (pipeline
name and version, graph format version, vector width), so a changed passage or another
spaCy pipeline never reuses a stale graph.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

from cage_core.graph.passage_graph import PassageGraph


def graph_key(text: str, fingerprint: str) -> str:
    """Cache key of ``text`` parsed by the pipeline identified by ``fingerprint``."""
    digest = hashlib.sha256()
    digest.update(fingerprint.encode("utf-8"))
    digest.update(b"\x00")
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


class GraphCache:
    """LRU mapping of :func:`graph_key` → :class:`PassageGraph`, holding at most ``capacity``."""

    def __init__(self, capacity: int) -> None:
        if capacity < 0:
            raise ValueError(f"capacity must be >= 0, got {capacity}")
        self.capacity = capacity
        self._items: OrderedDict[str, PassageGraph] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> PassageGraph | None:
        with self._lock:
            graph = self._items.get(key)
            if graph is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return graph

    def put(self, key: str, graph: PassageGraph) -> None:
        if self.capacity == 0:
            return
        with self._lock:
            self._items[key] = graph
            self._items.move_to_end(key)
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
