"""First-stage retrieval over a corpus: the top K passages of each query.

Three retrievers (``Retriever``):

``"cosine"``
    the query–passage cosine of the embeddings (all-MiniLM-L6-v2 by default);
``"bm25"``
    BM25 with IDF over the corpus (:class:`BM25Index`);
``"hybrid"``
    ``z(cos_i) + w_lex · z(bm25_i)`` over a candidate set: the union of the top
    ``max(K, HYBRID_CANDIDATES)`` passages by cosine and the same number by BM25, each score
    standardised over that set (``z`` of :func:`cage_core.scoring.standardize`); ``w_lex`` is
    the reranker's ``CageConfig.lexical_weight``, as in the pool-level ``hybrid`` method.

Every retriever returns corpus indices, best first; equal scores keep corpus order.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Literal, get_args

import numpy as np

from cage_core.ranking.pool_bm25 import BM25_B, BM25_K1, tokens
from cage_core.scoring import ranking, standardize

__all__ = [
    "HYBRID_CANDIDATES",
    "BM25Index",
    "RETRIEVERS",
    "CorpusRetriever",
    "Retriever",
]

Retriever = Literal["cosine", "bm25", "hybrid"]
RETRIEVERS: tuple[str, ...] = get_args(Retriever)
HYBRID_CANDIDATES = 100
"""Candidates the hybrid retriever takes from each of cosine and BM25 before fusing them."""


class CorpusRetriever:
    """Top-K retrieval over one corpus (see the module docstring).

    Args:
        texts: the corpus passages' contents (what is embedded and tokenised).
        cosines: ``[queries, N]`` query–passage cosines, one row per query (needed by
            ``"cosine"`` and ``"hybrid"``).
        retriever: which retriever.
        lexical_weight: ``w_lex`` of ``"hybrid"``.
    """

    def __init__(
        self,
        texts: Sequence[str],
        cosines: np.ndarray,
        retriever: Retriever = "cosine",
        lexical_weight: float = 0.5,
    ) -> None:
        if retriever not in RETRIEVERS:
            raise ValueError(
                f"unknown retriever {retriever!r}; choose from {', '.join(RETRIEVERS)}"
            )
        cosines = np.asarray(cosines, dtype=np.float64)
        if cosines.ndim != 2 or cosines.shape[1] != len(texts):
            raise ValueError(f"cosines has shape {cosines.shape}; expected [queries, {len(texts)}]")
        self.retriever = retriever
        self.lexical_weight = lexical_weight
        self._cosines = cosines
        self._bm25 = BM25Index(texts) if retriever != "cosine" else None

    def top(self, row: int, query: str, k: int) -> list[int]:
        """The corpus indices of the ``k`` best passages for ``query`` (cosine row ``row``)."""
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        if self.retriever == "cosine":
            return [int(i) for i in ranking(self._cosines[row])[:k]]
        assert self._bm25 is not None
        lexical = self._bm25.scores(query)
        if self.retriever == "bm25":
            return [int(i) for i in ranking(lexical)[:k]]
        width = max(k, HYBRID_CANDIDATES)
        cosine = self._cosines[row]
        candidates = np.array(
            sorted(
                {int(i) for i in ranking(cosine)[:width]}
                | {int(i) for i in ranking(lexical)[:width]}
            )
        )
        fused = standardize(cosine[candidates]) + self.lexical_weight * standardize(
            lexical[candidates]
        )
        return [int(candidates[i]) for i in ranking(fused)[:k]]


class BM25Index:
    """BM25 with IDF over a corpus: an inverted index of ``texts`` answering :meth:`scores` for
    any query. The formula, the tokens and the parameters are those of
    :func:`~cage_core.ranking.pool_bm25.pool_bm25` (Lucene's BM25 as ``bm25s`` computes it);
    only ``N``, ``df_t`` and ``avgdl`` are the corpus's, and each passage is tokenised once,
    when the index is built, instead of once per query: ``BM25Index(texts).scores(q)`` equals
    ``pool_bm25(q, texts)``."""

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
