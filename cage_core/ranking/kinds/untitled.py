"""The untitled kind: a bridge pool, chain on, where no passage has a title.

The relevance ``r'``, core ``A``, coherence ``c`` and ``α_u`` are those of the subject core
(:mod:`cage_core.ranking.untitled_core`), plus any add-on term to ``A`` (the R-GCN's,
:mod:`cage_core.paper.rgcn_term`); ``f_i = α_u·r'_i + (1−α_u)·c_i − d_i`` with ``d`` the
contradiction demotion (:func:`~cage_core.ranking.contradiction.contradiction_demotion`).
The short chain (:func:`~cage_core.ranking.untitled_core.short_chain`) is then ranked first
(:func:`~cage_core.ranking.lift.ranked_first`), chosen among distinct passages that no
contradiction demotes (the chain's links must not lift a passage back over a conflict it
lost): an exact duplicate of a chain passage shares its place and score.

Gates (:func:`untitled_gate`, :mod:`cage_core.ranking.relevance_gate`), the first that fires
named: ``weak_link_evidence`` (the query names no passage's subject), ``few_subjects`` (few
passages have a confident subject), ``few_named_subjects`` (fewer than half of the subjects
are names). A gated pool keeps the bridge relevance order ``r`` (the hybrid order): no
coherence, no short chain, none of the subject core's gains.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cage_core.config import CageConfig
from cage_core.ranking.kinds.bridge import BridgeInputs, CoherenceAddOn
from cage_core.ranking.lift import ranked_first
from cage_core.ranking.pool_scores import PoolScores
from cage_core.ranking.relevance_gate import few_named_subjects, few_subjects, weak_link_evidence
from cage_core.ranking.untitled_core import (
    SubjectLinks,
    short_chain,
    subject_core_scores,
    subject_links,
    untitled_subject,
)
from cage_core.scoring import fuse

__all__ = ["untitled_gate", "untitled_scores"]


def untitled_gate(
    pool: BridgeInputs, untitled: SubjectLinks, confident: Sequence[str], config: CageConfig
) -> str | None:
    """The name of the first gate that keeps this untitled pool in relevance order, or
    ``None`` (``confident``: each passage's
    :func:`~cage_core.ranking.untitled_core.untitled_subject`)."""
    if weak_link_evidence(untitled.query_subjects, config.gate):  # do no harm
        return "weak_link_evidence"
    if few_subjects(confident, config.gate):
        return "few_subjects"
    if few_named_subjects(confident, pool.graphs, pool.query, config.gate):
        return "few_named_subjects"
    return None


def untitled_scores(
    pool: BridgeInputs,
    config: CageConfig,
    demotion: np.ndarray,
    add_on: CoherenceAddOn | None = None,
) -> PoolScores:
    """The scores of an untitled pool (module docstring)."""
    passages = pool.passages
    k = len(passages)
    confident = [untitled_subject(d) for d in pool.subjects]
    names = confident if config.title_links else [""] * k
    untitled = subject_links(
        pool.query,
        names,
        pool.texts,
        pool.relevance,
        pool.entity_links,
        aliases=config.untitled.aliases,
        rules=config.string_rules,
    )
    relevance, core, coherence, matrix = subject_core_scores(
        pool.relevance,
        untitled,
        core_size=config.core_size,
        entity_weight=config.entity_weight,
        config=config.untitled,
    )
    links = pool.links.named_by(names, untitled.mentions)
    alpha = config.untitled.alpha
    gate = untitled_gate(pool, untitled, confident, config)
    if gate is not None:  # the relevance order: no coherence, and no query-subject gain either
        relevance, coherence, alpha = pool.relevance, np.zeros(k), 1.0
    if add_on is not None:
        coherence = add_on(coherence, core)
    fused = fuse(relevance, coherence, alpha) - demotion
    if gate is None:
        first: dict[str, int] = {}
        twin = [first.setdefault(p.content, j) for j, p in enumerate(passages)]  # first equal one
        eligible = (np.arange(k) == twin) & (demotion == 0)
        lead = short_chain(np.where(eligible, fused, -np.inf), relevance, untitled, config.untitled)
        fused = ranked_first(fused, [[j for j in range(k) if twin[j] == i] for i in lead])
    return PoolScores(
        relevance,
        coherence,
        fused,
        matrix,
        tuple(pool.graphs),
        pool.similarities,
        (),
        links,
        kind="untitled",
        gate=gate,
    )
