"""How well a ``[k, k]`` link-score matrix finds the links between a question's gold passages.

For one pool with gold mask ``g`` and symmetric scores ``S`` (only ``S_ij``, ``i < j``, is read
for the pair metrics), the positives are the unordered pairs of two gold passages and the
negatives all other pairs ``i < j``:

* **pair AP**: average precision of the pairs ranked by ``S_ij``, ties grouped as one
  threshold: ``AP = Σ_t (R_t − R_{t−1}) · P_t`` over the distinct scores ``t``
  (descending), ``P_t``/``R_t`` the precision/recall of the pairs scoring ``≥ t``
  (scikit-learn's ``average_precision_score``);
* **pair AUC**: the probability that a positive pair outscores a negative one, ties
  counting one half;
* **hop@1** ("second hop"): the first hop is the gold passage most similar to the question
  (highest MiniLM cosine among gold; ties: lowest index); its partner is the
  highest-scoring other passage of the pool, ``argmax_{j ≠ g1} S_{g1 j}``. hop@1 is 1 when
  that partner is gold — with tied top scores, the fraction of the tied passages that are
  gold (the expected value under a random tie break);
* **rescue@1**: how the scores fill the first place after the core, the way CAGE's bridge
  coherence uses links (:mod:`cage_core.bridge`): the core ``A`` is the
  :data:`CORE_SIZE` passages most similar to the question (ties: lowest index), each
  other passage scores ``b_i = max_{a ∈ A} S_ia``, and rescue@1 is 1 when the best of them
  is gold (ties as for hop@1). Defined when some gold passage is outside the core.

Each is ``nan`` where undefined (no positive or no negative pair; fewer than two gold
passages), and means skip ``nan``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cage_core.scoring import ranking

CORE_SIZE = 3
"""Size of the relevance core of rescue@1 (the default ``CageConfig.core_size``)."""


def _pairs(scores: np.ndarray, gold: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    k = len(gold)
    if scores.shape != (k, k):
        raise ValueError(f"scores must have shape [{k}, {k}], got {scores.shape}")
    a, b = np.triu_indices(k, 1)
    return scores[a, b].astype(np.float64), gold[a] & gold[b]


def pair_average_precision(scores: np.ndarray, gold: np.ndarray) -> float:
    """Pair AP of the module docstring."""
    values, positive = _pairs(scores, np.asarray(gold, dtype=bool))
    n_pos = int(positive.sum())
    if n_pos == 0 or n_pos == len(values):
        return float("nan")
    order = np.argsort(-values, kind="stable")
    values, positive = values[order], positive[order]
    last_of_tie = np.r_[values[1:] != values[:-1], True]
    tp = np.cumsum(positive)[last_of_tie]
    seen = (np.arange(len(values)) + 1)[last_of_tie]
    recall = tp / n_pos
    precision = tp / seen
    return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))


def pair_auc(scores: np.ndarray, gold: np.ndarray) -> float:
    """Pair AUC of the module docstring."""
    values, positive = _pairs(scores, np.asarray(gold, dtype=bool))
    pos, neg = values[positive], values[~positive]
    if not len(pos) or not len(neg):
        return float("nan")
    greater = (pos[:, None] > neg[None, :]).sum()
    equal = (pos[:, None] == neg[None, :]).sum()
    return float((greater + 0.5 * equal) / (len(pos) * len(neg)))


def first_hop(gold: np.ndarray, similarities: np.ndarray) -> int:
    """The gold passage with the highest question similarity (ties: lowest index)."""
    gold_idx = np.flatnonzero(gold)
    return int(gold_idx[np.argmax(np.asarray(similarities)[gold_idx])])


def second_hop(scores: np.ndarray, gold: np.ndarray, similarities: np.ndarray) -> float:
    """hop@1 of the module docstring."""
    gold = np.asarray(gold, dtype=bool)
    if gold.sum() < 2:
        return float("nan")
    g1 = first_hop(gold, similarities)
    others = np.array([j for j in range(len(gold)) if j != g1])
    row = scores[g1, others]
    tied = others[row == row.max()]
    return float(gold[tied].mean())


def rescue(scores: np.ndarray, gold: np.ndarray, similarities: np.ndarray) -> float:
    """rescue@1 of the module docstring."""
    gold = np.asarray(gold, dtype=bool)
    core = ranking(np.asarray(similarities, dtype=np.float64))[:CORE_SIZE]
    rest = np.setdiff1d(np.arange(len(gold)), core)
    if not gold[rest].any():
        return float("nan")
    best = scores[np.ix_(rest, core)].max(axis=1)
    return float(gold[rest[best == best.max()]].mean())


@dataclass(frozen=True)
class LinkMetrics:
    """The four metrics of one pool."""

    ap: float
    auc: float
    hop: float
    rescue: float

    @classmethod
    def of(cls, scores: np.ndarray, gold: np.ndarray, similarities: np.ndarray) -> LinkMetrics:
        return cls(pair_average_precision(scores, gold), pair_auc(scores, gold),
                   second_hop(scores, gold, similarities), rescue(scores, gold, similarities))  # fmt: skip


def mean_metrics(items: list[LinkMetrics]) -> LinkMetrics:
    """Per-metric means over the pools where the metric is defined (``nan`` if none)."""

    def mean(values: list[float]) -> float:
        kept = [v for v in values if not np.isnan(v)]
        return float(np.mean(kept)) if kept else float("nan")

    return LinkMetrics(mean([m.ap for m in items]), mean([m.auc for m in items]),
                       mean([m.hop for m in items]), mean([m.rescue for m in items]))  # fmt: skip
