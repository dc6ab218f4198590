"""From one pool's inputs (query, passages, similarities, graphs) to every CAGE score.

Two coherence modes (``CageConfig.coherence``):

``"bridge"`` (default)
    relevance ``r_i = z(sim_i) + w_lex · z(bm25_i)`` — the query cosine and pool-IDF BM25,
    each standardised within the pool (``z(x) = (x − mean)/std``, 0 when constant);
    the core ``A`` = the evidence chain selected from ``r`` and the pool's links (a passage
    without a title is linked by its derived subject, :mod:`cage_core.ranking.subjects`, except
    in the chain's title hops, which follow given titles only)
    (:mod:`cage_core.ranking.chain`; with ``chain.length == 0``, the ``core_size`` most
    relevant passages); coherence ``c_i`` = bridge coherence to ``A``
    (:mod:`cage_core.ranking.links`), plus ``w_rgcn · z(mean_{a ∈ A} C_ia)`` when
    ``rgcn_weight > 0``; ``f_i = α·r_i + (1−α)·c_i``; the chain is then ranked first, in
    chain order (:func:`chain_first`). A pool where no passage has a title gets no chain:
    with the chain on, its ``r``, ``A``, ``c`` and ``α`` are those of
    :mod:`cage_core.ranking.untitled_core` (the R-GCN term is added the same way), and its short chain
    is ranked first (:func:`ranked_first`), chosen among distinct passages that no
    contradiction demotes (the chain's links must not lift a passage back over a conflict it
    lost): an exact duplicate of a chain passage shares its place and score. With the
    relevance gate on (``CageConfig.gate``), such a pool whose query names no passage's
    subject, and a titled pool whose query names no title and none of whose passages names
    another's, keep their relevance order and get no chain; so does, by default, such a pool
    in which fewer than a fifth of the passages have a confident subject (report chunks kept
    without their document ids), and such a pool fewer than half of whose subjects are names
    (abstracts' chunks) (:mod:`cage_core.ranking.relevance_gate`). Kept means the
    bridge relevance ``r`` above, the hybrid order: an untitled pool keeps none of the
    subject core's gains either.

``"rgcn"`` (the paper)
    relevance ``r_i = sim_i``; coherence ``c_i = s_i/(k−1)`` with ``s_i = Σ_{j≠i} C_ij`` and
    ``C`` the cosine matrix of the per-query trained R-GCN embeddings;
    ``f_i = α·r_i + (1−α)·c_i``.

A pool with document structure (two passages sharing a ``doc_id``) is ranked, in bridge
mode, by the document view of :mod:`cage_core.ranking.document_links` instead (``r`` as above with
``w_lex`` = ``document.lexical_weight`` over texts that inherit their document's subject,
:func:`~cage_core.ranking.document_links.document_relevance`; ``f`` the view's;
``CageConfig.document``), unless ``document.enabled`` is off.

In both modes ``contradiction_weight > 0`` subtracts ``w · contradiction_penalty_i``
(:mod:`cage_core.ranking.contradiction`) from ``f_i`` (and from ``r_i`` where the chain is
selected): the passage on the losing side of a conflict between near-duplicate passages
is demoted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from cage_core.config import CageConfig
from cage_core.graphs.passage_graph import PassageGraph
from cage_core.names.subjects import Subject, derive_subject
from cage_core.passage import Passage
from cage_core.ranking.chain import ChainLinks, ChainStep, select_chain
from cage_core.ranking.contradiction import contradiction_penalty
from cage_core.ranking.document_links import (
    DocumentView,
    document_names,
    document_relevance,
    document_view,
    has_document_structure,
)
from cage_core.ranking.links import (
    PoolLinks,
    coherence_to_core,
    combined_links,
    core_indices,
    pool_links,
    title_mentions,
)
from cage_core.ranking.pool_bm25 import pool_bm25
from cage_core.ranking.relevance_gate import (
    few_named_subjects,
    few_subjects,
    weak_link_evidence,
    weak_title_evidence,
)
from cage_core.ranking.untitled_core import (
    short_chain,
    subject_core_scores,
    subject_links,
    untitled_subject,
)
from cage_core.scoring import coherence_scores, fuse, standardize  # standardize: re-exported

if TYPE_CHECKING:
    from cage_core.paper.encodings import EncodingCache

__all__ = [
    "BridgeInputs",
    "PoolScores",
    "bridge_inputs",
    "chain_first",
    "contradiction_demotion",
    "paper_scores",
    "ranked_first",
    "rgcn_matrix",
    "score_pool",
    "standardize",
    "titled_scores",
    "untitled_scores",
]


@dataclass(frozen=True, eq=False)
class PoolScores:
    """Every score CAGE computes for one pool, in input order (for inspection/explanation)."""

    relevance: np.ndarray
    """``[k]`` the relevance term of the fusion (see :mod:`cage_core.ranking.fusion`)."""
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
    by when it used any (:meth:`PoolLinks.named_by <cage_core.ranking.links.PoolLinks.named_by>`), for
    the explanations."""
    documents: DocumentView | None = None
    """The document view that ranked the pool (a pool with document structure), for the
    explanations' document links."""


