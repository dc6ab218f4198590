"""Bridge links: which passages of a pool are linked, and how strongly each is linked to a core.

Multi-hop evidence is a chain: the passages most similar to the question name a *bridge*
entity, and the passage about that entity is often far from the question in embedding
space. Bridge links read that off the passage graphs:

* link matrix ``L_ij = T_ij + w_e · E_ij`` (symmetric), where ``T_ij = 1`` when one passage
  mentions the other's title (parenthetical qualifiers such as "(1945 film)" dropped; whole
  words, case-insensitive), and ``E_ij = Σ_{e ∈ ents_i ∩ ents_j, e ∉ q} ln(1 + k / df_e)``
  sums the pool-IDF of the named entities (non-numeric entity nodes of the two graphs) the
  passages share and the query does not name;
* bridge coherence to a core ``A`` (chosen by :mod:`cage_core.ranking.kinds.titled`: the evidence
  chain, or the ``core_size`` most relevant passages): ``b_i = max_{a ∈ A, a ≠ i} L_ia`` for
  ``i ∉ A``; a core passage gets the largest coherence outside the core (the core is the
  backbone the others are measured against).

:class:`PoolLinks` holds the parts of ``L`` that the ranking and its explanations
(:mod:`cage_core.ranking.explanation`) share, each computed once per pool.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

import numpy as np

from cage_core.graphs.passage_graph import PassageGraph
from cage_core.graphs.pronouns import NUMERIC_ENTITY_TYPES
from cage_core.names.forms import (  # the forms of a name: re-exported
    MAX_NAME_CHARS,
    MAX_NAME_WORDS,
    MIN_NAME_CHARS,
    bare_title,
    written_title,
)
from cage_core.names.may_link import may_link
from cage_core.ranking.pair_index import index_sets, shared_key_pairs, whole_word_mentions
from cage_core.scoring import ranking

__all__ = [
    "MAX_NAME_CHARS",
    "MAX_NAME_WORDS",
    "MIN_NAME_CHARS",
    "PoolLinks",
    "bare_title",
    "bridge_coherence",
    "bridge_entity_weights",
    "coherence_to_core",
    "combined_links",
    "core_indices",
    "entity_link_matrix",
    "entity_names",
    "link_matrix",
    "linkable_names",
    "mention_matrix",
    "name_mention_pairs",
    "pool_links",
    "shared_entity_links",
    "title_links",
    "title_mention_pairs",
    "title_mentions",
    "titles_named_in",
    "written_title",
]


def linkable_names(names: Sequence[Iterable[str]]) -> tuple[list[str], list[int]]:
    """The distinct :func:`bare_title` forms of each passage's names that can link (at least
    ``MIN_NAME_CHARS`` long), and the position of the passage each one names."""
    needles: list[str] = []
    owners: list[int] = []
    for j, forms in enumerate(names):
        for bare in sorted({bare_title(f) for f in forms}):
            if len(bare) >= MIN_NAME_CHARS:
                needles.append(bare)
                owners.append(j)
    return needles, owners


def _names_named(
    names: Sequence[Iterable[str]],
    texts: Sequence[str],
    query: str | None,
) -> tuple[list[tuple[int, int]], list[int]]:
    """:func:`name_mention_pairs` and the sorted positions one of whose names ``query``
    names, from one word index over the texts and the query."""
    needles, owners = linkable_names(names)
    k = len(texts)
    haystacks = [t.lower() for t in texts] + ([] if query is None else [query.lower()])
    found = whole_word_mentions(needles, haystacks)
    pairs = sorted({(i, owners[n]) for i, n in found if i < k and i != owners[n]})
    named = sorted({owners[n] for i, n in found if i == k})
    return pairs, named


def name_mention_pairs(
    names: Sequence[Iterable[str]], texts: Sequence[str]
) -> list[tuple[int, int]]:
    """Sorted ``(i, j)``, ``i ≠ j``, where passage i's text names one of ``names[j]`` (passage
    j's title, or a derived subject and its short forms).

    "Names" means: the lower-cased text contains :func:`bare_title` of the name, at least
    ``MIN_NAME_CHARS`` long, with no word character right before or after it. Found
    through a word index (:func:`~cage_core.ranking.pair_index.whole_word_mentions`), so the work
    follows the mentions, not the k² pairs.
    """
    return _names_named(names, texts, None)[0]


def title_mention_pairs(titles: Sequence[str], texts: Sequence[str]) -> list[tuple[int, int]]:
    """Sorted ``(i, j)``, ``i ≠ j``, where passage i's text names passage j's title
    (:func:`name_mention_pairs` with one name per passage)."""
    return name_mention_pairs([(t,) for t in titles], texts)


def mention_matrix(k: int, pairs: Sequence[tuple[int, int]]) -> np.ndarray:
    """``[k, k]`` directed 0/1 matrix with a 1 at each ``(i, j)`` of ``pairs``."""
    matrix = np.zeros((k, k))
    at = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    matrix[at[:, 0], at[:, 1]] = 1.0
    return matrix


def title_mentions(titles: Sequence[str], texts: Sequence[str]) -> np.ndarray:
    """``[k, k]`` directed 0/1 matrix: ``M_ij = 1`` when passage i's text names passage j's
    title (:func:`title_mention_pairs`)."""
    return mention_matrix(len(titles), title_mention_pairs(titles, texts))


def title_links(titles: Sequence[str], texts: Sequence[str]) -> np.ndarray:
    """``[k, k]`` symmetric 0/1 matrix: passage i's text names passage j's title, or vice
    versa (:func:`title_mentions` or its transpose)."""
    mentions = title_mentions(titles, texts)
    return np.maximum(mentions, mentions.T)


def titles_named_in(query: str, titles: Sequence[str]) -> np.ndarray:
    """``[k]`` 0/1: the query names passage i's title (same rule as :func:`title_mentions`)."""
    named = np.zeros(len(titles))
    named[_names_named([(t,) for t in titles], [], query)[1]] = 1.0
    return named


