"""First-stage retrieval over a corpus: the top K passages of each query.

Three retrievers (``Retriever``):

``"cosine"``
    the query–passage cosine of the embeddings (all-MiniLM-L6-v2 by default);
``"bm25"``
    BM25 with IDF over the corpus (:class:`~cage_core.eval.corpus_bm25.BM25Index`);
``"hybrid"``
    ``z(cos_i) + w_lex · z(bm25_i)`` over a candidate set: the union of the top
    ``max(K, HYBRID_CANDIDATES)`` passages by cosine and the same number by BM25, each score
    standardised over that set (``z`` of :func:`cage_core.scoring.standardize`); ``w_lex`` is
    the reranker's ``CageConfig.lexical_weight``, as in the pool-level ``hybrid`` method.

Every retriever returns corpus indices, best first; equal scores keep corpus order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, get_args

import numpy as np

from cage_core.eval.corpus_bm25 import BM25Index
from cage_core.scoring import ranking, standardize

__all__ = [
    "HYBRID_CANDIDATES",
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
