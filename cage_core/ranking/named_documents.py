"""A pool whose question names documents: their passages first, each document's name once.

When routing (:mod:`cage_core.expansion.routing`) finds that the question names documents,
the pool is ranked for the question *less the words that name them* (the caller passes that
question), and the passages of the named documents are put ahead of every other passage —
the document's name counts once, for the document, not once per chunk that repeats it::

    g_i = (f_i + λ·r_i) / (1 + λ)  if i is named, else f_i
    f'_i = g_i + Δ·[i named],   Δ = max(0, max_{j not named} g_j − min_{i named} g_i + ε)

``f`` is the method's fused score, ``r`` its relevance term (CAGE's ``PoolScores.relevance``;
none for a method that has no such term of its own: ``λ·r = 0``), ``λ`` =
:data:`NAMED_RELEVANCE_WEIGHT` and ``ε`` = :data:`NAMED_MARGIN`. The named passages are ordered
by ``f + λ·r``: they are chunks of the few documents the question names, so what links them to
one another says less than how well each matches the question (divided by ``1 + λ``, so their
scores keep the scale of ``f``, which the frameworks' 0–1 score reads:
:mod:`cage_core.relevance`). The others keep the method's order for the question *as
asked*, its naming words kept (ties as :func:`cage_core.scoring.ranking` breaks them): those
words say which passages lead, and link the others to them ("the arena where the Lewiston
Maineiacs played": the arena's page names the team); with no named passage, or none other,
``f' = f``. When the question names two documents, it asks about both: the best passage of
each (by ``g``) is lifted once more, by the same rule, above every other named passage, so neither
document fills the top k alone (:func:`document_leads`; both lifts: :func:`named_order`).

A question routed to one document that asks two or more things (:mod:`cage_core.ranking.asks`:
"How long is a director's term according to the role description, and how long does the
nomination period stay open?") may need another document for its other ask. The pool's best
passage of no named document (by ``f``) then keeps a place in the top
:data:`OTHER_KEPT_RANK` (:func:`other_kept`): routing decides which document leads, not that
every other document leaves the top 5.

Why ``λ``, the other passage's place and every named passage leading (not the best few): the
``named_order.*`` rows of ``docs/provenance.md``; the orders tried and not chosen:
``docs/history.md``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cage_core.passage import Passage
from cage_core.ranking.asks import asked_parts
from cage_core.ranking.pool_scores import PoolScores
from cage_core.scoring import ranking

__all__ = [
    "NAMED_MARGIN",
    "NAMED_RELEVANCE_WEIGHT",
    "OTHER_KEPT_RANK",
    "document_leads",
    "named_first",
    "named_order",
    "named_pool_order",
    "other_kept",
    "own_relevance",
    "reads_as_asked",
]

NAMED_MARGIN = 1e-6
"""How far the lowest named passage's score is lifted above the best other one."""
NAMED_RELEVANCE_WEIGHT = 0.5
"""``λ``: how much of its relevance term a named passage's score gains (module docstring)."""
OTHER_KEPT_RANK = 5
"""The rank the pool's best passage of no named document keeps, at worst, in a two-ask
question routed to one document (module docstring)."""


def named_first(fused: np.ndarray, named: Sequence[bool] | np.ndarray) -> np.ndarray:
    """``fused`` with the named passages lifted above every other (module docstring)."""
    scores = np.asarray(fused, dtype=np.float64)
    mask = np.asarray(named, dtype=bool)
    if mask.shape != scores.shape:
        raise ValueError(f"named has {mask.shape} entries for {scores.shape} scores")
    if not mask.any() or mask.all():
        return scores.copy()
    lift = max(0.0, float(scores[~mask].max() - scores[mask].min()) + NAMED_MARGIN)
    return scores + lift * mask


def document_leads(
    fused: np.ndarray, named: Sequence[bool] | np.ndarray, documents: Sequence[str | None]
) -> np.ndarray:
    """``[k]`` the best named passage (by ``fused``; ties: the earlier) of each named document
    in ``documents`` (each passage's ``doc_id``), when the named passages are of two or more
    documents; all false otherwise (module docstring)."""
    scores = np.asarray(fused, dtype=np.float64)
    best: dict[str, int] = {}
    for i in ranking(scores):
        doc_id = documents[i]
        if named[i] and doc_id is not None and doc_id not in best:
            best[doc_id] = int(i)
    leads = np.zeros(len(scores), dtype=bool)
    if len(best) > 1:
        leads[list(best.values())] = True
    return leads


