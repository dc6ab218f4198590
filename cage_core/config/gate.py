"""Settings of the relevance gate that keeps a pool's relevance order
(:mod:`cage_core.ranking.relevance_gate`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from cage_core.config.validation import Flag, Int, Ranges, Real, Validated

__all__ = ["GateConfig"]


@dataclass(frozen=True)
class GateConfig(Validated):
    """Settings of the relevance gate (:mod:`cage_core.ranking.relevance_gate`): which pools
    keep their relevance order. A gated pool is ranked in the hybrid order itself (no
    coherence, no query-subject gain).

    Attributes:
        titled: gate a titled pool whose link evidence is weak.
        untitled: gate an untitled pool whose link evidence is weak.
        sentence_titles: gate a titled pool with weak links and fewer than half its titles names.
        min_query_subjects: the fewest passages about a part of the query that make links count.
        min_subject_share: gate an untitled pool where fewer passages have a subject; 0: off.
        unnamed_subjects: gate an untitled pool fewer than half of whose subjects are names.

    Where each default comes from (grid, metric, out-of-fold result, script, commit):
    ``docs/provenance.md``, rows ``gate.*``.
    """

    titled: bool = False
    untitled: bool = False
    sentence_titles: bool = True
    min_query_subjects: int = 1
    min_subject_share: float = 0.2
    unnamed_subjects: bool = True

    @property
    def enabled(self) -> bool:
        """Whether the gate acts on any pool."""
        return (
            self.titled
            or self.untitled
            or self.sentence_titles
            or self.min_subject_share > 0
            or self.unnamed_subjects
        )

    PREFIX: ClassVar[str] = "gate."
    RANGES: ClassVar[Ranges] = {
        "titled": Flag(),
        "untitled": Flag(),
        "sentence_titles": Flag(),
        "unnamed_subjects": Flag(),
        "min_query_subjects": Int(1, 1000),
        "min_subject_share": Real(0.0, 1.0),
    }
