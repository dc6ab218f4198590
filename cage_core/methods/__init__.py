"""Ranking methods behind one protocol, by name: baselines, CAGE and its ablations.

=================  ==========================================================
name               method
=================  ==========================================================
random             seeded random order
vanilla            all-MiniLM-L6-v2 cosine (the paper's Vanilla RAG)
bm25               BM25 with IDF over the pool
cage               CAGE with the default configuration
paper              CAGE exactly as the paper specifies (the ``paper`` preset)
cage-gcn           ablation: plain GCN instead of R-GCN
cage-noreweight    ablation: no min-out-degree reweighting (β = 1)
coherence-only     ablation: α = 0
=================  ==========================================================
"""

from __future__ import annotations

from collections.abc import Callable

from cage_core.config import CageConfig
from cage_core.methods.base import Pool, RankingMethod
from cage_core.methods.baselines import BM25Method, RandomMethod, VanillaMethod
from cage_core.methods.cage import CageMethod

_FACTORIES: dict[str, Callable[[CageConfig], RankingMethod]] = {
    "random": lambda c: RandomMethod(seed=c.seed),
    "vanilla": lambda c: VanillaMethod(),
    "bm25": lambda c: BM25Method(),
    "cage": lambda c: CageMethod("cage", c),
    "paper": lambda c: CageMethod("paper", CageConfig.preset("paper")),
    "cage-gcn": lambda c: CageMethod("cage-gcn", c.replace(encoder="gcn")),
    "cage-noreweight": lambda c: CageMethod("cage-noreweight", c.replace(beta=1.0)),
    "coherence-only": lambda c: CageMethod("coherence-only", c.replace(alpha=0.0)),
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
    "Pool",
    "RandomMethod",
    "RankingMethod",
    "VanillaMethod",
    "get_method",
    "register_method",
]
