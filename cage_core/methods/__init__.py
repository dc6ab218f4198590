"""Ranking methods behind one protocol, by name: baselines, CAGE and its presets.

=================  ==========================================================
name               method
=================  ==========================================================
random             seeded random order
vanilla            all-MiniLM-L6-v2 cosine (the paper's Vanilla RAG)
bm25               BM25 with IDF over the pool
hybrid             the default's relevance alone: z(cosine) + 0.5·z(BM25)
cage-nodocs        ablation of cage: no document view (pools that share documents)
cage               CAGE with the default configuration (bridge coherence)
cage-nochain       ablation of cage: no evidence chain (the 0.2 default)
cage-nolexical     ablation of cage: cosine-only relevance
cage-notitles      ablation of cage: shared-entity links only
cage-noentities    ablation of cage: title-mention links only
cage-core1         ablation of cage: core of one passage
cage+rgcn          cage plus the paper's R-GCN coherence to the core (weight 0.2)
paper              CAGE exactly as the paper specifies (the ``paper`` preset)
cage-gcn           paper ablation: plain GCN instead of R-GCN
cage-noreweight    paper ablation: no min-out-degree reweighting (β = 1)
coherence-only     paper ablation: α = 0 (R-GCN coherence alone)
cage-contra        cage with the factual-consistency penalty (weight 3)
grapher            GraphER: enrichment-implied edges + personalised PageRank
tegr               TEGR: rule-typed edges + similarity-weighted walk
=================  ==========================================================

Every CAGE method, from ``hybrid`` to ``cage-contra``, is one :class:`CageMethod` under a
preset: a row of :data:`CAGE_PRESETS`, the settings it changes in the caller's config (or, for
the paper's method and its ablations, in the ``paper`` preset).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Literal

from cage_core.config import CageConfig
from cage_core.config.kinds import with_settings
from cage_core.methods.base import ExplainedMethod, Pool, RankingMethod
from cage_core.methods.baselines import BM25Method, RandomMethod, VanillaMethod
from cage_core.methods.cage import CageMethod
from cage_core.methods.grapher import GraphERConfig, GraphERMethod
from cage_core.methods.scores import pool_scores
from cage_core.methods.tegr import LLMEdgeClassifier, RuleEdgeClassifier, TEGRConfig, TEGRMethod

CONTRA_WEIGHT = 3.0
"""cage-contra's contradiction weight (why: ``docs/provenance.md``, ``contradiction_weight``)."""

CAGE_PRESETS: dict[str, tuple[Literal["caller", "paper"], Mapping[str, object]]] = {
    "hybrid": ("caller", {"alpha": 1.0, "chain.length": 0, "document.enabled": False}),
    "cage-nodocs": ("caller", {"document.enabled": False}),
    "cage": ("caller", {}),
    "cage-nochain": ("caller", {"chain.length": 0}),
    "cage-nolexical": ("caller", {"lexical_weight": 0.0}),
    "cage-notitles": ("caller", {"title_links": False}),
    "cage-noentities": ("caller", {"entity_weight": 0.0}),
    "cage-core1": ("caller", {"core_size": 1, "chain.length": 0}),
    "cage+rgcn": ("caller", {"rgcn_weight": 0.2}),
    "paper": ("paper", {}),
    "cage-gcn": ("paper", {"encoder.kind": "gcn"}),
    "cage-noreweight": ("paper", {"encoder.beta": 1.0}),
    "coherence-only": ("paper", {"alpha": 0.0}),
    "cage-contra": ("caller", {"contradiction_weight": CONTRA_WEIGHT}),
}
"""The CAGE methods by name: ``(base, settings)``, the settings (dotted names) changed in the
base, which is the caller's config (``"caller"``) or the ``paper`` preset with the caller's
encoder ``epochs`` and ``seed`` (``"paper"``)."""


def cage_preset(name: str, config: CageConfig) -> CageMethod:
    """The CAGE method ``name`` of :data:`CAGE_PRESETS` under the caller's ``config``."""
    base, settings = CAGE_PRESETS[name]
    if base == "paper":
        paper = CageConfig.preset("paper")
        encoder = {"encoder.epochs": config.encoder.epochs, "encoder.seed": config.encoder.seed}
        config = with_settings(paper, encoder)
    return CageMethod(name, with_settings(config, settings))


def _grapher(config: CageConfig) -> GraphERMethod:
    """GraphER with its default walk over the links ``config`` sets for CAGE's bridge."""
    return GraphERMethod(
        GraphERConfig(entity_weight=config.entity_weight, title_links=config.title_links)
    )


def _tegr(config: CageConfig) -> TEGRMethod:
    """TEGR with its default walk, typing conflicts from ``config``'s contradiction overlap."""
    return TEGRMethod(TEGRConfig(contradiction_overlap=config.contradiction_overlap))


_FACTORIES: dict[str, Callable[[CageConfig], RankingMethod]] = {
    "random": lambda c: RandomMethod(seed=c.encoder.seed),
    "vanilla": lambda c: VanillaMethod(),
    "bm25": lambda c: BM25Method(),
    **{name: partial(cage_preset, name) for name in CAGE_PRESETS},
    "grapher": _grapher,
    "tegr": _tegr,
}

METHOD_NAMES: tuple[str, ...] = tuple(_FACTORIES)


def register_method(name: str, factory: Callable[[CageConfig], RankingMethod]) -> None:
    """Make a method available by ``name`` to ``cage eval`` and :func:`get_method`."""
    global METHOD_NAMES
    _FACTORIES[name] = factory
    METHOD_NAMES = tuple(_FACTORIES)


def get_method(name: str, config: CageConfig | None = None) -> RankingMethod:
    """The method called ``name``, built with ``config`` (default :class:`CageConfig`)."""
    try:
        factory = _FACTORIES[name]
    except KeyError:
        raise ValueError(f"unknown method {name!r}; choose from {', '.join(_FACTORIES)}") from None
    return factory(config or CageConfig())


__all__ = [
    "CAGE_PRESETS",
    "CONTRA_WEIGHT",
    "METHOD_NAMES",
    "BM25Method",
    "CageMethod",
    "ExplainedMethod",
    "GraphERConfig",
    "GraphERMethod",
    "LLMEdgeClassifier",
    "Pool",
    "RandomMethod",
    "RankingMethod",
    "RuleEdgeClassifier",
    "TEGRConfig",
    "TEGRMethod",
    "VanillaMethod",
    "cage_preset",
    "get_method",
    "pool_scores",
    "register_method",
]
