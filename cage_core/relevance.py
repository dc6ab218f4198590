"""The 0–1 relevance the framework wrappers put in their score fields.

LangChain's ``metadata["relevance_score"]`` and LlamaIndex's ``NodeWithScore.score`` are read
by cutoff steps placed after a reranker (``SimilarityPostprocessor(similarity_cutoff=...)``,
a threshold on ``relevance_score``), which expect a value in [0, 1], higher is better, and
one bar for every question. CAGE's fused score ``f`` (:mod:`cage_core.methods.cage`) is
relative to its pool (the relevance term is standardised within the pool), so it cannot say
whether the pool answers the question at all: an off-topic question's best passage gets as
high an ``f`` as an on-topic one's. The wrappers therefore report, for passage ``i`` of a pool
with query similarities ``s`` (the similarity the ranking used: the retriever's own score, or
the packaged MiniLM's cosine), fused scores ``f`` and coverage ``c`` (the largest share of the
question's words one passage of the pool holds,
:func:`~cage_core.ranking.pool_bm25.query_word_coverage`; in a pool routed to the documents
the question names, their passages also hold the words that name them:
:func:`~cage_core.ranking.pool_bm25.named_word_coverage`, and ``s`` also holds the
similarities of the question as asked where the wrapper has them, the pool being ranked
for the question less its naming words:
:func:`~cage_core.integrations.rerank_call.evidence_similarities`),

    score_i = g(max s + weight · c) · h(max f − f_i)
    g(m) = σ(slope · (m − midpoint)) = 1 / (1 + e^(−slope · (m − midpoint)))
    h(d) = e^(−d / spread)

``g`` is the pool's evidence: how well its best retrieved passage matches the question, on
the similarity's own scale, plus how many of the question's words one passage holds (a
question's names and rare words, which an unrelated corpus lacks); ``h`` is the passage's
place in the pool: 1 for the best passage, falling as ``f`` falls below it. Within a pool
``g`` is one number and ``h`` is strictly increasing in ``f``, so the order of the scores is
the order of ``f`` (ties stay ties), and the top passage's score is ``g`` itself: a cutoff
``t`` drops a whole pool whose match ``max s + weight · c`` is below ``midpoint + log(t / (1 −
t)) / slope``, and keeps, in a pool it does not drop, the passages with ``f ≥ max f − spread
· log(g / t)``.

The defaults (:data:`MIDPOINT`, :data:`SLOPE`, :data:`SPREAD`, :data:`WEIGHT`) were chosen for
the cutoff :data:`CUTOFF` = 0.5, with MiniLM cosines as the similarity (why these values: the
``relevance.*`` rows of ``docs/provenance.md``; figures in ``docs/scores.md``). At 0.5 a pool
is dropped exactly when its match is below :data:`MIDPOINT`.

They assume the cosine scale of a sentence-embedding model like all-MiniLM-L6-v2. A
retriever score on another scale moves the bar: the stores' relevance functions (LangChain's
Chroma and FAISS ``1 − ‖q − p‖²/√2``, Qdrant ``(1 + cos)/2``, LlamaIndex's Chroma
``exp(−‖q − p‖²)``) and fusion values, which the integrations therefore replace by the cosine
of the stored vectors (:mod:`cage_core.integrations.vector_reads`); a model whose cosines
crowd near 1 (many commercial embedders) lifts every pool. With such scores, let the reranker
embed (``score_key=None`` / ``similarity_source="embed"``), or call :func:`pool_relevance`
with a ``midpoint`` on their scale (the results keep ``cage_score`` and ``cage_similarity``;
the coverage is ``query_word_coverage(question, texts of the pool)``).

:func:`fused_sigmoid` (σ of the fused score alone, what the wrappers reported up to cage-rag
0.4) stays public: it is the pool-relative part, one fixed function of ``f``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = [
    "CUTOFF",
    "MIDPOINT",
    "SLOPE",
    "SPREAD",
    "WEIGHT",
    "fused_sigmoid",
    "pool_relevance",
]

MIDPOINT = 0.65
"""The pool's match (best similarity + :data:`WEIGHT` · coverage) at which its evidence ``g``
is 0.5 (cosine scale)."""
SLOPE = 5.0
"""How fast ``g`` rises with the pool's match."""
WEIGHT = 0.75
"""What the question's words held by one passage of the pool (a share, 0–1) add to the
pool's best similarity."""
SPREAD = 20.0
"""How far below the pool's best fused score a passage's ``h`` falls by a factor e."""
CUTOFF = 0.5
"""The cutoff the defaults were chosen for and the DEV figures are quoted at
(``docs/scores.md``)."""


def fused_sigmoid(score: float) -> float:
    """σ(``score``) in [0, 1], the fused score alone, relative to its pool; NaN stays NaN."""
    if score >= 0:
        return 1.0 / (1.0 + math.exp(-score))
    if score < 0:
        e = math.exp(score)
        return e / (1.0 + e)
    return float("nan")


def pool_relevance(
    fused: Sequence[float] | np.ndarray,
    similarities: Sequence[float] | np.ndarray,
    coverage: float,
    *,
    midpoint: float = MIDPOINT,
    slope: float = SLOPE,
    spread: float = SPREAD,
    weight: float = WEIGHT,
) -> np.ndarray:
    """``[k]`` the score of each passage of one pool (module docstring): ``g · e^(−(max fused
    − fused_i) / spread)`` with ``g = σ(slope · (max similarities + weight · coverage −
    midpoint))``.

    ``fused`` holds the fused scores of the passages scored (all of the pool or any part of
    it that includes its best); ``similarities`` the query similarities of the whole pool
    (their maximum is what counts); ``coverage`` the query's words the pool holds
    (:func:`~cage_core.ranking.pool_bm25.query_word_coverage` of the question and the whole
    pool's texts). An empty ``fused`` gives an empty array. Raises ``ValueError`` for an
    empty ``similarities`` with passages to score, a non-finite value, a ``coverage`` outside
    [0, 1], a ``slope`` or ``spread`` that is not a finite number > 0, or a negative
    ``weight``.
    """
    f = np.asarray(fused, dtype=np.float64)
    s = np.asarray(similarities, dtype=np.float64)
    for name, value in (("slope", slope), ("spread", spread)):
        if not math.isfinite(value) or value <= 0:
            raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    if not math.isfinite(midpoint):
        raise ValueError(f"midpoint must be a finite number, got {midpoint!r}")
    if not (math.isfinite(weight) and weight >= 0):
        raise ValueError(f"weight must be a finite number >= 0, got {weight!r}")
    if not 0.0 <= coverage <= 1.0:  # NaN fails too
        raise ValueError(f"coverage must be in [0, 1], got {coverage!r}")
    if f.size == 0:
        return np.zeros(0)
    if s.size == 0:
        raise ValueError("pool_relevance needs the pool's similarities to score its passages")
    if not (np.isfinite(f).all() and np.isfinite(s).all()):
        raise ValueError("fused scores and similarities must be finite")
    evidence = fused_sigmoid(slope * (float(s.max()) + weight * coverage - midpoint))
    return evidence * np.exp(-(f.max() - f) / spread)
