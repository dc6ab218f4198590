"""Do no harm: when a pool's link evidence is too weak to move a passage, keep the relevance order.

Coherence pays off where passages name each other; in an untitled pool where the query names
none of the passages' subjects (:attr:`SubjectLinks.query_subjects
<cage_core.subject_core.SubjectLinks.query_subjects>` all 0: a claim about a finding, a
question about "the company"), the subject core's links come from derived subjects and
shared entities alone, and these were measured to cost Recall (SciFact chunks without
document ids: ``benchmarks/beyond_cv.py``). With the gate on, such a pool is ranked by its
relevance ``r`` (the hybrid order) and gets no short chain:

``weak = Σ_j Q_j < min_query_subjects``

A titled pool is gated likewise when the query names none of its titles and no passage's
text names another's title (``T = 0``: the evidence chain would then follow shared entities
alone; SciFact abstracts are such pools). A pool with document structure (the document view,
:mod:`cage_core.document_links`) never reaches the gate.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class GateConfig:
    """Settings of the relevance gate (module docstring). Both off by default: over every DEV
    file pooled (``benchmarks/beyond_cv.py``) the titled gate brought SciFact abstracts to
    hybrid (R@5 .777 → .783) but cost MuSiQue's closed pools .007 R@5 and HotpotQA's .002, and
    cross-validation chose it in 3 of 5 folds but not on all folds; the untitled gate cost
    MuSiQue's open pools .038 R@5.

    Attributes:
        titled: keep the relevance order of a titled pool whose link evidence is weak.
        untitled: keep the relevance order of an untitled pool whose link evidence is weak.
        min_query_subjects: the fewest passages about a part of the query (``Σ Q``, or the
            titles it names) a pool needs for its links to move passages.
    """

    titled: bool = False
    untitled: bool = False
    min_query_subjects: int = 1

    @property
    def enabled(self) -> bool:
        """Whether the gate acts on any pool."""
        return self.titled or self.untitled

    def __post_init__(self) -> None:
        from cage_core.config import check_bool, check_int

        check_bool("gate.titled", self.titled)
        check_bool("gate.untitled", self.untitled)
        check_int("gate.min_query_subjects", self.min_query_subjects, low=1, high=1000)

    def replace(self, **changes: Any) -> GateConfig:
        """Return a copy with ``changes`` applied (validated like a new config)."""
        return dataclasses.replace(self, **changes)


def weak_link_evidence(query_subjects: np.ndarray, config: GateConfig) -> bool:
    """Whether the gate keeps the relevance order for an untitled pool with these ``Q``
    (module docstring)."""
    return config.untitled and float(np.sum(query_subjects)) < config.min_query_subjects


def weak_title_evidence(query_titles: np.ndarray, title_mentions: np.ndarray, config: GateConfig) -> bool:
    """Whether the gate keeps the relevance order for a titled pool: the query names fewer than
    ``min_query_subjects`` of its titles and no passage names another's title."""
    return (config.titled and float(np.sum(query_titles)) < config.min_query_subjects
            and not np.any(title_mentions))  # fmt: skip