def rgcn_matrix(
    graphs: Sequence[PassageGraph], config: CageConfig, encodings: EncodingCache | None = None
) -> np.ndarray:
    """The R-GCN coherence matrix C of a pool under ``config.encoder``, from ``encodings``
    when given (computed there once per encoder config)."""
    if encodings is not None:
        return encodings.coherence_matrix(graphs, config.encoder)
    from cage_core.paper.encodings import rgcn_coherence_matrix

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
    encodings come from ``encodings`` when given, so variants can share them.

    Dispatches to the function of the pool's mode: :func:`paper_scores`
    (``coherence="rgcn"``), :func:`document_scores` (a bridge-mode pool with document
    structure, :func:`cage_core.ranking.document_links.document_view`), :func:`untitled_scores` (the
    chain on and no passage titled) or :func:`titled_scores` (every other bridge-mode pool)."""
    sims = np.asarray(similarities, dtype=np.float64)
    demotion = contradiction_demotion(passages, graphs, config)
    if config.coherence == "rgcn":
        return paper_scores(sims, graphs, config, demotion, encodings)
    if config.document.enabled and has_document_structure(passages):  # the document view
        names_of = document_names(passages, graphs)
        relevance = document_relevance(query, passages, sims, config.document.lexical_weight,
                                       names_of)  # fmt: skip
        view = document_view(query, passages, graphs, relevance, config.document, names_of)
        assert view is not None  # it applies exactly when enabled and documented, as here
        config.warn_ineffective_on("document")
        return document_scores(query, passages, sims, graphs, view, demotion)
    pool = bridge_inputs(query, passages, sims, graphs, config)
    if config.chain.length and not any(t.strip() for t in pool.titles):
        return untitled_scores(pool, config, demotion, encodings)
    return titled_scores(pool, config, demotion, encodings)


def contradiction_demotion(passages: Sequence[Passage], graphs: Sequence[PassageGraph],
                           config: CageConfig) -> np.ndarray:  # fmt: skip
    """``[k]`` ``w · contradiction_penalty_i`` (zeros when ``contradiction_weight`` is 0 or
    the pool has one passage)."""
    k = len(passages)
    if not config.contradiction_weight or k < 2:
        return np.zeros(k)
    return config.contradiction_weight * contradiction_penalty(
        [p.content for p in passages], graphs, config.contradiction_overlap
    )


def paper_scores(sims: np.ndarray, graphs: Sequence[PassageGraph], config: CageConfig,
                 demotion: np.ndarray, encodings: EncodingCache | None = None) -> PoolScores:  # fmt: skip
    """The paper's mode (``coherence="rgcn"``): ``r = sim``, ``c_i = s_i/(k−1)`` over the
    R-GCN cosines, ``f = α·r + (1−α)·c`` minus ``demotion``."""
    matrix = rgcn_matrix(graphs, config, encodings) if len(sims) else np.zeros((0, 0))
    coherence = coherence_scores(matrix)
    fused = fuse(sims, coherence, config.alpha) - demotion
    return PoolScores(sims, coherence, fused, matrix, tuple(graphs), sims)


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
    """Each passage's :func:`~cage_core.ranking.subjects.derive_subject` (its title if any)."""
    entity_links: np.ndarray
    """``[k, k]`` ``E``, the shared-entity links."""


def bridge_inputs(query: str, passages: Sequence[Passage], sims: np.ndarray,
                  graphs: Sequence[PassageGraph], config: CageConfig) -> BridgeInputs:  # fmt: skip
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
    return BridgeInputs(query, passages, graphs, sims, relevance, lexical, titles, texts, links,
                        subjects, links.entity_links())  # fmt: skip


def document_scores(query: str, passages: Sequence[Passage], sims: np.ndarray,
                    graphs: Sequence[PassageGraph], view: DocumentView,
                    demotion: np.ndarray) -> PoolScores:  # fmt: skip
    """Bridge mode on a pool with document structure: the document view's relevance and
    fused score (:mod:`cage_core.ranking.document_links`), minus ``demotion``; of the other
    bridge inputs only the pool's links (for the explanations) are read."""
    links = pool_links(query, [p.title for p in passages], [p.text for p in passages], graphs)
    return PoolScores(view.relevance, view.fused - view.relevance, view.fused - demotion,
                      view.matrix, tuple(graphs), sims, (), links, view)  # fmt: skip


