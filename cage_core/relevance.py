"""The 0–1 relevance the framework wrappers put in their score fields.

LangChain's ``metadata["relevance_score"]`` and LlamaIndex's ``NodeWithScore.score`` are read
by cutoff steps placed after a reranker (``SimilarityPostprocessor(similarity_cutoff=...)``,
a threshold on ``relevance_score``), which expect a value in [0, 1], higher is better. CAGE's
fused score ``f`` (:mod:`cage_core.ranking.fusion`) is unbounded (about −1 … 6 on the example data), so
the wrappers report

    relevance(f) = σ(f) = 1 / (1 + e^(−f))

and keep ``f`` itself under ``metadata["cage_score"]``. σ is strictly increasing, so the
order of the results is the order of ``f``. It is one fixed function, the same for every
query: a cutoff ``t`` keeps exactly the passages with ``f > log(t / (1 − t))`` in every pool
(0.5 ⇔ ``f > 0``; 0.73 ⇔ ``f > 1``; 0.88 ⇔ ``f > 2``). A min–max of the pool was rejected:
it gives the best passage 1 and the worst 0 whatever the query, so a cutoff would always drop
the bottom of a good pool and keep the top of a useless one.

What ``f`` measures, and so what a cutoff means: in the default ``"bridge"`` coherence the
relevance term is standardised within the pool (z-scores), so ``f = 0`` is a passage of the
pool's average relevance with no coherence, and passages of the evidence chain are lifted
above every other (to at least the best other ``f`` + 1). It is a monotone score, not a
calibrated probability that a passage answers the query. Other methods (``"paper"``:
``f = α·sim + (1−α)·coherence``) keep their own scale under the same σ.
"""

from __future__ import annotations

import math

__all__ = ["relevance"]


def relevance(score: float) -> float:
    """σ(``score``) in [0, 1] (module docstring); NaN stays NaN."""
    if score >= 0:
        return 1.0 / (1.0 + math.exp(-score))
    if score < 0:
        e = math.exp(score)
        return e / (1.0 + e)
    return float("nan")
