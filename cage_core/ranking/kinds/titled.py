"""The titled kind: a pool where a passage has a title, or any bridge pool with the chain off.

With ``r`` the bridge relevance (:mod:`cage_core.ranking.kinds.bridge`) minus the contradiction
demotion ``d`` (:func:`~cage_core.ranking.contradiction.contradiction_demotion`):

* the core ``A`` = the evidence chain selected from ``r − d`` and the pool's links
  (:mod:`cage_core.ranking.chain`; its title hops follow given titles only); with
  ``chain.length == 0``, the ``core_size`` most relevant passages. A passage without a title
  is linked by its derived subject (:mod:`cage_core.names.subjects`) outside the chain;
* coherence ``c_i`` = bridge coherence to ``A`` (:mod:`cage_core.ranking.links`), plus any
  add-on term to ``A`` (the R-GCN's, :mod:`cage_core.paper.rgcn_term`);
* ``f_i = α·r_i + (1−α)·c_i − d_i``; the chain is then ranked first, in chain order
  (:func:`~cage_core.ranking.lift.chain_first`).

Gate (:func:`titled_gate`, chain on): :func:`~cage_core.ranking.relevance_gate.weak_title_evidence`
(the query names no title and no passage names another's): no chain and ``α = 1``, the
relevance order.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cage_core.config import CageConfig
from cage_core.ranking.chain import ChainLinks, ChainStep, select_chain
from cage_core.ranking.kinds.bridge import BridgeInputs, CoherenceAddOn
from cage_core.ranking.lift import chain_first
from cage_core.ranking.links import coherence_to_core, combined_links, core_indices, title_mentions
from cage_core.ranking.pool_scores import PoolScores
from cage_core.ranking.relevance_gate import weak_title_evidence
from cage_core.scoring import fuse

__all__ = ["titled_gate", "titled_scores"]


def titled_gate(
    query_titles: np.ndarray, title_hops: np.ndarray, titles: Sequence[str], config: CageConfig
) -> str | None:
    """The name of the gate that keeps this titled pool in relevance order, or ``None``."""
    if weak_title_evidence(query_titles, title_hops, config.gate, titles):
        return "weak_title_evidence"
    return None


def titled_scores(
    pool: BridgeInputs,
    config: CageConfig,
    demotion: np.ndarray,
    add_on: CoherenceAddOn | None = None,
) -> PoolScores:
    """The scores of a titled pool (module docstring)."""
    k = len(pool.passages)
    relevance, titles, texts, links = pool.relevance, pool.titles, pool.texts, pool.links
    subjects = [d.name for d in pool.subjects]  # the title, or derived
    title_hops = links.title_mentions() if config.title_links else np.zeros((k, k))
    titled = subjects == titles or not config.title_links
    mentions = title_hops if titled else title_mentions(subjects, texts)
    if not titled:
        links = links.named_by(subjects, mentions)
    matrix = combined_links(mentions, pool.entity_links, config.entity_weight)
    chain: tuple[ChainStep, ...] = ()
    alpha = config.alpha
    gate = None
    if config.chain.length:
        # the chain follows given titles only: a derived subject is too unsure a name for
        # its large title gain (what that cost: docs/history.md)
        query_titles = links.query_title_vector() if config.title_links else np.zeros(k)
        gate = titled_gate(query_titles, title_hops, titles, config)  # no harm
        if gate is not None:
            alpha = 1.0
        else:
            hops = ChainLinks(title_hops, pool.entity_links, query_titles)
            chain = select_chain(relevance - demotion, hops, config.chain)
        core = np.array([step.index for step in chain], dtype=np.int64)
    else:
        core = core_indices(relevance, config.core_size)
    coherence = coherence_to_core(matrix, core) if len(core) else np.zeros(k)
    if add_on is not None:
        coherence = add_on(coherence, core)
    fused = fuse(relevance, coherence, alpha) - demotion
    if chain:
        fused = chain_first(fused, chain)
    return PoolScores(
        relevance,
        coherence,
        fused,
        matrix,
        tuple(pool.graphs),
        pool.similarities,
        chain,
        links,
        kind="titled",
        gate=gate,
    )
