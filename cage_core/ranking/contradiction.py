"""Factual-consistency signals between candidate passages (for cage-contra and TEGR).

Misinformation that copies a passage and changes one claim (RAMDocs' ``misinfo``
documents) shares most of its words with the original but not all of its entities and
values. For two passages i, j:

* ``keyword_overlap(i, j)`` = Jaccard overlap of their lower-cased word sets;
* they *conflict* when the overlap is at least ``threshold`` and each names an entity or
  value (entity nodes of their graphs, dates and numbers included) that the other lacks;
* the *losing side* is the passage whose distinctive values fewer of the other passages
  mention (majority of the remaining evidence); a tie has no loser;
* ``contradiction_penalty_i = max_j overlap(i, j)`` over the conflicts i loses (0 if none).

TEGR's contradiction-inversion strength of a conflicting pair is
``keyword_overlap × (1.5 − cosine)`` (:func:`inversion_score`).

CAGE's contradiction demotion (``CageConfig.contradiction_weight`` = ``w > 0``, every pool
kind) subtracts ``w · contradiction_penalty_i`` from ``f_i`` (and from ``r_i`` where the
evidence chain is selected): :func:`contradiction_demotion`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from cage_core.config import CageConfig
from cage_core.graphs.passage_graph import PassageGraph
from cage_core.passage import Passage

__all__ = [
    "conflicts",
    "contradiction_demotion",
    "contradiction_penalty",
    "inversion_score",
    "keyword_overlap",
    "word_set",
]

_WORD = re.compile(r"\w+")


def word_set(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower()))


def keyword_overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """Jaccard overlap ``|a ∩ b| / |a ∪ b|`` (0 for two empty sets)."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def inversion_score(overlap: float, cosine: float) -> float:
    """TEGR's contradiction-inversion score: ``overlap × (1.5 − cosine)``."""
    return overlap * (1.5 - cosine)


def conflicts(
    texts: Sequence[str], graphs: Sequence[PassageGraph], threshold: float
) -> list[tuple[int, int, float, int | None]]:
    """Conflicting pairs ``(i, j, overlap, loser)`` with ``i < j`` (loser None on a tie)."""
    k = len(texts)
    words = [word_set(t) for t in texts]
    values = [
        {label.lower() for label, ent in zip(g.labels, g.entity_types) if ent} for g in graphs
    ]
    lowered = [t.lower() for t in texts]
    found = []
    for i in range(k):
        for j in range(i + 1, k):
            overlap = keyword_overlap(words[i], words[j])
            only_i, only_j = values[i] - values[j], values[j] - values[i]
            if overlap < threshold or not only_i or not only_j:
                continue
            others = [m for m in range(k) if m not in (i, j)]
            support_i = sum(any(v in lowered[m] for v in only_i) for m in others)
            support_j = sum(any(v in lowered[m] for v in only_j) for m in others)
            loser = i if support_i < support_j else j if support_j < support_i else None
            found.append((i, j, overlap, loser))
    return found


def contradiction_penalty(
    texts: Sequence[str], graphs: Sequence[PassageGraph], threshold: float
) -> np.ndarray:
    """``[k]`` penalty: the overlap of the strongest conflict each passage loses."""
    penalty = np.zeros(len(texts))
    for _, _, overlap, loser in conflicts(texts, graphs, threshold):
        if loser is not None:
            penalty[loser] = max(penalty[loser], overlap)
    return penalty


def contradiction_demotion(
    passages: Sequence[Passage], graphs: Sequence[PassageGraph], config: CageConfig
) -> np.ndarray:
    """``[k]`` ``w · contradiction_penalty_i`` (zeros when ``contradiction_weight`` is 0 or
    the pool has one passage)."""
    k = len(passages)
    if not config.contradiction_weight or k < 2:
        return np.zeros(k)
    return config.contradiction_weight * contradiction_penalty(
        [p.content for p in passages], graphs, config.contradiction_overlap
    )
