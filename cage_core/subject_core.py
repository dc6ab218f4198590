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
* ``f_i = α_u · r'_i + (1 − α_u) · c_i`` with ``α_u`` = ``UntitledConfig.alpha``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cage_core.bridge import (
    MIN_TITLE_CHARS,
    bare_title,
    coherence_to_core,
    core_indices,
    titles_named_in,
)
from cage_core.config import UntitledConfig
from cage_core.passage_subject import subject_aliases
from cage_core.pool_index import whole_word_mentions
from cage_core.scoring import ranking


def subject_mentions(subjects: Sequence[str], texts: Sequence[str], *, aliases: bool) -> np.ndarray:
    """``[k, k]`` directed 0/1: ``M_ij = 1`` (``i ≠ j``) when text i names subject j — its
    :func:`~cage_core.bridge.bare_title`, or with ``aliases`` any of its
    :func:`~cage_core.passage_subject.subject_aliases`, at least ``MIN_TITLE_CHARS`` long, as
    whole words, case-insensitive (the rule of :func:`~cage_core.bridge.title_mentions`)."""
    k = len(subjects)
    if len(texts) != k:
        raise ValueError(f"got {k} subjects for {len(texts)} texts")
    names: list[str] = []
    owners: list[int] = []
    for j, subject in enumerate(subjects):
        forms = {bare_title(f) for f in subject_aliases(subject)} if aliases else {bare_title(subject)}
        for form in sorted(f for f in forms if len(f) >= MIN_TITLE_CHARS):
            names.append(form)
            owners.append(j)
    matrix = np.zeros((k, k))
    for i, n in whole_word_mentions(names, [t.lower() for t in texts]):
        if i != owners[n]:
            matrix[i, owners[n]] = 1.0
    return matrix


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
