"""Settings of the subject core that ranks an untitled pool
(:mod:`cage_core.ranking.untitled_core`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from cage_core.config.validation import UNIT, WEIGHT, Flag, Int, Ranges, Real, Validated

__all__ = ["UntitledConfig"]


@dataclass(frozen=True)
class UntitledConfig(Validated):
    """Settings of the default coherence on a pool where no passage has a title, which the
    evidence chain cannot rank (:mod:`cage_core.ranking.untitled_core`, where the formula is).

    Attributes:
        query_subject_weight: relevance added to the best passage on each subject the query names.
        forward_weight: link weight when a core passage's text names the candidate's subject.
        backward_weight: link weight when the candidate's text names a core passage's subject.
        core_decay: the link to the t-th most relevant core passage (from 0) counts ``decay**t``.
        alpha: fusion weight α of these pools, in place of :attr:`CageConfig.alpha`.
        aliases: match subjects also by their shorter forms (``subjects.subject_aliases``).
        chain_window: the short chain reorders only this many best passages; 0 turns it off.
        chain_length: how many passages the short chain ranks first.
        chain_mention_weight: gain of a candidate whose subject a chain passage's text names.
        chain_entity_weight: gain per shared-entity link to a chain passage, capped below.
        chain_entity_cap: cap of the shared-entity link in the short chain.
        chain_query_named_penalty: loss of a query-named candidate not the best on its part.

    Where each default comes from (grid, metric, out-of-fold result, script, commit):
    ``docs/provenance.md``, rows ``untitled.*``.
    """

    query_subject_weight: float = 1.0
    forward_weight: float = 2.0
    backward_weight: float = 1.0
    core_decay: float = 0.85
    alpha: float = 0.25
    aliases: bool = True
    chain_window: int = 5
    chain_length: int = 3
    chain_mention_weight: float = 6.0
    chain_entity_weight: float = 1.0
    chain_entity_cap: float = 2.0
    chain_query_named_penalty: float = 6.0

    RANGES: ClassVar[Ranges] = {
        "query_subject_weight": WEIGHT,
        "forward_weight": WEIGHT,
        "backward_weight": WEIGHT,
        "core_decay": UNIT,
        "alpha": UNIT,
        "aliases": Flag(),
        "chain_window": Int(0, 1000),
        "chain_length": Int(1, 1000),
        "chain_mention_weight": WEIGHT,
        "chain_entity_weight": WEIGHT,
        "chain_entity_cap": Real(0.0, 1e6),
        "chain_query_named_penalty": WEIGHT,
    }
