"""PassageEmbeddings: the query and passage embeddings a reranker ranks by (its relevance
side; :mod:`cage_core.graphs.service` is its graph side).

Each distinct passage content is embedded once per reranker: embeddings are kept in an LRU
(:class:`~cage_core.graphs.cache.EmbeddingCache`) keyed by
:func:`~cage_core.graphs.cache.embedding_key` (content hash, embedder name), and in the graph
store when there is one and the embedder has a name (the default's, or ``embedder_id``), so
duplicates get bit-identical similarities and a passage seen again is not embedded again.
Thread-safe; pickles without the default embedder and the lock (rebuilt lazily).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from cage_core.graphs.cache import EmbeddingCache, embedding_key
from cage_core.graphs.store import GraphStore
from cage_core.models import DEFAULT_EMBEDDER_ID, Embedder, as_embedder, default_embedder
from cage_core.passage import Passage, encodable
from cage_core.scoring import cosine_matrix

__all__ = [
    "PassageEmbeddings",
]


class PassageEmbeddings:
    """Embeddings on demand (see the module docstring).

    Args:
        embedder: texts → embeddings callable (or an object with ``encode``); default
            all-MiniLM-L6-v2, loaded on first use.
        embedder_id: a name of ``embedder`` under which embeddings are kept in ``store``;
            without one, a custom embedder's embeddings are cached in memory only. The
            default embedder has its own.
        store: the graph store that also keeps embeddings, if any.
        cache_size: embeddings kept in memory (0 disables the cache).
    """

    def __init__(
        self,
        embedder: Embedder | Any | None = None,
        embedder_id: str | None = None,
        *,
        store: GraphStore | None = None,
        cache_size: int = 4096,
    ) -> None:
        self._embedder: Embedder | None = as_embedder(embedder) if embedder is not None else None
        self._embedder_is_default = embedder is None
        self._embedder_id = DEFAULT_EMBEDDER_ID if embedder is None else embedder_id
        self.store = store
        self.cache = EmbeddingCache(cache_size)
        self._lock = threading.Lock()

    @property
    def embedder(self) -> Embedder:
        """The query/passage embedder (loads all-MiniLM-L6-v2 on first use by default)."""
        with self._lock:
            if self._embedder is None:
                self._embedder = default_embedder()
            return self._embedder

    # -- pickling: the default embedder and the lock stay behind -----------------------------
    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state.pop("_lock", None)
        if self._embedder_is_default:
            state["_embedder"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    # -- embeddings ----------------------------------------------------------------------------
    def similarities(self, query: str, items: Sequence[Passage]) -> np.ndarray:
        """``[k]`` cosine similarity between ``query`` and each passage's content."""
        if not items:
            return np.zeros(0)
        query = encodable(query)
        contents = [p.content for p in items]
        vectors = self.passage_embeddings(contents)
        query_vector = self._embed([query])
        return cosine_matrix(query_vector, vectors)[0]  # finite: _embed and the store check inputs

    def passage_embeddings(self, contents: Sequence[str]) -> np.ndarray:
        """``[k, d]`` embeddings of ``contents``, each distinct one embedded at most once."""
        keys = [embedding_key(c, self._embedder_id) for c in contents]
        found = self.cache.get_many(keys)
        missing = [k for k in dict.fromkeys(keys) if k not in found]
        store = self.store if self._embedder_id is not None else None
        if missing and store is not None:
            stored = store.get_embeddings(missing)
            for k, v in stored.items():
                found[k] = v
                self.cache.put(k, v)
            missing = [k for k in missing if k not in found]
        if missing:
            text_of = dict(zip(keys, contents))
            computed = self._embed([text_of[k] for k in missing])
            fresh = list(zip(missing, computed))
            for k, v in fresh:
                found[k] = v
                self.cache.put(k, v)
            if store is not None:
                store.put_embeddings(fresh)
        return np.stack([found[k] for k in keys])

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        vectors = np.asarray(self.embedder(list(texts)))
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise ValueError(f"embedder returned shape {vectors.shape}; expected [{len(texts)}, d]")
        if not np.isfinite(vectors).all():
            raise ValueError("embedder returned non-finite embeddings")
        return vectors
