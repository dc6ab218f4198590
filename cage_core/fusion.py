"""From one pool's inputs (query, passages, similarities, graphs) to every CAGE score.

Two coherence modes (``CageConfig.coherence``):

``"bridge"`` (default)
    relevance ``r_i = z(sim_i) + w_lex · z(bm25_i)`` — the query cosine and pool-IDF BM25,
    each standardised within the pool (``z(x) = (x − mean)/std``, 0 when constant);
    the core ``A`` = the evidence chain selected from ``r`` and the pool's links (a passage
    without a title is linked by its derived subject, :mod:`cage_core.passage_subject`, except
    in the chain's title hops, which follow given titles only)
    (:mod:`cage_core.evidence_set`; with ``chain.length == 0``, the ``core_size`` most
    relevant passages); coherence ``c_i`` = bridge coherence to ``A``
    (:mod:`cage_core.bridge`), plus ``w_rgcn · z(mean_{a ∈ A} C_ia)`` when
    ``rgcn_weight > 0``; ``f_i = α·r_i + (1−α)·c_i``; the chain is then ranked first, in
    chain order (:func:`chain_first`). A pool where no passage has a title gets no chain:
    with the chain on, its ``r``, ``A``, ``c`` and ``α`` are those of
    :mod:`cage_core.subject_core` (the R-GCN term is added the same way), and its short chain
    is ranked first (:func:`ranked_first`), chosen among distinct passages that no
    contradiction demotes (the chain's links must not lift a passage back over a conflict it
    lost): an exact duplicate of a chain passage shares its place and score. With the
    relevance gate on (``CageConfig.gate``), such a pool whose query names no passage's
    subject, and a titled pool whose query names no title and none of whose passages names
    another's, keep their relevance order and get no chain (:mod:`cage_core.relevance_gate`).

``"rgcn"`` (the paper)
    relevance ``r_i = sim_i``; coherence ``c_i = s_i/(k−1)`` with ``s_i = Σ_{j≠i} C_ij`` and
    ``C`` the cosine matrix of the per-query trained R-GCN embeddings;
    ``f_i = α·r_i + (1−α)·c_i``.

A pool with document structure (two passages sharing a ``doc_id``) is ranked, in bridge
mode, by the document view of :mod:`cage_core.document_links` instead (``r`` as above,
``f`` the view's; ``CageConfig.document``), unless ``document.enabled`` is off.

In both modes ``contradiction_weight > 0`` subtracts ``w · contradiction_penalty_i``
(:mod:`cage_core.contradiction`) from ``f_i`` (and from ``r_i`` where the chain is
selected): the passage on the losing side of a conflict between near-duplicate passages
is demoted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from cage_core.bridge import (
    PoolLinks,
    coherence_to_core,
    combined_links,
    core_indices,
    pool_links,
    title_mentions,
)
from cage_core.config import CageConfig
from cage_core.contradiction import contradiction_penalty
from cage_core.document_links import DocumentView, document_view
from cage_core.evidence_set import ChainLinks, ChainStep, select_chain
from cage_core.graph.passage_graph import PassageGraph
from cage_core.lexical import pool_bm25
from cage_core.passage import Passage
from cage_core.passage_subject import derive_subject
from cage_core.relevance_gate import weak_link_evidence, weak_title_evidence
from cage_core.scoring import coherence_scores, fuse
from cage_core.subject_core import (
    SubjectLinks,
    short_chain,
    subject_core_scores,
    subject_links,
    untitled_subject,
)

if TYPE_CHECKING:
    from cage_core.encodings import EncodingCache


@dataclass(frozen=True, eq=False)
class PoolScores:
    """Every score CAGE computes for one pool, in input order (for inspection/explanation)."""

    relevance: np.ndarray
    """``[k]`` the relevance term of the fusion (see :mod:`cage_core.fusion`)."""
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
    by when it used any (:meth:`PoolLinks.named_by <cage_core.bridge.PoolLinks.named_by>`), for
    the explanations."""
    documents: DocumentView | None = None
    """The document view that ranked the pool (a pool with document structure), for the
    explanations' document links."""


def standardize(x: np.ndarray) -> np.ndarray:
    """``(x − mean)/std`` within the pool; zeros when the values are (nearly) constant."""
    x = np.asarray(x, dtype=np.float64)
    std = x.std()
    return (x - x.mean()) / std if std > 1e-9 else np.zeros_like(x)


def rgcn_matrix(graphs: Sequence[PassageGraph], config: CageConfig,
                encodings: EncodingCache | None = None) -> np.ndarray:
    """The R-GCN coherence matrix C of a pool under ``config.encoder``, from ``encodings``
    when given (computed there once per encoder config)."""
    if encodings is not None:
        return encodings.coherence_matrix(graphs, config.encoder)
    from cage_core.encodings import rgcn_coherence_matrix

    return rgcn_coherence_matrix(graphs, config.encoder)


