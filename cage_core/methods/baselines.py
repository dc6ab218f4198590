"""Baselines: random order, vanilla cosine (the paper's Vanilla RAG) and BM25 over the pool."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

import numpy as np

from cage_core.methods.base import Pool

_TOKEN = re.compile(r"(?u)\b\w\w+\b")


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
    """Okapi BM25 of the query against the passages, IDF computed over the pool itself.

    ``score(d) = Σ_t IDF(t)·tf(t,d)·(k1+1) / (tf(t,d) + k1·(1 − b + b·|d|/avgdl))`` with
    ``IDF(t) = ln(1 + (N − n_t + 0.5)/(n_t + 0.5))`` (Lucene's form, via ``bm25s``).
    Tokens: lower-cased words of two or more characters, English stop words removed.
    """

    k1: float = 1.5
    b: float = 0.75
    name: str = "bm25"
    needs_graphs: bool = False

    def score(self, pool: Pool) -> np.ndarray:
        import bm25s

        k = len(pool.passages)
        texts = [p.content for p in pool.passages]
        corpus = bm25s.tokenize(texts, stopwords="en", show_progress=False, return_ids=False)
        query = [t for t in bm25s.tokenize([pool.query], stopwords="en", show_progress=False,
                                           return_ids=False)[0]]  # fmt: skip
        vocab = {t for doc in corpus for t in doc}
        query = [t for t in query if t in vocab]
        if not query or not vocab:
            return np.zeros(k)
        model = bm25s.BM25(k1=self.k1, b=self.b, method="lucene")
        model.index(corpus, show_progress=False)
        return np.asarray(model.get_scores(query), dtype=np.float64)
