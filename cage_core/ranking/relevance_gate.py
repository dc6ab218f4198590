"""Do no harm: when a pool's link evidence is too weak to move a passage, keep the relevance order.

Coherence pays off where passages name each other; in an untitled pool where the query names
none of the passages' subjects (:attr:`SubjectLinks.query_subjects
<cage_core.ranking.untitled_core.SubjectLinks.query_subjects>` all 0: a claim about a finding, a
question about "the company"), the subject core's links come from derived subjects and
shared entities alone, and these were measured to cost Recall (SciFact chunks without
document ids: ``benchmarks/beyond_cv.py``). With the gate on, such a pool is ranked by its
relevance ``r`` (the hybrid order) and gets no short chain:

``weak = Σ_j Q_j < min_query_subjects``

A titled pool is gated likewise when the query names none of its titles and no passage's
text names another's title (``T = 0``: the evidence chain would then follow shared entities
alone; SciFact abstracts are such pools). A pool with document structure (the document view,
:mod:`cage_core.ranking.document_links`) never reaches the gate.
"""

from __future__ import annotations

import numpy as np

from cage_core.config import GateConfig  # defined with the other settings

__all__ = [
    "weak_link_evidence",
    "weak_title_evidence",
]


def weak_link_evidence(query_subjects: np.ndarray, config: GateConfig) -> bool:
    """Whether the gate keeps the relevance order for an untitled pool with these ``Q``
    (module docstring)."""
    return config.untitled and float(np.sum(query_subjects)) < config.min_query_subjects


def weak_title_evidence(
    query_titles: np.ndarray, title_mentions: np.ndarray, config: GateConfig
) -> bool:
    """Whether the gate keeps the relevance order for a titled pool: the query names fewer than
    ``min_query_subjects`` of its titles and no passage names another's title."""
    return (config.titled and float(np.sum(query_titles)) < config.min_query_subjects
            and not np.any(title_mentions))  # fmt: skip
