"""BM25 of a query against a whole corpus, with IDF over the corpus: an inverted index.

The formula, the tokens and the parameters are those of :func:`cage_core.ranking.pool_bm25.pool_bm25`
(Lucene's BM25 as ``bm25s`` computes it); the only difference is that ``N``, ``df_t`` and
``avgdl`` are the corpus's, and that each passage is tokenised once, when the index is
built, instead of once per query. ``BM25Index(texts).scores(q)`` equals
``pool_bm25(q, texts)``.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence

import numpy as np

from cage_core.ranking.pool_bm25 import BM25_B, BM25_K1, tokens

__all__ = [
    "BM25Index",
]


class BM25Index:
    """An inverted index of ``texts`` answering :meth:`scores` for any query."""

    def __init__(self, texts: Sequence[str], k1: float = BM25_K1, b: float = BM25_B) -> None:
        if isinstance(texts, str):
            raise TypeError("texts must be a sequence of strings, not a single string")
        docs = [tokens(t) for t in texts]
        self.size = len(docs)
        lengths = np.array([len(d) for d in docs], dtype=np.float64)
        avgdl = float(lengths.mean()) if self.size else 0.0
        self._norm = k1 * ((1 - b) + b * lengths / avgdl) if avgdl > 0 else np.zeros(self.size)
        postings: dict[str, tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
        for i, doc in enumerate(docs):
            for term, tf in Counter(doc).items():
                postings[term][0].append(i)
                postings[term][1].append(tf)
        self._postings = {
            term: (np.array(ids, dtype=np.int64), np.array(tfs, dtype=np.float64))
            for term, (ids, tfs) in postings.items()
        }
        self._empty = avgdl == 0

    def scores(self, query: str) -> np.ndarray:
        """``[N]`` BM25 scores of every passage for ``query`` (the formula of
        :func:`~cage_core.ranking.pool_bm25.pool_bm25`, with IDF over the corpus)."""
        scores = np.zeros(self.size)
        if self._empty:
            return scores
        for term in tokens(query):
            posting = self._postings.get(term)
            if posting is None:
                continue
            ids, tf = posting
            df = len(ids)
            idf = math.log(1 + (self.size - df + 0.5) / (df + 0.5))
            scores[ids] += idf * tf / (self._norm[ids] + tf)
        return scores
