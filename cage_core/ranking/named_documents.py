"""A pool whose question names documents: their passages first, each document's name once.

When routing (:mod:`cage_core.expansion.routing`) finds that the question names documents,
the pool is ranked for the question *less the words that name them* (the caller passes that
question), and the passages of the named documents are put ahead of every other passage —
the document's name counts once, for the document, not once per chunk that repeats it::

    f'_i = f_i + Δ·[i ∈ L],   Δ = max(0, max_{j ∉ L} f_j − min_{i ∈ L} f_i + ε)

``f`` is the method's fused score, ``ε`` = :data:`NAMED_MARGIN`, ``L`` the lifted passages:
the ``lead`` named passages of highest ``f`` (ties as :func:`cage_core.scoring.ranking`
breaks them), every named passage when ``lead`` is ``None``. The named passages past the
lead compete with the others on ``f``: a question that names one document but needs a
passage of another still finds room for it. The order inside the lifted passages and inside
the rest is the method's; with no named passage, or none other, ``f' = f``. The default
lead, :data:`NAMED_LEAD`, was chosen by cross-validation over every DEV file
(``benchmarks/tuning/named_order_cv.py``; ``docs/provenance.md``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cage_core.scoring import ranking

__all__ = ["NAMED_LEAD", "NAMED_MARGIN", "named_first"]

NAMED_MARGIN = 1e-6
"""How far the lowest lifted passage's score is lifted above the best other one."""
NAMED_LEAD: int | None = None
"""How many named passages lead a routed pool by default (``None``: all; module docstring)."""


def named_first(
    fused: np.ndarray, named: Sequence[bool] | np.ndarray, lead: int | None = NAMED_LEAD
) -> np.ndarray:
    """``fused`` with the ``lead`` best named passages lifted above every other (module
    docstring)."""
    scores = np.asarray(fused, dtype=np.float64)
    mask = np.asarray(named, dtype=bool)
    if mask.shape != scores.shape:
        raise ValueError(f"named has {mask.shape} entries for {scores.shape} scores")
    if lead is not None and (isinstance(lead, bool) or not isinstance(lead, int) or lead < 1):
        raise ValueError(f"lead must be a positive int or None, got {lead!r}")
    if not mask.any() or mask.all():
        return scores.copy()
    if lead is not None:
        rows = np.flatnonzero(mask)
        mask = np.zeros_like(mask)
        mask[rows[ranking(scores[rows])][:lead]] = True
    lift = max(0.0, float(scores[~mask].max() - scores[mask].min()) + NAMED_MARGIN)
    return scores + lift * mask
