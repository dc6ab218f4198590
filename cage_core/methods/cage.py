"""CAGE as a ranking method (:class:`CageMethod`): from one pool's inputs (query, passages,
similarities, graphs) to every CAGE score. The pool's kind, decided once (:func:`pool_kind`),
picks the module that scores it (:func:`score_pool`, the dispatch over the kinds).

==========  ============================================  ==========================================
kind        which pools                                   scored by; gates that keep relevance order
==========  ============================================  ==========================================
paper       every pool under ``coherence="rgcn"``         :mod:`cage_core.paper.mode`; none
document    two passages share a ``doc_id`` (and          :mod:`cage_core.ranking.kinds.document`;
            ``document.enabled``)                         none
untitled    no passage has a title (and the chain is on)  :mod:`cage_core.ranking.kinds.untitled`;
                                                          ``weak_link_evidence``, ``few_subjects``,
                                                          ``few_named_subjects``
titled      every other pool                              :mod:`cage_core.ranking.kinds.titled`;
                                                          ``weak_title_evidence``
==========  ============================================  ==========================================

Each kind's module states its formula. The relevance ``r_i = z(sim_i) + w_lex · z(bm25_i)``
of every kind but paper is :mod:`cage_core.ranking.kinds.bridge`'s; the gates are the
predicates of :mod:`cage_core.ranking.relevance_gate` (the first that fires is recorded,
:attr:`PoolScores.gate <cage_core.ranking.pool_scores.PoolScores.gate>`). Two add-ons apply
across kinds: ``contradiction_weight > 0`` demotes the passage on the losing side of a
conflict between near-duplicate passages, in every kind
(:func:`~cage_core.ranking.contradiction.contradiction_demotion`), and ``rgcn_weight > 0``
adds the paper's R-GCN coherence to the core of a titled or untitled pool
(:func:`~cage_core.paper.rgcn_term.plus_rgcn_to_core`). A changed setting that has no effect
on the pool's kind (``chain.length`` or ``alpha`` on a pool with document structure, say; the
table of what each kind reads is :mod:`cage_core.config.kinds`) is logged here, once per
setting and kind (:meth:`CageConfig.warn_ineffective_on
<cage_core.config.CageConfig.warn_ineffective_on>`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cage_core.config import CageConfig
from cage_core.graphs.passage_graph import PassageGraph
from cage_core.methods.base import Pool
from cage_core.paper.encodings import EncodingCache
from cage_core.paper.mode import paper_scores
from cage_core.paper.rgcn_term import plus_rgcn_to_core
from cage_core.passage import Passage
from cage_core.ranking.contradiction import contradiction_demotion
from cage_core.ranking.document_links import has_document_structure
from cage_core.ranking.kinds.bridge import bridge_inputs
from cage_core.ranking.kinds.document import document_scores
from cage_core.ranking.kinds.titled import titled_scores
from cage_core.ranking.kinds.untitled import untitled_scores
from cage_core.ranking.pool_scores import PoolKind, PoolScores

__all__ = ["CageMethod", "pool_kind", "score_pool"]


def pool_kind(passages: Sequence[Passage], config: CageConfig) -> PoolKind:
    """The kind of pool ``passages`` are under ``config`` (the table of the module docstring)."""
    if config.coherence == "rgcn":
        return "paper"
    if config.document.enabled and has_document_structure(passages):
        return "document"
    if config.chain.length and not any(p.title.strip() for p in passages):
        return "untitled"
    return "titled"


def score_pool(
    query: str,
    passages: Sequence[Passage],
    similarities: np.ndarray,
    graphs: Sequence[PassageGraph],
    config: CageConfig,
    encodings: EncodingCache | None = None,
) -> PoolScores:
    """All scores of one pool under ``config``, by its kind (module docstring); R-GCN
    encodings come from ``encodings`` when given, so variants can share them."""
    sims = np.asarray(similarities, dtype=np.float64)
    kind = pool_kind(passages, config)
    config.warn_ineffective_on(kind)
    demotion = contradiction_demotion(passages, graphs, config)
    if kind == "paper":
        return paper_scores(sims, graphs, config, demotion, encodings)
    if kind == "document":
        return document_scores(query, passages, sims, graphs, config.document, demotion)
    pool = bridge_inputs(query, passages, sims, graphs, config)
    add_on = plus_rgcn_to_core(graphs, config, encodings)
    if kind == "untitled":
        return untitled_scores(pool, config, demotion, add_on)
    return titled_scores(pool, config, demotion, add_on)


@dataclass(frozen=True)
class CageMethod:
    """CAGE under ``config`` (module docstring); what :class:`CageReranker
    <cage_core.reranker.CageReranker>` runs by default.

    Variants with the same encoder config share one encoding of the pool
    (:attr:`Pool.encodings <cage_core.methods.base.Pool.encodings>`).
    """

    name: str
    config: CageConfig
    needs_graphs: bool = True

    @property
    def needs_vectors(self) -> bool:
        """Whether this variant runs the R-GCN (which reads node word vectors)."""
        return self.config.uses_rgcn

    def pool_scores(self, pool: Pool) -> PoolScores:
        """Relevance, coherence, fused scores and pairwise matrix of ``pool``."""
        if pool.graphs is None:
            raise ValueError(f"method {self.name!r} needs the pool's passage graphs")
        return score_pool(
            pool.query, pool.passages, pool.similarities, pool.graphs, self.config, pool.encodings
        )

    def score(self, pool: Pool) -> np.ndarray:
        return self.pool_scores(pool).fused
