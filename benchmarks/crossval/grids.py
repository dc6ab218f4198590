"""The grids the defaults were chosen from, one per tuning script, in one place.

Each grid is ``{setting name: values}`` (:func:`crossval.choice.grid_points` makes its
points); the comment names the config it tunes and the script that searches it.
"""

from __future__ import annotations

__all__ = [
    "CHAIN_GRID",
    "DOCUMENT_GRID",
    "DOCUMENT_LINK_GRID",
    "EXPANSION_CITED",
    "EXPANSION_LIMITS",
    "EXPANSION_SEEDS",
    "GATE_FIELDS",
    "LINK_WEIGHTS_GRID",
    "ROUTING_GRID",
    "UNTITLED_CHAIN_GRID",
    "UNTITLED_GRID",
    "VIEW_GRID",
]

CHAIN_GRID: dict[str, tuple[float, ...]] = {  # ChainConfig; tuning/chain_cv.py
    "title_weight": (4.0, 6.0, 10.0),
    "entity_weight": (0.5, 0.6, 0.8),
    "query_title_weight": (1.25, 1.5, 1.75),
    "entity_cap": (5.0, 1e6),
}
# Until cage-rag 0.4 the grid also held a redundancy check ("redundancy_overlap": (0.6, 1.0),
# 1.0 = off); every fold chose it off (commit d299c8b), so the check left the code.

UNTITLED_GRID: dict[str, tuple[float, ...]] = {  # UntitledConfig; tuning/untitled_cv.py
    "query_subject_weight": (0.0, 0.5, 1.0, 1.5),
    "forward_weight": (1.0, 1.5, 2.0, 2.5, 3.0, 4.0),
    "backward_weight": (0.5, 1.0),
    "core_decay": (1.0, 0.85, 0.7, 0.5),
    "alpha": (0.25, 1 / 3, 0.4, 0.5),
    "aliases": (True, False),
}

UNTITLED_CHAIN_GRID: dict[str, tuple[float, ...]] = {  # UntitledConfig.chain_*; untitled_chain_cv
    "chain_window": (0, 5),
    "chain_length": (2, 3),
    "chain_mention_weight": (1.0, 2.0, 3.0, 4.0, 6.0, 10.0),
    "chain_entity_weight": (0.0, 0.5, 1.0),
    "chain_entity_cap": (2.0, 3.0),
    "chain_query_named_penalty": (0.0, 1.0, 3.0, 6.0, 10.0),
}
# Until cage-rag 0.4 the grid also held "chain_same_subject_penalty": (0.0, 1.0, 3.0, 6.0), a
# loss for a candidate sharing a name with a chain passage; the point chosen on all folds was 0
# (off), so the penalty and its [k, k] matrix left the code.

DOCUMENT_GRID: dict[str, tuple[float, ...]] = {  # DocumentConfig, GateConfig; tuning/beyond_cv.py
    "document_weight": (0.0, 1.0, 2.0, 3.0),
    "adjacent_weight": (0.0, 0.5, 1.0, 1.5),
    "anchors": (0, 1, 2),
    "lexical_weight": (0.5, 1.0, 1.5, 2.0),
    "gate": (False, True),  # GateConfig.titled (the untitled gate: measured, see stripped())
    "sentence_titles": (True,),  # GateConfig.sentence_titles: a rule, not a choice
    "unnamed_subjects": (True,),  # GateConfig.unnamed_subjects: its untitled twin, a rule too
    "subject_share": (0.0, 0.1, 0.2, 0.3, 0.4, 0.5),  # GateConfig.min_subject_share
}
GATE_FIELDS = {
    "gate": "titled",
    "sentence_titles": "sentence_titles",
    "unnamed_subjects": "unnamed_subjects",
    "subject_share": "min_subject_share",
}
"""Grid names of the GateConfig fields of :data:`DOCUMENT_GRID` (they act on pools without
document structure); the other names are DocumentConfig fields."""
VIEW_GRID = {k: v for k, v in DOCUMENT_GRID.items() if k not in GATE_FIELDS}
"""The DocumentConfig fields of :data:`DOCUMENT_GRID`: the document view's own grid."""

DOCUMENT_LINK_GRID: tuple[tuple[float, float], ...] = (  # LinkWeights; tuning/sibling_cv.py
    (1.0, 0.5),
    (1.0, 0.0),
    (0.5, 0.25),
    (1.0, 0.25),
    (1.5, 0.5),
    (1.0, 1.0),
    (0.0, 0.0),
)
"""(adjacent, sibling) pairs of the link index's document links; the first was the shipped
default when the grid ran (it chose sibling = 0)."""

LINK_WEIGHTS_GRID: tuple[dict[str, float], ...] = (  # LinkWeights; tuning/link_weights_cv.py
    {},
    {"forward": 0.5},
    {"forward": 2.0},
    {"backward": 0.25},
    {"backward": 1.0},
    {"shared": 0.0},
    {"shared": 0.25},
    {"shared": 1.0},
    {"seed_decay": 0.6},
    {"seed_decay": 1.0},
    {"max_shared_df": 10},
    {"max_shared_df": 50},
    {"adjacent": 0.0},
    {"adjacent": 0.5},
    {"adjacent": 1.5},
)
"""The link weights: the shipped :class:`~cage_core.expansion.algorithm.LinkWeights` (``{}``),
then each field moved alone (``adjacent`` was first chosen by :data:`DOCUMENT_LINK_GRID`, on
DragonBall and SciFact chunks alone)."""

EXPANSION_CITED = (0, 1, 4)  # the expansion retrievers' cited; tuning/link_weights_cv.py
"""The documents the seeds cite that the expansion retrievers follow at most, beside the
shipped 2 (:data:`LINK_WEIGHTS_GRID`'s first point): each a point of ``link_weights_cv.py``
with the shipped weights. ``cage eval``'s pools follow no citation, so only the folders move."""

EXPANSION_SEEDS = (1, 2, 3, 4, 5, 6)  # ExpansionSettings.seeds; tuning/link_expansion.py
EXPANSION_LIMITS = (0, 3, 5, 8, 10, 15, 20)  # ExpansionSettings.limit; tuning/link_expansion.py

ROUTING_GRID: dict[str, tuple[float, ...]] = {  # RoutingSettings; tuning/routing_cv.py
    "min_score": (0.75, 1.0, 1.5, 2.0, 2.5, 3.0),
    "min_gap": (1.25, 1.5, 2.0),
    "naming_share": (0.02, 0.05, 0.1, 0.2),
    "min_naming_words": (1, 2, 3),
    "chunks": (5, 10, 20),
}
"""Routing's bounds (:class:`~cage_core.expansion.routing.RoutingSettings`); "no routing" is
the first point of the cross-validation beside them."""
