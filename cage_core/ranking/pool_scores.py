"""What CAGE computed for one pool, and which path the pool took: :class:`PoolScores`.

The *path* (:attr:`PoolScores.path`, a :class:`~cage_core.passage.RankingPath`) is the pool's
kind (:data:`PoolKind`, decided once by :func:`~cage_core.methods.cage.pool_kind`) and, when a
gate of that kind kept the relevance order (:mod:`cage_core.ranking.relevance_gate`), the
gate's name; it reads ``"untitled"``, ``"untitled, gated: few_subjects"``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cage_core.config.kinds import PoolKind  # with the table of the settings each kind reads
from cage_core.graphs.passage_graph import PassageGraph
from cage_core.passage import RankingPath
from cage_core.ranking.chain import ChainStep
from cage_core.ranking.document_links import DocumentView
from cage_core.ranking.links import PoolLinks

__all__ = ["POOL_KINDS", "PoolKind", "PoolScores"]

POOL_KINDS: tuple[PoolKind, ...] = ("paper", "document", "untitled", "titled")


@dataclass(frozen=True, eq=False)
class PoolScores:
    """Every score CAGE computes for one pool, in input order (for inspection/explanation)."""

    relevance: np.ndarray
    """``[k]`` the relevance term of the fusion (see :mod:`cage_core.methods.cage`)."""
    coherence: np.ndarray
    """``[k]`` the coherence term of the fusion."""
    fused: np.ndarray
    """``[k]`` f_i."""
    matrix: np.ndarray
    """``[k, k]`` pairwise coherence: bridge links L (bridge mode) or R-GCN cosines C."""
    graphs: tuple[PassageGraph, ...]
    similarities: np.ndarray
    """``[k]`` the query–passage similarities given or computed (before normalisation)."""
    chain: tuple[ChainStep, ...] = ()
    """The evidence chain that heads the ranking (bridge mode with ``chain.length > 0``)."""
    links: PoolLinks | None = None
    """The pool's link parts (bridge mode), with the names the ranking linked untitled passages
    by when it used any (:meth:`PoolLinks.named_by <cage_core.ranking.links.PoolLinks.named_by>`),
    for the explanations."""
    documents: DocumentView | None = None
    """The document view that ranked the pool (a pool with document structure), for the
    explanations' document links."""
    kind: PoolKind | None = None
    """The pool's :data:`PoolKind` under CAGE (and every variant of it, e.g. ``hybrid``);
    ``None`` for a method that is not CAGE."""
    gate: str | None = None
    """The name of the gate that kept the relevance order (a predicate of
    :mod:`cage_core.ranking.relevance_gate`, e.g. ``"few_subjects"``), or ``None``."""
    method: str = ""
    """The name of the method that scored the pool (set by
    :func:`cage_core.methods.pool_scores`; ``""`` when scored without one)."""

    @property
    def path(self) -> RankingPath:
        """The path the pool took: ``kind``, ``gate`` and ``method``."""
        return RankingPath(self.kind, self.gate, self.method)