def score_pool(
    query: str,
    passages: Sequence[Passage],
    similarities: np.ndarray,
    graphs: Sequence[PassageGraph],
    config: CageConfig,
    encodings: EncodingCache | None = None,
) -> PoolScores:
    """All scores of one pool under ``config`` (formulas in the module docstring); R-GCN
    encodings come from ``encodings`` when given, so variants can share them."""
    k = len(passages)
    sims = np.asarray(similarities, dtype=np.float64)
    demotion = np.zeros(k)
    if config.contradiction_weight and k > 1:
        demotion = config.contradiction_weight * contradiction_penalty(
            [p.content for p in passages], graphs, config.contradiction_overlap)
    chain: tuple[ChainStep, ...] = ()
    untitled: SubjectLinks | None = None  # a pool without titles
    links = None
    alpha = config.alpha
    if config.coherence == "rgcn":
        matrix = rgcn_matrix(graphs, config, encodings) if k else np.zeros((0, 0))
        relevance, coherence = sims, coherence_scores(matrix)
    else:
        relevance = standardize(sims)
        if config.lexical_weight:
            relevance = relevance + config.lexical_weight * standardize(
                pool_bm25(query, [p.content for p in passages]))
        titles = [p.title for p in passages]
        texts = [p.text for p in passages]
        links = pool_links(query, titles, texts, graphs)
        view = document_view(query, passages, graphs, relevance, config.document)  # doc structure
        if view is not None:
            return PoolScores(view.relevance, view.fused - view.relevance, view.fused - demotion,
                              view.matrix, tuple(graphs), sims, (), links, view)  # fmt: skip
        derived = [derive_subject(p, g) for p, g in zip(passages, graphs)]
        subjects = [d.name for d in derived]  # the title, or derived
        entity_links = links.entity_links()
        if config.chain.length and not any(t.strip() for t in titles):  # no chain: the subject core
            names = [untitled_subject(d) for d in derived] if config.title_links else [""] * k
            untitled = subject_links(query, names, texts, relevance, entity_links,
                                     aliases=config.untitled.aliases)  # fmt: skip
            relevance, core, coherence, matrix = subject_core_scores(
                relevance, untitled, core_size=config.core_size, entity_weight=config.entity_weight,
                config=config.untitled)  # fmt: skip
            alpha = config.untitled.alpha
            links = links.named_by(names, untitled.mentions)
            if weak_link_evidence(untitled.query_subjects, config.gate):  # do no harm
                coherence, alpha, untitled = np.zeros(k), 1.0, None
        else:
            title_hops = links.title_mentions() if config.title_links else np.zeros((k, k))
            titled = subjects == titles or not config.title_links
            mentions = title_hops if titled else title_mentions(subjects, texts)
            if not titled:
                links = links.named_by(subjects, mentions)
            matrix = combined_links(mentions, entity_links, config.entity_weight)
            if config.chain.length:
                # the chain follows given titles only: a derived subject is too unsure a name for
                # its large title gain (on DEV open retrieval without titles, chaining cost
                # HotpotQA R@5 .065 against no chain)
                query_titles = links.query_title_vector() if config.title_links else np.zeros(k)
                gated = weak_title_evidence(query_titles, title_hops, config.gate)  # do no harm
                alpha = 1.0 if gated else alpha
                chain = () if gated else select_chain(
                    relevance - demotion, ChainLinks(title_hops, entity_links, query_titles, texts), config.chain)
                core = np.array([step.index for step in chain], dtype=np.int64)
            else:
                core = core_indices(relevance, config.core_size)
            coherence = coherence_to_core(matrix, core) if len(core) else np.zeros(k)
        if config.rgcn_weight and k > 1:
            c = rgcn_matrix(graphs, config, encodings)
            to_core = np.array([np.mean([c[i, a] for a in core if a != i] or [0.0]) for i in range(k)])
            coherence = coherence + config.rgcn_weight * standardize(to_core)
    fused = fuse(relevance, coherence, alpha) - demotion
    if chain:
        fused = chain_first(fused, chain)
    elif untitled is not None:
        first: dict[str, int] = {}
        twin = [first.setdefault(p.content, j) for j, p in enumerate(passages)]  # first equal one
        eligible = (np.arange(k) == twin) & (demotion == 0)
        lead = short_chain(np.where(eligible, fused, -np.inf), relevance, untitled, config.untitled)
        fused = ranked_first(fused, [[j for j in range(k) if twin[j] == i] for i in lead])
    return PoolScores(relevance, coherence, fused, matrix, tuple(graphs), sims, chain, links)


def chain_first(fused: np.ndarray, chain: Sequence[ChainStep]) -> np.ndarray:
    """Scores that rank the chain first, in chain order, then the rest by ``fused``
    (:func:`ranked_first`)."""
    return ranked_first(fused, [[step.index] for step in chain])


def ranked_first(fused: np.ndarray, lead: Sequence[Sequence[int]]) -> np.ndarray:
    """Scores that rank the groups of passages ``lead`` first, in that order, then the rest by
    ``fused``: every passage of the group at position t (0-based, of n) scores
    ``max_j f_j + n − t`` (a group holds a passage and its exact duplicates, which so keep
    equal scores)."""
    if not len(lead):
        return fused
    top = float(fused.max())
    lifted = fused.copy()
    for t, group in enumerate(lead):
        lifted[list(group)] = top + len(lead) - t
    return lifted
