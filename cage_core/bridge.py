"""Bridge coherence: how strongly a passage is linked to the query-relevant core of the pool.

Multi-hop evidence is a chain: the passages most similar to the question name a *bridge*
entity, and the passage about that entity is often far from the question in embedding
space. Bridge coherence rewards exactly that link, read off the passage graphs:

* link matrix ``L_ij = T_ij + w_e · E_ij`` (symmetric), where ``T_ij = 1`` when one passage
  mentions the other's title (parenthetical qualifiers such as "(1945 film)" dropped; whole
  words, case-insensitive), and ``E_ij = Σ_{e ∈ ents_i ∩ ents_j, e ∉ q} ln(1 + k / df_e)``
  sums the pool-IDF of the named entities (non-numeric entity nodes of the two graphs) the
  passages share and the query does not name;
* core ``A`` = the ``core_size`` passages with the highest relevance;
* coherence ``b_i = max_{a ∈ A, a ≠ i} L_ia`` for ``i ∉ A``; a core passage gets the
  largest coherence outside the core (the core is the backbone the others are measured
  against). With this coherence alone (no R-GCN term, no contradiction penalty; see
  :mod:`cage_core.fusion`) a non-core passage never outranks a core one: coherence
  reorders only the rest of the pool.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

from cage_core.graph.passage_graph import PassageGraph
from cage_core.graph.pronouns import NUMERIC_ENTITY_TYPES
from cage_core.pool_index import index_sets, shared_key_pairs, whole_word_mentions
from cage_core.scoring import ranking

_PARENTHETICAL = re.compile(r"\s*\([^)]*\)\s*$")
MIN_TITLE_CHARS = 3
"""Titles shorter than this (after dropping qualifiers) never form links."""


def bare_title(title: str) -> str:
    """``"Kiss and Tell (1945 film)"`` → ``"kiss and tell"``."""
    return _PARENTHETICAL.sub("", title).strip().lower()


def written_title(title: str) -> str:
    """``"Kiss and Tell (1945 film)"`` → ``"Kiss and Tell"``: the title as written, qualifier
    dropped (:func:`bare_title` is its lower-cased form)."""
    return _PARENTHETICAL.sub("", title).strip()


def title_mention_pairs(titles: Sequence[str], texts: Sequence[str]) -> list[tuple[int, int]]:
    """Sorted ``(i, j)``, ``i ≠ j``, where passage i's text names passage j's title.

    "Names" means: the lower-cased text contains :func:`bare_title` of the title, at least
    ``MIN_TITLE_CHARS`` long, with no word character right before or after it. Found
    through a word index (:func:`~cage_core.pool_index.whole_word_mentions`), so the work
    follows the mentions, not the k² pairs.
    """
    bare = [bare_title(t) for t in titles]
    linkable = [j for j, b in enumerate(bare) if len(b) >= MIN_TITLE_CHARS]
    mentions = whole_word_mentions([bare[j] for j in linkable], [t.lower() for t in texts])
    return sorted((i, linkable[n]) for i, n in mentions if i != linkable[n])


def title_mentions(titles: Sequence[str], texts: Sequence[str]) -> np.ndarray:
    """``[k, k]`` directed 0/1 matrix: ``M_ij = 1`` when passage i's text names passage j's
    title (:func:`title_mention_pairs`)."""
    k = len(titles)
    matrix = np.zeros((k, k))
    pairs = np.array(title_mention_pairs(titles, texts), dtype=np.int64).reshape(-1, 2)
    matrix[pairs[:, 0], pairs[:, 1]] = 1.0
    return matrix


def title_links(titles: Sequence[str], texts: Sequence[str]) -> np.ndarray:
    """``[k, k]`` symmetric 0/1 matrix: passage i's text names passage j's title, or vice
    versa (:func:`title_mentions` or its transpose)."""
    mentions = title_mentions(titles, texts)
    return np.maximum(mentions, mentions.T)


def titles_named_in(query: str, titles: Sequence[str]) -> np.ndarray:
    """``[k]`` 0/1: the query names passage i's title (same rule as :func:`title_mentions`)."""
    named = np.zeros(len(titles))
    bare = [bare_title(t) for t in titles]
    linkable = [j for j, b in enumerate(bare) if len(b) >= MIN_TITLE_CHARS]
    for _, n in whole_word_mentions([bare[j] for j in linkable], [query.lower()]):
        named[linkable[n]] = 1.0
    return named


