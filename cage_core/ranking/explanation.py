"""Why each passage of a ranking is there: the earlier passage it is linked to, by what, and
how strongly (:func:`explain_ranking`, what :meth:`CageReranker.rerank
<cage_core.reranker.CageReranker.rerank>` reports as ``via`` and ``coherence``).

For the passage at rank r of a ranking (``order``: input indices, best first), its *via* is a
link to a passage at an earlier rank e < r, of one of three kinds
(:data:`~cage_core.passage.LinkKind`):

* ``"document"``: when the pool was ranked by its document view
  (:mod:`cage_core.ranking.document_links`) and an earlier passage is a chunk of the same
  document, that link, to the adjacent chunk if one is ranked earlier, else to the document's
  first ranked chunk (:func:`~cage_core.ranking.document_links.document_links`) — a document
  link is the strongest, and the chunks of one file are never linked as if by an entity;
* else the earlier passage with the strongest link under the bridge link definitions of
  :mod:`cage_core.ranking.links`, strength being the pair ``(T, E)`` compared in order
  (:func:`evidence_chain`):

  * ``T = 1`` when one of the two passages' text names the other's title (whole words,
    case-insensitive, qualifier such as "(1945 film)" dropped:
    :func:`~cage_core.ranking.links.title_mention_pairs`), else 0 — a title mention beats any
    entity overlap: kind ``"title"``. When the ranking linked passages without a title by
    their derived subject (``PoolLinks.link_names``, :mod:`cage_core.names.subjects`), the
    names are those subjects, matched as the ranking matched them;
  * ``E`` = the summed pool-IDF weight of the named entities the two share and the query
    does not name — ``E_re`` of :func:`~cage_core.ranking.links.shared_entity_links`, over
    the whole pool (every passage given, ranked or not): kind ``"entity"``.

  Ties go to the earlier rank. A pair with ``T = 0`` and ``E = 0`` is not linked: the first
  passage, and one linked to no earlier passage, get ``None``.

The name of a title link is the named title (or subject) as written, qualifier dropped
(:func:`~cage_core.ranking.links.written_title`); when each passage names the other, the later
passage's title (the earlier passage names it: that is where the chain leads). The name of an
entity link is the shared entity of highest weight (ties: the smaller lower-cased name), as
passage r's graph labels it (the smallest such label). The name of a document link says the
document and the chunks' place (:class:`~cage_core.passage.Via`).

The *coherence* reported with the via is the strength of the link it names, on one scale in
[0, 1] whatever path the pool took: 1 for a title mention (:data:`TITLE_STRENGTH`) and for
the adjacent chunk of one document, :data:`~cage_core.ranking.document_links.SIBLING_LINK`
(0.5) for another chunk of it, and ``1 − e^−E`` for shared entities (one entity held by 2 of
10 passages: ``1 − 1/6 = 0.83``; by 5 of 10: 0.67). It is 0 exactly when the via is ``None``:
a passage has a coherence if and only if it has a via. The fusion's own coherence term
(:attr:`PoolScores.coherence <cage_core.ranking.pool_scores.PoolScores.coherence>`) is a
different number, on a scale of its path, and is not what is reported; whether links moved
the ranking at all is the pool's path (a gated path kept the relevance order).

Each via depends only on the passages ranked before it and on the pool, so the vias of a
ranking cut to its first n are the first n vias of the whole ranking. Only the pairs that
share a title mention or an entity are visited (inverted indexes of
:mod:`cage_core.ranking.pair_index`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from cage_core.graphs.passage_graph import PassageGraph
from cage_core.graphs.pronouns import NUMERIC_ENTITY_TYPES
from cage_core.names.may_link import may_link
from cage_core.passage import LINK_KINDS, LinkKind, Passage, Via
from cage_core.ranking.document_links import document_links
from cage_core.ranking.links import PoolLinks, pool_links, written_title
from cage_core.ranking.pair_index import index_sets
from cage_core.ranking.pool_scores import PoolScores

__all__ = [
    "LINK_KINDS",
    "TITLE_STRENGTH",
    "Explanation",
    "LinkKind",
    "entity_strength",
    "evidence_chain",
    "explain_ranking",
]

TITLE_STRENGTH = 1.0
"""The strength of a title link (module docstring)."""


def entity_strength(weight: float) -> float:
    """The strength ``1 − e^−E`` in [0, 1) of an entity link of summed pool-IDF weight ``E``."""
    return -math.expm1(-weight)


@dataclass(frozen=True)
class Explanation:
    """Why one ranked passage is where it is, as far as links say (module docstring)."""

    via: Via | None
    """The earlier passage it is linked to, by what (``None``: linked to none)."""
    coherence: float
    """The strength of that link in [0, 1]; 0 exactly when ``via`` is ``None``."""


NOT_LINKED = Explanation(None, 0.0)


def explain_ranking(
    query: str,
    passages: Sequence[Passage],
    scores: PoolScores,
    order: Sequence[int] | np.ndarray,
    *,
    read_links: bool = True,
    ranks: int | None = None,
) -> list[Explanation]:
    """The via and coherence of each ranked position (module docstring): ``result[r]`` explains
    ``order[r]``, the one place a result's explanations are built.

    Args:
        query: the question.
        passages: the whole pool, in input order.
        scores: the pool's scores (its graphs, links and document view are read).
        order: input indices of the ranked passages, best first (may be cut to a top n).
        read_links: whether title and entity links are read (``False`` for a method that
            reads no passage graphs: only document links, if any, explain it).
        ranks: only the first ``ranks`` positions are explained, the rest get no via and
            coherence 0 (``None``: all).
    """
    ranked = [int(i) for i in order]
    explained = ranked if ranks is None else ranked[:ranks]
    found: list[tuple[Via, float] | None] = [None] * len(explained)
    if read_links and len(scores.graphs) == len(passages):
        found = _evidence_links(query, passages, scores.graphs, explained, scores.links)
    if scores.documents is not None:
        subjects = scores.documents.subjects
        for r, link in enumerate(document_links(passages, explained, subjects)):
            if link is not None:
                found[r] = link
    out = [NOT_LINKED if f is None else Explanation(*f) for f in found]
    return out + [NOT_LINKED] * (len(ranked) - len(explained))


def evidence_chain(
    query: str,
    passages: Sequence[Passage],
    graphs: Sequence[PassageGraph],
    order: Sequence[int] | np.ndarray,
    links: PoolLinks | None = None,
) -> list[Via | None]:
    """The title or entity via of each ranked position (module docstring): ``result[r]``
    explains ``order[r]``; document links are :func:`explain_ranking`'s.

    Args:
        query: the question (entities it names link nothing).
        passages: the whole pool, in input order.
        graphs: one passage graph per passage, in input order.
        order: input indices of the ranked passages, best first (may be cut to a top n).
        links: the pool's :class:`~cage_core.ranking.links.PoolLinks` when the ranking computed
            them (``PoolScores.links``); computed here otherwise.

    Raises:
        ValueError: ``graphs`` or ``links`` not one per passage; ``order`` with an index out
            of range or repeated.
    """
    return [
        None if f is None else f[0] for f in _evidence_links(query, passages, graphs, order, links)
    ]


def _evidence_links(
    query: str,
    passages: Sequence[Passage],
    graphs: Sequence[PassageGraph],
    order: Sequence[int] | np.ndarray,
    links: PoolLinks | None = None,
) -> list[tuple[Via, float] | None]:
    """:func:`evidence_chain`'s vias, each with the strength of its link."""
    k = len(passages)
    if len(graphs) != k:
        raise ValueError(f"evidence_chain needs one graph per passage: {len(graphs)} for {k}")
    ranked = [int(i) for i in order]
    if any(not 0 <= i < k for i in ranked) or len(set(ranked)) != len(ranked):
        raise ValueError(f"order must list distinct passage indices in [0, {k}), got {ranked}")
    if links is None:
        links = pool_links(query, [p.title for p in passages], [p.text for p in passages], graphs)
    elif links.size != k:
        raise ValueError(f"evidence_chain needs the links of the {k} passages, got {links.size}")
    rank_of = {i: r for r, i in enumerate(ranked)}
    link_names = links.link_names or tuple(p.title for p in passages)
    mentioned: dict[tuple[int, int], tuple[bool, str]] = {}  # (later, earlier) -> (backward, name)
    for i, j in links.name_pairs if links.link_names else links.title_pairs:  # text i names j
        if i not in rank_of or j not in rank_of:
            continue
        a, b = rank_of[i], rank_of[j]
        pair, mention = (max(a, b), min(a, b)), (a > b, written_title(link_names[j]))
        mentioned[pair] = min(mention, mentioned.get(pair, mention))
    title_names = {pair: name for pair, (_, name) in mentioned.items()}
    names, weights = links.entity_names, links.entity_weights
    shared: dict[tuple[int, int], list[str]] = {}  # (later rank, earlier rank) -> entities
    for entity, holders in index_sets([names[i] for i in ranked], set(weights)).items():
        for earlier, later in combinations(holders, 2):  # holders ascend: earlier < later
            shared.setdefault((later, earlier), []).append(entity)
    partners: dict[int, set[int]] = {}
    for later, earlier in [*title_names, *shared]:
        partners.setdefault(later, set()).add(earlier)
    found: list[tuple[Via, float] | None] = [None] * len(ranked)
    for later, earliers in partners.items():
        strength = {
            e: (
                (later, e) in title_names,
                math.fsum(weights[n] for n in shared.get((later, e), ())),
            )
            for e in sorted(earliers)
        }
        e = max(
            strength, key=strength.__getitem__
        )  # the first maximum: ties go to the earlier rank
        if (later, e) in title_names:
            found[later] = Via(title_names[later, e], e, "title"), TITLE_STRENGTH
        else:
            entity = min(shared[later, e], key=lambda n: (-weights[n], n))
            via = Via(_as_labelled(graphs[ranked[later]], entity), e, "entity")
            found[later] = via, entity_strength(strength[e][1])
    return found


def _as_labelled(graph: PassageGraph, name: str) -> str:
    """The smallest non-numeric entity label of ``graph`` whose lower-cased form is ``name``
    and that may link (:func:`~cage_core.names.may_link.may_link`, as the link's entities)."""
    return min(
        (
            label
            for label, ent in zip(graph.labels, graph.entity_types)
            if ent and ent not in NUMERIC_ENTITY_TYPES and label.lower() == name and may_link(label)
        ),
        default=name,
    )
