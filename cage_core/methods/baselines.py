"""Baselines: random order, vanilla cosine (the paper's Vanilla RAG) and BM25 over the pool."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from cage_core.methods.base import Pool
from cage_core.ranking.pool_bm25 import BM25_B, BM25_K1, pool_bm25

__all__ = [
    "BM25Method",
    "RandomMethod",
    "VanillaMethod",
]


@dataclass(frozen=True)
class RandomMethod:
    """A uniformly random order, seeded by ``seed`` and the pool key (reproducible)."""

    seed: int = 0
    name: str = "random"
    needs_graphs: bool = False

    def score(self, pool: Pool) -> np.ndarray:
        digest = hashlib.blake2b(f"{self.seed}:{pool.key}".encode(), digest_size=8).digest()
        rng = np.random.default_rng(int.from_bytes(digest, "little"))
        return rng.permutation(len(pool.passages)).astype(np.float64)


@dataclass(frozen=True)
class VanillaMethod:
    """Rank by the query–passage cosine alone (all-MiniLM-L6-v2 by default)."""

    name: str = "vanilla"
    needs_graphs: bool = False

    def score(self, pool: Pool) -> np.ndarray:
        return np.asarray(pool.similarities, dtype=np.float64)


@dataclass(frozen=True)
class BM25Method:
    """Okapi BM25 with IDF over the pool itself (see :mod:`cage_core.ranking.pool_bm25`)."""

    k1: float = BM25_K1
    b: float = BM25_B
    name: str = "bm25"
    needs_graphs: bool = False

    def score(self, pool: Pool) -> np.ndarray:
        return pool_bm25(pool.query, [p.content for p in pool.passages], self.k1, self.b)
