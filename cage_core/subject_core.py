"""The default coherence on a pool where no passage has a title.

The evidence chain (:mod:`cage_core.evidence_set`) hops along given titles; a derived subject
(:mod:`cage_core.passage_subject`) is too unsure a name for the chain's large title gain (on
DEV open retrieval without titles, chaining on derived subjects cost HotpotQA Recall@5 .10).
Such a pool keeps the core of the most relevant passages, with four changes that use the
subjects only where a wrong one costs little. With ``s_j`` the subject of passage j, ``r`` the
pool relevance (:mod:`cage_core.fusion`) and the settings of
:class:`~cage_core.config.UntitledConfig`:

* ``Q_j = 1`` when the query names ``s_j`` (:func:`~cage_core.bridge.titles_named_in`) and j is
  the most relevant passage with that subject, else 0 (:func:`query_named_subjects`); the
  relevance is ``r'_j = r_j + w_q · Q_j`` (``w_q`` = ``query_subject_weight``), so the passages
  about both entities a comparison question names enter the core;
* core ``A`` = the ``core_size`` passages of highest ``r'`` (ties: input order), ``a_t`` its
  t-th (0-based);
* ``M_ij = 1`` when passage i's text names ``s_j`` or, with ``aliases``, one of its shorter
  forms (:func:`subject_mentions`); the directed link from candidate i to core passage a is
  ``L_ia = max(w_f · M_ai, w_b · M_ia) + w_e · E_ia`` — the core passage naming the candidate
  (the forward hop, ``w_f`` = ``forward_weight``) counts more than the reverse
  (``w_b`` = ``backward_weight``); ``E`` the shared-entity links and ``w_e`` =
  ``CageConfig.entity_weight`` (:mod:`cage_core.bridge`);
* coherence ``c_i = max_t d^t · L_{i a_t}`` for ``i ∉ A`` (``d`` = ``core_decay``: links to
  the most relevant core passage count most), core members get ``max_{i ∉ A} c_i``
  (:func:`~cage_core.bridge.coherence_to_core`);
* ``f_i = α_u · r'_i + (1 − α_u) · c_i`` with ``α_u`` = ``UntitledConfig.alpha``;
* the short chain (:func:`short_chain`; off when ``chain_window`` = 0): the window ``W`` = the
  ``chain_window`` passages of highest ``f`` (ties: input order). The chain starts with the
  passage of ``W`` of highest ``r'``, then takes the other passages of ``W`` with ``Q_j = 1`` in
  ``r'`` order, then greedily the ``j ∈ W`` maximising
  ``r'_j + max_{s ∈ chain} (w_m · M_sj + w_c · min(E_sj, e))`` (the chain passage's text names
  j's subject; ``w_m`` = ``chain_mention_weight``, ``w_c`` = ``chain_entity_weight``,
  ``e`` = ``chain_entity_cap``; ties: input order), until it has ``chain_length`` passages or
  ``W`` is spent. The chain is ranked first, in chain order, the rest by ``f``: only the order
  within ``W`` changes, so Recall@``chain_window`` is that of ``f`` (on DEV open retrieval
  without titles the chain lifted Recall@3 while the subject core alone ranks its top 3 much
  as relevance does; ``benchmarks/untitled_chain_cv.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cage_core.bridge import (
    bare_title,
    coherence_to_core,
    core_indices,
    mention_matrix,
    name_mention_pairs,
    titles_named_in,
)
from cage_core.config import UntitledConfig
from cage_core.passage_subject import subject_aliases
from cage_core.scoring import ranking


def subject_mentions(subjects: Sequence[str], texts: Sequence[str], *, aliases: bool) -> np.ndarray:
    """``[k, k]`` directed 0/1: ``M_ij = 1`` (``i ≠ j``) when text i names subject j — itself,
    or with ``aliases`` any of its :func:`~cage_core.passage_subject.subject_aliases` — by the
    rule of :func:`~cage_core.bridge.name_mention_pairs`."""
    k = len(subjects)
    if len(texts) != k:
        raise ValueError(f"got {k} subjects for {len(texts)} texts")
    names = [subject_aliases(s) if aliases else (s,) for s in subjects]
    return mention_matrix(k, name_mention_pairs(names, texts))


def query_named_subjects(query: str, subjects: Sequence[str], relevance: np.ndarray) -> np.ndarray:
    """``[k]`` ``Q_j`` of the module docstring: 1 for the most relevant passage (ties: input
    order) of each subject the query names, 0 elsewhere."""
    named = titles_named_in(query, subjects)
    out = np.zeros(len(subjects))
    seen: set[str] = set()
    for j in ranking(np.asarray(relevance, dtype=np.float64)):
        if named[j]:
            key = bare_title(subjects[j])
            if key not in seen:
                out[j] = 1.0
            seen.add(key)
    return out


def subject_core_scores(
    relevance: np.ndarray,
    mentions: np.ndarray,
    entity_links: np.ndarray,
    query_subjects: np.ndarray,
    *,
    core_size: int,
    entity_weight: float,
    config: UntitledConfig,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(r', A, c, L)`` of the module docstring for one pool: the relevance with the query
    subject gain, the core (most relevant first), the coherence and the directed link matrix
    (zero diagonal). The fusion ``f`` is left to the caller (:mod:`cage_core.fusion`).

    Args:
        relevance: ``[k]`` the pool relevance ``r``.
        mentions: ``[k, k]`` ``M`` (:func:`subject_mentions`).
        entity_links: ``[k, k]`` ``E`` (:func:`~cage_core.bridge.shared_entity_links`).
        query_subjects: ``[k]`` ``Q`` (:func:`query_named_subjects`).
    """
    r = np.asarray(relevance, dtype=np.float64) + config.query_subject_weight * np.asarray(query_subjects)
    links = (np.maximum(config.forward_weight * mentions.T, config.backward_weight * mentions)
             + entity_weight * entity_links)  # fmt: skip
    np.fill_diagonal(links, 0.0)
    core = core_indices(r, core_size)
    decayed = links.copy()
    decayed[:, core] *= config.core_decay ** np.arange(len(core), dtype=np.float64)
    return r, core, coherence_to_core(decayed, core), links