def entity_names(graph: PassageGraph) -> set[str]:
    """Lower-cased labels of the graph's non-numeric named-entity nodes that are names
    (that :func:`~cage_core.names.may_link.may_link`: no code, markup or amount fragments)."""
    return {
        label.lower()
        for label, ent in zip(graph.labels, graph.entity_types)
        if ent and ent not in NUMERIC_ENTITY_TYPES and may_link(label)
    }


def bridge_entity_weights(names: Sequence[AbstractSet[str]], query: str) -> dict[str, float]:
    """The weight ``ln(1 + k / df_e)`` of every entity that can link two of the k passages
    (held by two or more, not named by the query): the terms of ``E_ij``, exactly as
    :func:`shared_entity_links` weighs them. ``names``: :func:`entity_names` of each passage."""
    k = len(names)
    df = Counter(n for ns in names for n in ns)
    q = query.lower()
    return {n: math.log(1.0 + k / c) for n, c in df.items() if c >= 2 and n not in q}


def shared_entity_links(graphs: Sequence[PassageGraph], query: str) -> np.ndarray:
    """``[k, k]`` pool-IDF weight of the entities two passages share and the query does not
    name: :func:`entity_link_matrix` of the graphs' :func:`entity_names`."""
    names = [entity_names(g) for g in graphs]
    return entity_link_matrix(names, bridge_entity_weights(names, query))


def entity_link_matrix(
    names: Sequence[AbstractSet[str]], weights: Mapping[str, float]
) -> np.ndarray:
    """``[k, k]`` ``E_ij = fsum(weights[e] for e in sorted(names_i ∩ names_j ∩ weights))``.

    Computed from an index entity → passages: only the pairs that share an entity are
    visited, and since a correctly rounded sum does not depend on the order of its terms, a
    pair sharing one or two entities gets the plain numpy sum, more than two ``math.fsum``
    (bit-identical). ``weights``: :func:`bridge_entity_weights` of the same names.
    """
    k = len(names)
    links = np.zeros((k, k))
    if not weights:
        return links
    keys, key_ids, rows, cols = shared_key_pairs(index_sets(names, set(weights)))
    values = np.array([weights[n] for n in keys])[key_ids]
    codes = rows * k + cols
    order = np.argsort(codes, kind="stable")
    codes, values = codes[order], values[order]
    if not codes.size:
        return links
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    counts = np.diff(np.r_[starts, len(codes)])
    sums = np.add.reduceat(values, starts)  # one or two terms: the correctly rounded sum
    for n in np.flatnonzero(counts > 2):
        sums[n] = math.fsum(values[starts[n] : starts[n] + counts[n]])
    first, second = np.divmod(codes[starts], k)
    links[first, second] = sums
    links[second, first] = sums
    return links