def named_order(
    fused: np.ndarray,
    named: Sequence[bool] | np.ndarray,
    documents: Sequence[str | None],
    relevance: np.ndarray | None = None,
    question: str = "",
) -> np.ndarray:
    """``f'`` of the module docstring: ``fused`` with the named passages first, ordered by
    ``(fused + λ·relevance) / (1 + λ)`` (``relevance`` ``None``: by ``fused``), and, of two or
    more named documents, the best passage of each ahead of the other named ones
    (:func:`named_first`, then :func:`named_first` again over the :func:`document_leads`);
    when ``question`` (the one the pool is ranked for) asks two or more things and the named
    passages are of one document, the best passage of no named document is kept in the top
    :data:`OTHER_KEPT_RANK` (:func:`other_kept`)."""
    original = scores = np.asarray(fused, dtype=np.float64)
    mask = np.asarray(named, dtype=bool)
    if relevance is not None and mask.shape == scores.shape and mask.any() and not mask.all():
        terms = np.asarray(relevance, dtype=np.float64)
        if terms.shape != scores.shape:
            raise ValueError(f"relevance has {terms.shape} entries for {scores.shape} scores")
        if not np.isfinite(terms[mask]).all():
            raise ValueError("the named passages' relevance terms must be finite")
        blended = (scores + NAMED_RELEVANCE_WEIGHT * terms) / (1 + NAMED_RELEVANCE_WEIGHT)
        scores = np.where(mask, blended, scores)
    lifted = named_first(scores, mask)
    ordered = named_first(lifted, document_leads(lifted, mask, documents))
    one_document = len({documents[int(i)] for i in np.flatnonzero(mask)}) == 1
    if question and one_document and asked_parts(question) >= 2:
        return other_kept(ordered, original, mask)
    return ordered


def named_pool_order(
    scores: PoolScores,
    named: Sequence[bool] | np.ndarray,
    passages: Sequence[Passage],
    question: str,
    asked: PoolScores | None = None,
) -> np.ndarray:
    """:func:`named_order` of a scored pool: its passages' documents, the method's own
    relevance term (:func:`own_relevance`) and the question the pool is ranked for;
    ``asked``, the same pool's scores for the question as asked, orders the passages of no
    named document (module docstring)."""
    documents = [p.doc_id for p in passages]
    fused = scores.fused
    if asked is not None:
        mask = np.asarray(named, dtype=bool)
        if asked.fused.shape != mask.shape:
            raise ValueError(f"asked has {asked.fused.shape} scores for {mask.shape} passages")
        fused = np.where(mask, scores.fused, asked.fused)
    return named_order(fused, named, documents, own_relevance(scores), question)


def reads_as_asked(named: Sequence[bool] | np.ndarray, question: str, asked: str) -> bool:
    """Whether :func:`named_pool_order` needs the pool's scores for the question ``asked``: it
    differs from the ``question`` the pool is ranked for, and some passage is of no named
    document (when every passage is named, those scores order none)."""
    return asked != question and not np.asarray(named, dtype=bool).all()


def other_kept(
    scores: np.ndarray, fused: np.ndarray, named: Sequence[bool] | np.ndarray
) -> np.ndarray:
    """``scores`` with the best passage of no named document (by ``fused``; ties: the earlier)
    raised just above the :data:`OTHER_KEPT_RANK`-th best score when it ranks below that: it
    ranks there (or above the passages that tie that score), the passages from there on one
    lower; unchanged when it ranks there already or every passage is named."""
    out = np.asarray(scores, dtype=np.float64).copy()
    mask = np.asarray(named, dtype=bool)
    others = np.flatnonzero(~mask)
    if len(out) <= OTHER_KEPT_RANK or len(others) == 0:
        return out
    best = int(others[ranking(np.asarray(fused, dtype=np.float64)[others])[0]])
    top = ranking(out)[:OTHER_KEPT_RANK]
    if best in top:
        return out
    out[best] = np.nextafter(out[top[-1]], np.inf)
    return out


def own_relevance(scores: PoolScores) -> np.ndarray | None:
    """The relevance term :func:`named_order` reads of ``scores``: CAGE's own (every pool kind
    of CAGE and its variants but the paper's, whose ranking stays the paper's); ``None`` for
    a method that is not CAGE, whose ``relevance`` is the bare similarity."""
    return None if scores.kind in (None, "paper") else scores.relevance
