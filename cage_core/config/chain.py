"""Settings of the evidence chain that ranks a titled pool (:mod:`cage_core.ranking.chain`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from cage_core.config.validation import WEIGHT, Int, Ranges, Real, validate

__all__ = ["ChainConfig"]


@dataclass(frozen=True)
class ChainConfig:
    """Settings of the evidence-chain selection of the default coherence
    (:mod:`cage_core.ranking.chain`, where the formula is). Chosen by 5-fold
    cross-validation over the questions of the DEV files (README, "Evaluation").

    Attributes:
        length: how many passages the chain selects before the rest of the pool is ranked
            by bridge coherence to them; 0 turns the selection off (the ``core_size`` most
            relevant passages then form the core, as before cage-rag 0.3).
        title_weight: gain of a candidate whose title a selected passage's text names
            (the forward hop of a bridge question).
        entity_weight: gain per unit of shared-entity weight ``E_sj`` with a selected
            passage (:func:`~cage_core.ranking.links.shared_entity_links`).
        entity_cap: the shared-entity weight counted at most, so near-copies that share
            many names do not outweigh a single bridge.
        query_title_weight: gain of a candidate whose title the query names (both compared
            entities of a comparison question, the first hop of a bridge question).

    A redundancy check (no link gain from a near-copy of a selected passage, by word overlap)
    was cross-validated too and not chosen (commit d299c8b); it left in cage-rag 0.4.
    """

    length: int = 3
    title_weight: float = 6.0
    entity_weight: float = 0.6
    entity_cap: float = 5.0
    query_title_weight: float = 1.5

    RANGES: ClassVar[Ranges] = {
        "length": Int(0, 10_000),
        "title_weight": WEIGHT,
        "entity_weight": WEIGHT,
        "entity_cap": Real(0.0, 1e6),
        "query_title_weight": WEIGHT,
    }
    """The accepted value of each field (checked by :func:`validate` at construction)."""

    def __post_init__(self) -> None:
        validate(self, self.RANGES)

    def replace(self, **changes: Any) -> ChainConfig:
        """Return a copy with ``changes`` applied (validated like a new config)."""
        return dataclasses.replace(self, **changes)
