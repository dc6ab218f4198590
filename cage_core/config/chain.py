"""Settings of the evidence chain that ranks a titled pool (:mod:`cage_core.ranking.chain`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from cage_core.config.validation import WEIGHT, Int, Ranges, Real, Validated

__all__ = ["ChainConfig"]


@dataclass(frozen=True)
class ChainConfig(Validated):
    """Settings of the evidence-chain selection that ranks a titled pool
    (:mod:`cage_core.ranking.chain`, where the formula is).

    Attributes:
        length: passages the chain selects first; 0 turns it off (``core_size`` forms the core).
        title_weight: gain of a candidate whose title a selected passage's text names.
        entity_weight: gain per unit of shared-entity weight ``E_sj`` with a selected passage.
        entity_cap: the shared-entity weight counted at most (near-copies share many names).
        query_title_weight: gain of a candidate whose title the query names.

    Where each default comes from (grid, metric, out-of-fold result, script, commit):
    ``docs/provenance.md``, rows ``chain.*``.
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
