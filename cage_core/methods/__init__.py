"""Ranking methods behind one protocol, by name: baselines, CAGE and its ablations.

=================  ==========================================================
name               method
=================  ==========================================================
random             seeded random order
vanilla            all-MiniLM-L6-v2 cosine (the paper's Vanilla RAG)
bm25               BM25 with IDF over the pool
hybrid             the default's relevance alone: z(cosine) + 0.5·z(BM25)
cage               CAGE with the default configuration (bridge coherence)
cage-nodocs        ablation of cage: no document view (pools that share documents)
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
"""

from __future__ import annotations

from collections.abc import Callable

from cage_core.config import CageConfig
from cage_core.methods.base import ExplainedMethod, Pool, RankingMethod
from cage_core.methods.baselines import BM25Method, RandomMethod, VanillaMethod
from cage_core.methods.cage import CageMethod
from cage_core.methods.grapher import GraphERConfig, GraphERMethod
from cage_core.methods.scores import pool_scores
from cage_core.methods.tegr import LLMEdgeClassifier, RuleEdgeClassifier, TEGRConfig, TEGRMethod

CONTRA_WEIGHT = 3.0
"""cage-contra's contradiction weight, chosen on the RAMDocs DEV file (misinfo in top 2)."""


def _paper(config: CageConfig) -> CageConfig:
    """The paper preset, keeping the caller's encoder training settings (epochs, seed)."""
    return CageConfig.preset("paper").replace(
        epochs=config.encoder.epochs, seed=config.encoder.seed
    )


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
    "hybrid": lambda c: CageMethod(
        "hybrid",
        c.replace(
            alpha=1.0, chain=c.chain.replace(length=0), document=c.document.replace(enabled=False)
        ),
    ),
    "cage-nodocs": lambda c: CageMethod(
        "cage-nodocs", c.replace(document=c.document.replace(enabled=False))
    ),
    "cage": lambda c: CageMethod("cage", c),
    "cage-nochain": lambda c: CageMethod(
        "cage-nochain", c.replace(chain=c.chain.replace(length=0))
    ),
    "cage-nolexical": lambda c: CageMethod("cage-nolexical", c.replace(lexical_weight=0.0)),
    "cage-notitles": lambda c: CageMethod("cage-notitles", c.replace(title_links=False)),
    "cage-noentities": lambda c: CageMethod("cage-noentities", c.replace(entity_weight=0.0)),
    "cage-core1": lambda c: CageMethod(
        "cage-core1", c.replace(core_size=1, chain=c.chain.replace(length=0))
    ),
    "cage+rgcn": lambda c: CageMethod("cage+rgcn", c.replace(rgcn_weight=0.2)),
    "paper": lambda c: CageMethod("paper", _paper(c)),
    "cage-gcn": lambda c: CageMethod("cage-gcn", _paper(c).replace(encoder="gcn")),
    "cage-noreweight": lambda c: CageMethod("cage-noreweight", _paper(c).replace(beta=1.0)),
    "coherence-only": lambda c: CageMethod("coherence-only", _paper(c).replace(alpha=0.0)),
    "cage-contra": lambda c: CageMethod(
        "cage-contra", c.replace(contradiction_weight=CONTRA_WEIGHT)
    ),
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
    "get_method",
    "pool_scores",
    "register_method",
]