def titled_scores(pool: BridgeInputs, config: CageConfig, demotion: np.ndarray,
                  encodings: EncodingCache | None = None) -> PoolScores:  # fmt: skip
    """Bridge mode on a pool with a title (or any pool with the chain off): the evidence
    chain (or the ``core_size`` most relevant passages) is the core, bridge coherence to it,
    the chain ranked first."""
    config.warn_ineffective_on("titled")
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
    if config.chain.length:
        # the chain follows given titles only: a derived subject is too unsure a name for
        # its large title gain (on DEV open retrieval without titles, chaining cost
        # HotpotQA R@5 .065 against no chain)
        query_titles = links.query_title_vector() if config.title_links else np.zeros(k)
        gated = weak_title_evidence(query_titles, title_hops, config.gate, titles)  # no harm
        if gated:
            alpha = 1.0
        else:
            chain = select_chain(relevance - demotion,
                                 ChainLinks(title_hops, pool.entity_links, query_titles),
                                 config.chain)  # fmt: skip
        core = np.array([step.index for step in chain], dtype=np.int64)
    else:
        core = core_indices(relevance, config.core_size)
    coherence = coherence_to_core(matrix, core) if len(core) else np.zeros(k)
    coherence = _plus_rgcn_to_core(coherence, core, pool, config, encodings)
    fused = fuse(relevance, coherence, alpha) - demotion
    if chain:
        fused = chain_first(fused, chain)
    return PoolScores(relevance, coherence, fused, matrix, tuple(pool.graphs), pool.similarities,
                      chain, links)  # fmt: skip


def untitled_scores(pool: BridgeInputs, config: CageConfig, demotion: np.ndarray,
                    encodings: EncodingCache | None = None) -> PoolScores:  # fmt: skip
    """Bridge mode, chain on, on a pool where no passage has a title: the subject core
    (:mod:`cage_core.ranking.untitled_core`) with ``untitled.alpha``, its short chain ranked first."""
    config.warn_ineffective_on("untitled")
    passages = pool.passages
    k = len(passages)
    confident = [untitled_subject(d) for d in pool.subjects]
    names = confident if config.title_links else [""] * k
    untitled = subject_links(pool.query, names, pool.texts, pool.relevance, pool.entity_links,
                             aliases=config.untitled.aliases, rules=config.string_rules)  # fmt: skip
    relevance, core, coherence, matrix = subject_core_scores(
        pool.relevance, untitled, core_size=config.core_size, entity_weight=config.entity_weight,
        config=config.untitled)  # fmt: skip
    links = pool.links.named_by(names, untitled.mentions)
    alpha = config.untitled.alpha
    gated = (weak_link_evidence(untitled.query_subjects, config.gate)  # do no harm
             or few_subjects(confident, config.gate)
             or few_named_subjects(confident, pool.graphs, pool.query, config.gate))  # fmt: skip
    if gated:  # the relevance order: no coherence, and no query-subject gain either
        relevance, coherence, alpha = pool.relevance, np.zeros(k), 1.0
    coherence = _plus_rgcn_to_core(coherence, core, pool, config, encodings)
    fused = fuse(relevance, coherence, alpha) - demotion
    if not gated:
        first: dict[str, int] = {}
        twin = [first.setdefault(p.content, j) for j, p in enumerate(passages)]  # first equal one
        eligible = (np.arange(k) == twin) & (demotion == 0)
        lead = short_chain(np.where(eligible, fused, -np.inf), relevance, untitled, config.untitled)
        fused = ranked_first(fused, [[j for j in range(k) if twin[j] == i] for i in lead])
    return PoolScores(relevance, coherence, fused, matrix, tuple(pool.graphs), pool.similarities,
                      (), links)  # fmt: skip


def _plus_rgcn_to_core(coherence: np.ndarray, core: np.ndarray, pool: BridgeInputs,
                       config: CageConfig, encodings: EncodingCache | None) -> np.ndarray:  # fmt: skip
    """``c_i + w_rgcn · z(mean_{a ∈ A, a ≠ i} C_ia)`` (``c`` itself when ``rgcn_weight`` is 0
    or the pool has one passage)."""
    k = len(pool.passages)
    if not config.rgcn_weight or k < 2:
        return coherence
    c = rgcn_matrix(pool.graphs, config, encodings)
    to_core = np.array([np.mean([c[i, a] for a in core if a != i] or [0.0]) for i in range(k)])
    return coherence + config.rgcn_weight * standardize(to_core)


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