def combined_links(
    mentions: np.ndarray, entity_links: np.ndarray, entity_weight: float
) -> np.ndarray:
    """``L = max(M, Mᵀ) + entity_weight · E`` with a zero diagonal (the module docstring),
    from the directed title mentions ``M`` and the entity links ``E``."""
    links = np.maximum(mentions, mentions.T)
    if entity_weight:
        links = links + entity_weight * entity_links
    np.fill_diagonal(links, 0.0)
    return links


def link_matrix(
    query: str,
    titles: Sequence[str],
    texts: Sequence[str],
    graphs: Sequence[PassageGraph],
    *,
    entity_weight: float,
    use_titles: bool = True,
) -> np.ndarray:
    """``L = T + entity_weight · E`` (see the module docstring); zero diagonal."""
    k = len(texts)
    mentions = title_mentions(titles, texts) if use_titles else np.zeros((k, k))
    entity_links = shared_entity_links(graphs, query) if entity_weight else np.zeros((k, k))
    return combined_links(mentions, entity_links, entity_weight)


@dataclass(frozen=True, eq=False)
class PoolLinks:
    """The link parts of one pool under its *given* titles, computed once by
    :func:`pool_links` and shared by the ranking and its explanations; :meth:`named_by` adds
    the names (derived subjects) the ranking linked passages without a title by."""

    title_pairs: tuple[tuple[int, int], ...]
    """:func:`title_mention_pairs`: ``(i, j)`` where passage i's text names passage j's title."""
    query_titles: tuple[int, ...]
    """Ascending positions of the passages whose title the query names (:func:`titles_named_in`)."""
    entity_names: tuple[frozenset[str], ...]
    """:func:`entity_names` of each passage's graph."""
    entity_weights: Mapping[str, float]
    """:func:`bridge_entity_weights` of those names: the entities that can link two passages."""
    link_names: tuple[str, ...] = ()
    """The name each passage was linked by when the ranking linked passages by names other than
    the given titles (a derived subject for a passage without a title, :meth:`named_by`); empty:
    the titles, with :attr:`title_pairs`."""
    name_pairs: tuple[tuple[int, int], ...] = ()
    """``(i, j)``: passage i's text names ``link_names[j]`` (as the ranking matched it)."""

    def named_by(self, names: Sequence[str], mentions: np.ndarray) -> PoolLinks:
        """These links with the ranking's own names and directed 0/1 mention matrix
        (``mentions[i, j]``: text i names ``names[j]``)."""
        if len(names) != self.size or np.shape(mentions) != (self.size, self.size):
            raise ValueError(
                f"named_by needs {self.size} names and a [{self.size}, {self.size}] matrix"
            )
        pairs = tuple((int(i), int(j)) for i, j in np.argwhere(np.asarray(mentions) > 0))
        return dataclasses.replace(self, link_names=tuple(names), name_pairs=pairs)

    @property
    def size(self) -> int:
        return len(self.entity_names)

    def title_mentions(self) -> np.ndarray:
        """``[k, k]`` :func:`title_mentions` of the pool."""
        return mention_matrix(self.size, self.title_pairs)

    def query_title_vector(self) -> np.ndarray:
        """``[k]`` :func:`titles_named_in` of the pool."""
        named = np.zeros(self.size)
        named[list(self.query_titles)] = 1.0
        return named

    def entity_links(self) -> np.ndarray:
        """``[k, k]`` :func:`shared_entity_links` of the pool."""
        return entity_link_matrix(self.entity_names, self.entity_weights)


def pool_links(
    query: str, titles: Sequence[str], texts: Sequence[str], graphs: Sequence[PassageGraph]
) -> PoolLinks:
    """The :class:`PoolLinks` of a pool (one title, text and graph per passage).

    Raises:
        ValueError: when the three sequences differ in length.
    """
    if not len(titles) == len(texts) == len(graphs):
        raise ValueError(
            f"pool_links needs one title, text and graph per passage: "
            f"{len(titles)}, {len(texts)}, {len(graphs)}"
        )
    pairs, named = _names_named([(t,) for t in titles], texts, query)
    names = tuple(frozenset(entity_names(g)) for g in graphs)
    return PoolLinks(tuple(pairs), tuple(named), names, bridge_entity_weights(names, query))


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