def entity_names(graph: PassageGraph) -> set[str]:
    """Lower-cased labels of the graph's non-numeric named-entity nodes."""
    return {label.lower() for label, ent in zip(graph.labels, graph.entity_types)
            if ent and ent not in NUMERIC_ENTITY_TYPES}  # fmt: skip


def bridge_entity_weights(names: Sequence[set[str]], query: str) -> dict[str, float]:
    """The weight ``ln(1 + k / df_e)`` of every entity that can link two of the k passages
    (held by two or more, not named by the query): the terms of ``E_ij``, exactly as
    :func:`shared_entity_links` weighs them. ``names``: :func:`entity_names` of each passage."""
    k = len(names)
    df = Counter(n for ns in names for n in ns)
    q = query.lower()
    return {n: math.log(1.0 + k / c) for n, c in df.items() if c >= 2 and n not in q}


def shared_entity_links(graphs: Sequence[PassageGraph], query: str) -> np.ndarray:
    """``[k, k]`` pool-IDF weight of the entities two passages share and the query does not name.

    ``E_ij = fsum(weight(e) for e in sorted(shared))``, computed from an index entity →
    passages: only the pairs that share an entity are visited, and since a correctly
    rounded sum does not depend on the order of its terms, a pair sharing one or two
    entities gets the plain numpy sum, more than two ``math.fsum`` (bit-identical).
    """
    k = len(graphs)
    links = np.zeros((k, k))
    names = [entity_names(g) for g in graphs]
    df = Counter(n for ns in names for n in ns)
    q = query.lower()
    bridges = {n for n, c in df.items() if c >= 2 and n not in q}  # a query entity weighs 0
    if not bridges:
        return links
    weight_of_df = {c: math.log(1.0 + k / c) for c in set(df.values())}
    keys, key_ids, rows, cols = shared_key_pairs(index_sets(names, bridges))
    weights = np.array([weight_of_df[df[n]] for n in keys])[key_ids]
    codes = rows * k + cols
    order = np.argsort(codes, kind="stable")
    codes, weights = codes[order], weights[order]
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    counts = np.diff(np.r_[starts, len(codes)])
    sums = np.add.reduceat(weights, starts)  # one or two terms: the correctly rounded sum
    for n in np.flatnonzero(counts > 2):
        sums[n] = math.fsum(weights[starts[n] : starts[n] + counts[n]])
    first, second = np.divmod(codes[starts], k)
    links[first, second] = sums
    links[second, first] = sums
    return links


def link_matrix(
    query: str, titles: Sequence[str], texts: Sequence[str], graphs: Sequence[PassageGraph],
    *, entity_weight: float, use_titles: bool = True,
) -> np.ndarray:
    """``L = T + entity_weight · E`` (see the module docstring); zero diagonal."""
    links = title_links(titles, texts) if use_titles else np.zeros((len(texts), len(texts)))
    if entity_weight:
        links = links + entity_weight * shared_entity_links(graphs, query)
    np.fill_diagonal(links, 0.0)
    return links


def core_indices(relevance: np.ndarray, core_size: int) -> np.ndarray:
    """The core ``A``: indices of the ``core_size`` most relevant passages (ties: input order)."""
    return ranking(relevance)[: min(core_size, len(relevance))]


def bridge_coherence(links: np.ndarray, relevance: np.ndarray, core_size: int) -> np.ndarray:
    """``b_i``: the strongest link of passage i to the core of the ``core_size`` most
    relevant passages (:func:`coherence_to_core`)."""
    return coherence_to_core(links, core_indices(relevance, core_size))


def coherence_to_core(links: np.ndarray, core: Sequence[int] | np.ndarray) -> np.ndarray:
    """``b_i = max_{a ∈ core, a ≠ i} L_ia`` outside the core; core members get ``max b``."""
    k = links.shape[0]
    if k <= 1:
        return np.zeros(k)
    core = np.asarray(core, dtype=np.int64)
    coherence = links[:, core].max(axis=1)  # L_ii = 0, so a core member never counts itself
    in_core = np.zeros(k, dtype=bool)
    in_core[core] = True
    outside = coherence[~in_core]
    coherence[in_core] = outside.max() if outside.size else 0.0
    return coherence
