"""Do no harm: when a pool's link evidence is too weak to move a passage, keep the relevance order.

Coherence pays off where passages name each other; in an untitled pool where the query names
none of the passages' subjects (:attr:`SubjectLinks.query_subjects
<cage_core.subject_core.SubjectLinks.query_subjects>` all 0: a claim about a finding, a
question about "the company"), the subject core's links come from derived subjects and
shared entities alone, and these were measured to cost Recall (SciFact chunks without
document ids: ``benchmarks/beyond_cv.py``). With the gate on, such a pool is ranked by its
relevance ``r`` (the hybrid order) and gets no short chain:

``weak = Σ_j Q_j < min_query_subjects``

A pool with titles (the evidence chain) or with document structure (the document view,
:mod:`cage_core.document_links`) never reaches the gate.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class GateConfig:
    """Settings of the relevance gate (module docstring), chosen by 5-fold cross-validation over
    every DEV file pooled (``benchmarks/beyond_cv.py``).

    Attributes:
        enabled: keep the relevance order of an untitled pool whose link evidence is weak.
        min_query_subjects: the fewest passages about a part of the query (``Σ Q``) a pool
            needs for its links to move passages.
    """

    enabled: bool = False
    min_query_subjects: int = 1

    def __post_init__(self) -> None:
        from cage_core.config import check_bool, check_int

        check_bool("gate.enabled", self.enabled)
        check_int("gate.min_query_subjects", self.min_query_subjects, low=1, high=1000)

    def replace(self, **changes: Any) -> GateConfig:
        """Return a copy with ``changes`` applied (validated like a new config)."""
        return dataclasses.replace(self, **changes)


def weak_link_evidence(query_subjects: np.ndarray, config: GateConfig) -> bool:
    """Whether the gate keeps the relevance order for a pool with these ``Q`` (module docstring)."""
    return config.enabled and float(np.sum(query_subjects)) < config.min_query_subjects
