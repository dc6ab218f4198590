"""What the titled and the untitled kinds both read of one pool (:func:`bridge_inputs`).

The relevance ``r_i = z(sim_i) + w_lex · z(bm25_i)``: the query cosine and pool-IDF BM25,
each standardised within the pool (``z(x) = (x − mean)/std``, 0 when constant; ``w_lex`` =
``CageConfig.lexical_weight``); the pool's links (:mod:`cage_core.ranking.links`) and each
passage's subject (:mod:`cage_core.names.subjects`: its title if any, else derived).

A kind may add a coherence term to the core it chose (:data:`CoherenceAddOn`): the paper's
R-GCN term (:mod:`cage_core.paper.rgcn_term`), which the kinds do not import.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from cage_core.config import CageConfig
from cage_core.graphs.passage_graph import PassageGraph
from cage_core.names.subjects import Subject, derive_subject
from cage_core.passage import Passage
from cage_core.ranking.links import PoolLinks, pool_links
from cage_core.ranking.pool_bm25 import pool_bm25
from cage_core.scoring import standardize

__all__ = ["BridgeInputs", "CoherenceAddOn", "bridge_inputs"]

CoherenceAddOn = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""``(c, A) → c'``: a pool's coherence ``c`` with a term to the core ``A`` (pool positions)
added."""


@dataclass(frozen=True, eq=False)
class BridgeInputs:
    """What both bridge modes read of one pool (:func:`bridge_inputs`)."""

    query: str
    passages: Sequence[Passage]
    graphs: Sequence[PassageGraph]
    similarities: np.ndarray
    relevance: np.ndarray
    """``[k]`` ``r_i = z(sim_i) + w_lex · z(bm25_i)``."""
    lexical: np.ndarray
    """``[k]`` ``z(bm25_i)`` (zeros when ``lexical_weight`` is 0)."""
    titles: list[str]
    texts: list[str]
    links: PoolLinks
    subjects: list[Subject]
    """Each passage's :func:`~cage_core.names.subjects.derive_subject` (its title if any)."""
    entity_links: np.ndarray
    """``[k, k]`` ``E``, the shared-entity links."""


def bridge_inputs(
    query: str,
    passages: Sequence[Passage],
    sims: np.ndarray,
    graphs: Sequence[PassageGraph],
    config: CageConfig,
) -> BridgeInputs:
    """The relevance, links and subjects of a bridge-mode pool."""
    relevance = standardize(sims)
    lexical = np.zeros(len(passages))
    if config.lexical_weight:
        lexical = standardize(pool_bm25(query, [p.content for p in passages]))
        relevance = relevance + config.lexical_weight * lexical
    titles = [p.title for p in passages]
    texts = [p.text for p in passages]
    links = pool_links(query, titles, texts, graphs)
    rules = config.string_rules
    subjects = [derive_subject(p, g, rules=rules) for p, g in zip(passages, graphs)]
    return BridgeInputs(
        query,
        passages,
        graphs,
        sims,
        relevance,
        lexical,
        titles,
        texts,
        links,
        subjects,
        links.entity_links(),
    )
