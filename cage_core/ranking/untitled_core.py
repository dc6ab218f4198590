"""The default coherence on a pool where no passage has a title.

The evidence chain (:mod:`cage_core.ranking.chain`) hops along given titles; a derived subject
(:mod:`cage_core.names.subjects`) is too unsure a name for the chain's large title gain
(what that cost: ``docs/history.md``). Such a pool keeps the core of the most relevant
passages, with changes that use the subjects only where a wrong one costs little. With ``r``
the pool relevance (:mod:`cage_core.ranking.kinds.bridge`), the settings of
:class:`~cage_core.config.UntitledConfig` and the pool's :class:`SubjectLinks`
(:func:`subject_links`):

* the *names* of passage j: its derived subject ``s_j`` (none when the subject came from the
  entity fallback: :func:`untitled_subject`), with ``aliases`` also its short forms and the
  names its opening gives it (:func:`subject_forms`);
* ``Q_j = 1`` when j is the most relevant of the passages naming a part of the query
  (:func:`query_named_subjects`); the relevance is ``r'_j = r_j + w_q · Q_j`` (``w_q`` =
  ``query_subject_weight``), so the passages about both entities a comparison question names
  enter the core;
* core ``A`` = the ``core_size`` passages of highest ``r'`` (ties: input order), ``a_t`` its
  t-th (0-based);
* ``M_ij = 1`` when passage i's text names one of j's names (:func:`subject_mentions`); the
  directed link from candidate i to core passage a is
  ``L_ia = max(w_f · M_ai, w_b · M_ia) + w_e · E_ia`` — the core passage naming the candidate
  (the forward hop, ``w_f`` = ``forward_weight``) counts more than the reverse
  (``w_b`` = ``backward_weight``); ``E`` the shared-entity links and ``w_e`` =
  ``CageConfig.entity_weight`` (:mod:`cage_core.ranking.links`);
* coherence ``c_i = max_t d^t · L_{i a_t}`` for ``i ∉ A`` (``d`` = ``core_decay``: links to
  the most relevant core passage count most), core members get ``max_{i ∉ A} c_i``
  (:func:`~cage_core.ranking.links.coherence_to_core`);
* ``f_i = α_u · r'_i + (1 − α_u) · c_i`` with ``α_u`` = ``UntitledConfig.alpha``;
* the short chain (:func:`short_chain`; off when ``chain_window`` = 0): the window ``W`` = the
  ``chain_window`` passages of highest ``f`` (ties: input order). The chain starts with the
  passage of ``W`` of highest ``r'``, then takes the other passages of ``W`` with ``Q_j = 1`` in
  ``r'`` order, then greedily the ``j ∈ W`` maximising

  ``r'_j + max_{s ∈ chain} (w_m · M_sj + w_c · min(E_sj, e)) − p_q · N_j``

  (``w_m`` = ``chain_mention_weight``, ``w_c`` = ``chain_entity_weight``, ``e`` =
  ``chain_entity_cap``; ``N_j = 1`` when the query names one of j's names but ``Q_j = 0`` — a
  less relevant passage about a named entity, or a name inside a longer named one —, ``p_q`` =
  ``chain_query_named_penalty``; ties: input order), until it has ``chain_length`` passages or
  ``W`` is spent. The chain is ranked first, in chain order, the rest by ``f``: only the order
  within ``W`` changes, so Recall@``chain_window`` is that of ``f``.

Why these values: the ``untitled.*`` rows of ``docs/provenance.md``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cage_core.config import UntitledConfig
from cage_core.lang.en import STRING_RULES
from cage_core.names.may_link import may_link
from cage_core.names.subjects import Subject, also_known_as, subject_aliases
from cage_core.ranking.links import (
    coherence_to_core,
    core_indices,
    linkable_names,
    mention_matrix,
    name_mention_pairs,
)
from cage_core.scoring import ranking

__all__ = [
    "SubjectLinks",
    "query_named_subjects",
    "query_spans",
    "short_chain",
    "subject_core_scores",
    "subject_forms",
    "subject_links",
    "subject_mentions",
    "untitled_subject",
]


def untitled_subject(subject: Subject) -> str:
    """The name a passage of an untitled pool is linked by: its derived subject, except one
    from the entity fallback (the most frequent entity of a chunk is too often what it
    mentions, not what it is about: "America East" for a team's season), which is "", and
    one that is no name (a sentence opener such as "To":
    :func:`~cage_core.names.may_link.may_link`)."""
    return "" if subject.origin == "entity" or not may_link(subject.name) else subject.name


def subject_forms(
    subjects: Sequence[str],
    texts: Sequence[str],
    *,
    aliases: bool,
    rules: frozenset[str] = STRING_RULES,
) -> list[tuple[str, ...]]:
    """The names each passage goes by: its subject alone, or with ``aliases`` also the
    subject's :func:`~cage_core.names.subjects.subject_aliases` and the other names its
    opening gives it (:func:`~cage_core.names.subjects.also_known_as`; rule
    ``also_known_as`` of ``rules``). A passage without a subject goes by none."""
    if len(texts) != len(subjects):
        raise ValueError(f"got {len(subjects)} subjects for {len(texts)} texts")
    if not aliases:
        return [(s,) if s.strip() else () for s in subjects]
    known = "also_known_as" in rules
    return [
        (*subject_aliases(s, rules), *(also_known_as(t) if known else ())) if s.strip() else ()
        for s, t in zip(subjects, texts)
    ]


def subject_mentions(subjects: Sequence[str], texts: Sequence[str], *, aliases: bool) -> np.ndarray:
    """``[k, k]`` directed 0/1: ``M_ij = 1`` (``i ≠ j``) when text i names one of the names
    passage j goes by (:func:`subject_forms`), by the rule of
    :func:`~cage_core.ranking.links.name_mention_pairs`."""
    forms = subject_forms(subjects, texts, aliases=aliases)
    return mention_matrix(len(subjects), name_mention_pairs(forms, texts))


def query_spans(query: str, forms: Sequence[Sequence[str]]) -> list[list[tuple[int, int]]]:
    """Per passage, the sorted ``(start, end)`` spans of the lower-cased query where one of
    its names (``forms``, :func:`subject_forms`) occurs in whole words (its linkable
    :func:`~cage_core.ranking.links.bare_title` forms:
    :func:`~cage_core.ranking.links.linkable_names`)."""
    lowered = query.lower()
    found: list[set[tuple[int, int]]] = [set() for _ in forms]
    for form, j in zip(*linkable_names(forms)):
        if form in lowered:
            found[j].update(
                (m.start(), m.end())
                for m in re.finditer(rf"(?<!\w){re.escape(form)}(?!\w)", lowered)
            )
    return [sorted(spans) for spans in found]


def query_named_subjects(
    query: str,
    subjects: Sequence[str],
    relevance: np.ndarray,
    *,
    texts: Sequence[str] | None = None,
    aliases: bool = False,
) -> np.ndarray:
    """``[k]`` ``Q_j`` of the module docstring: 1 for the most relevant passage (ties: input
    order) among those that name each part of the query, 0 elsewhere.

    Passage j names the query spans of :func:`query_spans` (its names: :func:`subject_forms`
    of ``subjects``, with ``texts`` read when ``aliases``). A span strictly inside a longer
    named span does not count ("Kiss" in "Kiss and Tell"), and passages whose spans overlap
    name the same part: only the most relevant of them gets ``Q = 1`` ("Giuseppe Verdi" the
    film and the composer "Giuseppe Fortunino Francesco Verdi"), so each entity a comparison
    question names brings its own passage.
    """
    forms = subject_forms(
        subjects, [""] * len(subjects) if texts is None else texts, aliases=aliases
    )
    return _first_per_query_part(query_spans(query, forms), relevance)


def _first_per_query_part(
    spans: Sequence[Sequence[tuple[int, int]]], relevance: np.ndarray
) -> np.ndarray:
    """``Q`` from each passage's query spans (:func:`query_named_subjects`)."""
    every = {span for found in spans for span in found}
    out = np.zeros(len(spans))
    taken: list[tuple[int, int]] = []
    for j in ranking(np.asarray(relevance, dtype=np.float64)):
        kept = [
            (a, b)
            for a, b in spans[j]
            if not any(c <= a and b <= d and d - c > b - a for c, d in every)
        ]
        if kept and not any(a < d and c < b for a, b in kept for c, d in taken):
            out[j] = 1.0
        taken.extend(kept)
    return out


@dataclass(frozen=True, eq=False)
class SubjectLinks:
    """What the subject core and the short chain read of one untitled pool (pool order;
    symbols of the module docstring)."""

    mentions: np.ndarray
    """``[k, k]`` ``M``: passage i's text names one of passage j's names."""
    entity_links: np.ndarray
    """``[k, k]`` ``E``: shared-entity weight
    (:func:`~cage_core.ranking.links.shared_entity_links`)."""
    query_subjects: np.ndarray
    """``[k]`` ``Q``: the most relevant passage naming a part of the query."""
    query_named: np.ndarray
    """``[k]`` 0/1: the query names one of j's names (``N_j = query_named_j · (1 − Q_j)``)."""


def subject_links(
    query: str,
    subjects: Sequence[str],
    texts: Sequence[str],
    relevance: np.ndarray,
    entity_links: np.ndarray,
    *,
    aliases: bool,
    rules: frozenset[str] = STRING_RULES,
) -> SubjectLinks:
    """The :class:`SubjectLinks` of a pool: ``subjects`` are the names of
    :func:`untitled_subject` ("" for none), ``relevance`` is ``r``; their forms by
    :func:`subject_forms` under ``rules``."""
    forms = subject_forms(subjects, texts, aliases=aliases, rules=rules)
    k = len(subjects)
    spans = query_spans(query, forms)
    return SubjectLinks(
        mentions=mention_matrix(k, name_mention_pairs(forms, texts)),
        entity_links=np.asarray(entity_links, dtype=np.float64),
        query_subjects=_first_per_query_part(spans, relevance),
        query_named=np.array([1.0 if found else 0.0 for found in spans]),
    )


def subject_core_scores(
    relevance: np.ndarray,
    links: SubjectLinks,
    *,
    core_size: int,
    entity_weight: float,
    config: UntitledConfig,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(r', A, c, L)`` of the module docstring for one pool: the relevance with the query
    subject gain, the core (most relevant first), the coherence and the directed link matrix
    (zero diagonal). The fusion ``f`` is left to the caller
    (:mod:`cage_core.ranking.kinds.untitled`).

    Args:
        relevance: ``[k]`` the pool relevance ``r``.
        links: the pool's :class:`SubjectLinks` (:func:`subject_links`).
    """
    r = np.asarray(relevance, dtype=np.float64) + config.query_subject_weight * links.query_subjects
    mentions = links.mentions
    matrix = (
        np.maximum(config.forward_weight * mentions.T, config.backward_weight * mentions)
        + entity_weight * links.entity_links
    )
    np.fill_diagonal(matrix, 0.0)
    core = core_indices(r, core_size)
    decayed = matrix.copy()
    decayed[:, core] *= config.core_decay ** np.arange(len(core), dtype=np.float64)
    return r, core, coherence_to_core(decayed, core), matrix


def short_chain(
    fused: np.ndarray, relevance: np.ndarray, links: SubjectLinks, config: UntitledConfig
) -> np.ndarray:
    """Pool positions of the short chain of the module docstring, in chain order (empty when
    ``chain_window`` is 0 or the pool has fewer than 2 passages: nothing to reorder).

    Args:
        fused: ``[k]`` the fused score ``f`` that picks the window (a passage at −inf is
            never in it).
        relevance: ``[k]`` ``r'`` (:func:`subject_core_scores`).
        links: the pool's :class:`SubjectLinks`.
    """
    r = np.asarray(relevance, dtype=np.float64)
    k = len(r)
    if np.shape(fused) != (k,) or any(
        np.shape(m) != (k, k) for m in (links.mentions, links.entity_links)
    ):
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
    named = [j for j in by_relevance[1:] if links.query_subjects[j]]
    chain = [by_relevance[0], *named[: length - 1]]
    capped = np.minimum(links.entity_links, config.chain_entity_cap)
    hops = config.chain_mention_weight * links.mentions + config.chain_entity_weight * capped
    np.fill_diagonal(hops, 0.0)
    base = r - config.chain_query_named_penalty * links.query_named * (1.0 - links.query_subjects)
    while len(chain) < length:
        gain = base + hops[chain].max(axis=0)
        gain = np.where(in_window, gain, -np.inf)
        gain[chain] = -np.inf
        chain.append(int(ranking(gain)[0]))
    return np.array(chain, dtype=np.int64)