def short_chain(
    fused: np.ndarray,
    relevance: np.ndarray,
    mentions: np.ndarray,
    entity_links: np.ndarray,
    query_subjects: np.ndarray,
    config: UntitledConfig,
) -> np.ndarray:
    """Pool positions of the short chain of the module docstring, in chain order (empty when
    ``chain_window`` is 0 or the pool has fewer than 2 passages: nothing to reorder).

    Args:
        fused: ``[k]`` the fused score ``f`` that picks the window (a passage at −inf is
            never in it).
        relevance: ``[k]`` ``r'`` (:func:`subject_core_scores`).
        mentions: ``[k, k]`` ``M`` (:func:`subject_mentions`).
        entity_links: ``[k, k]`` ``E``.
        query_subjects: ``[k]`` ``Q`` (:func:`query_named_subjects`).
    """
    r = np.asarray(relevance, dtype=np.float64)
    k = len(r)
    if np.shape(fused) != (k,) or np.shape(mentions) != (k, k) or np.shape(entity_links) != (k, k):
        raise ValueError(f"short_chain needs [k] scores and [k, k] links for k = {k} passages")
    if not config.chain_window or k < 2:
        return np.zeros(0, dtype=np.int64)
    fused = np.asarray(fused, dtype=np.float64)
    window = [j for j in ranking(fused)[: config.chain_window] if np.isfinite(fused[j])]
    if not window:
        return np.zeros(0, dtype=np.int64)
    in_window = np.zeros(k, dtype=bool)
    in_window[window] = True
    by_relevance = [int(j) for j in ranking(r) if in_window[j]]
    length = min(config.chain_length, len(by_relevance))
    named = [j for j in by_relevance[1:] if query_subjects[j]]
    chain = [by_relevance[0], *named[: length - 1]]
    capped = np.minimum(entity_links, config.chain_entity_cap)
    links = config.chain_mention_weight * np.asarray(mentions, dtype=np.float64)
    links = links + config.chain_entity_weight * capped
    np.fill_diagonal(links, 0.0)
    while len(chain) < length:
        gain = np.where(in_window, r + links[chain].max(axis=0), -np.inf)
        gain[chain] = -np.inf
        chain.append(int(ranking(gain)[0]))
    return np.array(chain, dtype=np.int64)
