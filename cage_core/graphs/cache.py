"""In-memory, bounded, thread-safe LRU caches of what a passage costs to compute: its graph
and its embedding, both keyed by content.

A graph key is a SHA-256 of the parsed text together with the parser fingerprint (pipeline
name and version, graph format version) and the graph level, so a changed passage or another spaCy
pipeline never reuses a stale graph; an embedding key hashes the text with the embedder's name.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Generic, TypeVar

import numpy as np

from cage_core.graphs.passage_graph import PassageGraph

__all__ = [
    "EmbeddingCache",
    "GraphCache",
    "embedding_key",
    "graph_key",
]

V = TypeVar("V")


def _key(text: str, namespace: str) -> str:
    digest = hashlib.sha256()
    digest.update(namespace.encode("utf-8"))
    digest.update(b"\x00")
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def graph_key(text: str, fingerprint: str, level: str) -> str:
    """Cache key of the ``level`` graph of ``text`` parsed by the pipeline ``fingerprint``."""
    return _key(text, f"{fingerprint}/{level}")


def embedding_key(text: str, embedder_id: str | None) -> str:
    """Cache key of the embedding of ``text`` by the embedder named ``embedder_id``."""
    return _key(text, f"embedding:{embedder_id or ''}")


class LRUCache(Generic[V]):
    """LRU mapping of string keys to values, holding at most ``capacity`` (0 disables it)."""

    def __init__(self, capacity: int) -> None:
        if capacity < 0:
            raise ValueError(f"capacity must be >= 0, got {capacity}")
        self.capacity = capacity
        self._items: OrderedDict[str, V] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def __getstate__(self) -> dict[str, object]:
        """Pickled and deep-copied empty: a cache's entries and lock stay behind."""
        return {"capacity": self.capacity}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__init__(state["capacity"])  # type: ignore[misc]

    def get(self, key: str) -> V | None:
        return self.get_any((key,))

    def get_any(self, keys: Sequence[str]) -> V | None:
        """The value of the first of ``keys`` present (one hit or one miss in the counts)."""
        with self._lock:
            for key in keys:
                value = self._items.get(key)
                if value is not None:
                    self._items.move_to_end(key)
                    self.hits += 1
                    return value
            self.misses += 1
            return None

    def get_many(self, keys: Sequence[str]) -> dict[str, V]:
        """The values present among the distinct ``keys`` (a hit or a miss each)."""
        found: dict[str, V] = {}
        for key in dict.fromkeys(keys):
            value = self.get(key)
            if value is not None:
                found[key] = value
        return found

    def put(self, key: str, value: V) -> None:
        if self.capacity == 0:
            return
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


class GraphCache(LRUCache[PassageGraph]):
    """:func:`graph_key` → :class:`PassageGraph`."""


class EmbeddingCache(LRUCache[np.ndarray]):
    """:func:`embedding_key` → ``[d]`` embedding."""
