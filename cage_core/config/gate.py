"""Settings of the relevance gate that keeps a pool's relevance order
(:mod:`cage_core.ranking.relevance_gate`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from cage_core.config.validation import Flag, Int, Ranges, Real, validate

__all__ = ["GateConfig"]


@dataclass(frozen=True)
class GateConfig:
    """Settings of the relevance gate (:mod:`cage_core.ranking.relevance_gate`). Over every DEV
    file pooled (``benchmarks/beyond_cv.py``) the titled gate brought SciFact abstracts to
    hybrid (R@5 .777 → .783) but cost MuSiQue's closed pools .007 R@5 and HotpotQA's .002:
    off (not chosen on all folds); the sentence-titles gate acts on no Wikipedia pool and
    brings SciFact abstracts to .738 / .788 (hybrid .738 / .783): on, as a rule, not a
    choice (a pool of titles that are sentences has no confident subjects, so its links are
    shared entities alone, the weak evidence that must not move a passage; when the grid
    held it, 4 folds of 5 chose it); the untitled gate cost MuSiQue's open pools .038 R@5: off.
    The subject-share gate (``min_subject_share``; grid 0, 0.1, …, 0.5 in the same CV) was
    chosen at 0.2 by all five folds and on all folds: it acts on no Wikipedia pool and on no
    pool with document structure, brings RAMDocs open to .604 / .772 (from .595 / .769;
    closed .688 / .888 from .690 / .886, .687 with ``unnamed_subjects``; misinformation
    unchanged) and DragonBall chunks kept without their document ids to .672 / .754 (from
    .614 / .713; hybrid .664 / .757; not in the objective); 0.3 and above raise RAMDocs'
    misinformation. A gated pool is ranked in the hybrid order itself (no coherence, no
    query-subject gain).

    Attributes:
        titled: keep the relevance order of a titled pool whose link evidence is weak.
        untitled: keep the relevance order of an untitled pool whose link evidence is weak.
        sentence_titles: keep the relevance order of a titled pool whose link evidence is
            weak and fewer than half of whose titles are names (paper titles, headlines:
            :func:`~cage_core.ranking.relevance_gate.titles_are_names`).
        min_query_subjects: the fewest passages about a part of the query (``Σ Q``, or the
            titles it names) a pool needs for its links to move passages.
        min_subject_share: keep the relevance order of an untitled pool (ranked with the
            chain on) in which fewer than this share of the passages have a confident subject
            (:func:`~cage_core.ranking.relevance_gate.few_subjects`), whatever the query
            names; 0 turns it off.
        unnamed_subjects: keep the relevance order of an untitled pool (ranked with the
            chain on) fewer than half of whose subjects are names — tagged as a named entity
            by the parser, or named by the query
            (:func:`~cage_core.ranking.relevance_gate.few_named_subjects`) — whatever the
            query names: the untitled twin of ``sentence_titles``, and like it a rule, not a
            grid choice (scientific abstracts open with capitalised common nouns, "Hypoxia,
            a characteristic feature of ...", not names; SciFact chunks kept without their
            document ids ranked .683 / .773 without it, hybrid's .722 / .805 with it; it
            changes no figure of HotpotQA, 2Wiki or MuSiQue, RAMDocs' closed R@3 .688 →
            .687 and not its misinformation; ``benchmarks/beyond_cv.py``).
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
        return (self.titled or self.untitled or self.sentence_titles
                or self.min_subject_share > 0 or self.unnamed_subjects)  # fmt: skip

    RANGES: ClassVar[Ranges] = {
        "titled": Flag(),
        "untitled": Flag(),
        "sentence_titles": Flag(),
        "unnamed_subjects": Flag(),
        "min_query_subjects": Int(1, 1000),
        "min_subject_share": Real(0.0, 1.0),
    }
    """The accepted value of each field (checked by :func:`validate` at construction)."""

    def __post_init__(self) -> None:
        validate(self, self.RANGES, "gate.")

    def replace(self, **changes: Any) -> GateConfig:
        """Return a copy with ``changes`` applied (validated like a new config)."""
        return dataclasses.replace(self, **changes)
