"""The expansion: the passages linked to a retriever's first candidates, weighed and ordered.

Links from a seed candidate ``s`` to a passage ``p`` not among the candidates, with
``N`` passages in the index, ``df(n)`` = passages keyed by or mentioning ``n`` and
specificity ``spec(n) = ln(1 + N / df(n)) / ln(1 + N)`` (in (0, 1]; rarer names weigh
more):

* **forward** — ``s`` mentions a name ``n`` that is a key of ``p`` (``s`` names what ``p``
  is about): weight ``forward · spec(n)``. ``n`` may also be a sub-span of two or more
  words of a mention ("sir james charles mathew" ⊃ "james charles mathew") or the first
  and last word of a mention of 3–5 words ("robert a stemmle" → "robert stemmle"); ``s``
  then counts in ``df(n)`` as if it named ``n`` exactly;
* **backward** — ``p`` mentions a key ``n`` of ``s``: weight ``backward · spec(n)``;
* **shared** — ``s`` and ``p`` mention the same entity ``n`` that the query does not name,
  with ``2 ≤ df(n) ≤ max_shared_df``: weight ``shared · spec(n)``;
* **document** — ``p`` is the chunk right before or after the seed in its document (same
  ``doc_id``, positions differing by one; :meth:`LinkIndex.chunks_of
  <cage_core.expansion.index.LinkIndex.chunks_of>`): weight ``adjacent``
  (:func:`adjacent_links`; an index without documents, or without positions, has none of
  these links). Other chunks of the seed's document make no link.

A name with ``df(n) > max_link_df`` makes no link. The weights and both limits are the
fields of :class:`LinkWeights`. Why each weight, limit and default has its value: the
``expansion.*`` rows of ``docs/provenance.md``.

Each link's weight is multiplied by ``seed_decay ** r``, ``r`` the seed's 0-based rank;
a passage's weight is that of its strongest link (its ``via`` and ``seed``; among equally
strong links the first found: seeds in rank order, then forward, backward, shared links,
each in the seed's stored name order, a mention before its sub-spans). Results are ordered
by weight (highest first), then seed rank, then id — deterministic.

:func:`expand` reads the index only through :class:`~cage_core.expansion.storage.LinkStorage`,
so it is the same code over every storage.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

from cage_core.config import WEIGHT, Int, Ranges, Real, Validated
from cage_core.expansion.entries import SHORT_NAME_WORDS
from cage_core.expansion.record import LinkEntry
from cage_core.expansion.storage import LinkStorage
from cage_core.names.forms import words

__all__ = [
    "DEFAULT_LIMIT",
    "DEFAULT_SEEDS",
    "MAX_SUBSPAN_MENTION_WORDS",
    "Expansion",
    "LinkKind",
    "LinkWeights",
    "adjacent_links",
    "expand",
    "mention_spans",
    "specificity",
]

logger = logging.getLogger("cage_core.expansion.index")
"""The index's logger: what an expansion reports is the index's (users filter by that name)."""

MAX_SUBSPAN_MENTION_WORDS = 8
"""Sub-spans are looked up only in mentions of at most this many words."""
DEFAULT_SEEDS = 3
"""Candidates expanded from by default (why: the ``expansion.seeds`` row of
``docs/provenance.md``)."""
DEFAULT_LIMIT = 8
"""Most passages added by default (why: the ``expansion.limit`` row of ``docs/provenance.md``)."""

LinkKind = Literal["forward", "backward", "shared", "document"]
Link = tuple[LinkKind, str, int, Collection[str]]
"""``(kind, name, df(name), passage ids)`` of one name link of a seed."""


@dataclass(frozen=True)
class LinkWeights(Validated):
    """The weights of the module docstring's formula, validated.

    Attributes:
        forward: weight of a forward link (the seed names what the passage is about).
        backward: weight of a backward link (the passage names what the seed is about).
        shared: weight of a shared rare entity.
        adjacent: weight of the link to the chunk right before or after the seed in its
            document (``doc_id`` and ``position``).
        seed_decay: factor per seed rank (1: every seed counts alike), in (0, 1].
        max_shared_df: entities held by more passages than this are not rare: no shared link.
        max_link_df: names held by more passages than this make no link of any kind (they
            say little, and this bounds the work of one expansion to about
            ``seeds × names per seed × max_link_df``).
    """

    forward: float = 1.0
    backward: float = 0.5
    shared: float = 0.5
    adjacent: float = 1.0
    seed_decay: float = 0.8
    max_shared_df: int = 20
    max_link_df: int = 1000

    PREFIX: ClassVar[str] = "LinkWeights."
    RANGES: ClassVar[Ranges] = {
        "forward": WEIGHT,
        "backward": WEIGHT,
        "shared": WEIGHT,
        "adjacent": WEIGHT,
        "seed_decay": Real(0.0, 1.0, low_open=True),
        "max_shared_df": Int(2, 2**31 - 1),
        "max_link_df": Int(2, 2**31 - 1),
    }


@dataclass(frozen=True)
class Expansion:
    """A passage the index adds to the candidates.

    Attributes:
        id: the passage's id (as given to :meth:`LinkIndex.add
            <cage_core.expansion.index.LinkIndex.add>`).
        via: the name (in :func:`~cage_core.names.forms.normal_name` form) through which it
            was reached.
        seed: the candidate id it was reached from.
        weight: its link weight (module docstring); results are sorted by it.
        kind: the kind of its strongest link: ``"forward"``, ``"backward"``, ``"shared"``
            or ``"document"`` (a chunk of the seed's document; ``via`` is then the seed's
            ``doc_id``).
    """

    id: str
    via: str
    seed: str
    weight: float
    kind: LinkKind = "forward"


def specificity(df: int, n: int) -> float:
    """``spec(n) = ln(1 + N / df) / ln(1 + N)`` of the module docstring; 0 when either is 0."""
    if not df or not n:
        return 0.0
    return math.log1p(n / df) / math.log1p(n)


def expand(
    storage: LinkStorage,
    weights: LinkWeights,
    query: str,
    candidates: Sequence[str],
    *,
    seeds: int = DEFAULT_SEEDS,
    limit: int = DEFAULT_LIMIT,
) -> list[Expansion]:
    """Passages of ``storage`` linked to the ``seeds`` most relevant candidates, best first,
    at most ``limit`` (the contract of :meth:`LinkIndex.expand
    <cage_core.expansion.index.LinkIndex.expand>`)."""
    if not isinstance(query, str):
        raise TypeError(f"query must be a str, got {type(query).__name__}")
    if isinstance(candidates, str) or not isinstance(candidates, Sequence):
        raise TypeError("candidates must be a sequence of passage ids")
    for name, value in (("seeds", seeds), ("limit", limit)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be an int >= 0, got {value!r}")
    excluded = set(candidates)
    query_words = f" {' '.join(words(query.lower()))} "
    with storage.reading():
        seed_entries = _seed_entries(storage, candidates, seeds)
        if not limit or not seed_entries:
            return []
        seed_links = _name_links(storage, weights, seed_entries, query_words)
        seed_documents = [adjacent_links(storage, seed, weights) for seed in seed_entries]
        n = len(storage)
    kind_weights = {
        "forward": weights.forward,
        "backward": weights.backward,
        "shared": weights.shared,
    }
    best: dict[str, tuple[float, int, str, LinkKind, str]] = {}
    for rank, (seed, links) in enumerate(zip(seed_entries, seed_links)):
        decay = weights.seed_decay**rank
        for kind, name, df, targets in links:
            weight = kind_weights[kind] * specificity(df, n) * decay
            for target in targets:
                if target in excluded:
                    continue
                current = best.get(target)
                if current is None or weight > current[0]:  # equal weight: the first stays
                    best[target] = (weight, rank, seed.id, kind, name)
        for target, weight in seed_documents[rank]:
            weight *= decay
            current = best.get(target)
            if target not in excluded and (current is None or weight > current[0]):
                best[target] = (weight, rank, seed.id, "document", seed.doc_id or "")
    ordered = sorted(best.items(), key=lambda item: (-item[1][0], item[1][1], item[0]))
    return [
        Expansion(id=pid, via=name, seed=seed_id, weight=weight, kind=kind)
        for pid, (weight, _, seed_id, kind, name) in ordered[:limit]
    ]


def _seed_entries(storage: LinkStorage, candidates: Sequence[str], seeds: int) -> list[LinkEntry]:
    """The entries of the first ``seeds`` distinct candidates the index knows, in order
    (read as many at a time as are still missing, so the usual case is one read of
    ``seeds`` entries, and a list of unknown ids costs few reads)."""
    found: list[LinkEntry] = []
    unknown = 0
    distinct = list(dict.fromkeys(candidates))
    start = 0
    while start < len(distinct) and len(found) < seeds:
        chunk = distinct[start : start + max(seeds - len(found), unknown)]
        start += len(chunk)
        held = storage.get([pid for pid in chunk if isinstance(pid, str)])
        for pid in chunk:
            if len(found) == seeds:
                break
            entry = held.get(pid) if isinstance(pid, str) else None
            if entry is None:
                unknown += 1
            else:
                found.append(entry)
    if unknown:
        logger.debug("link index: %d candidate ids are not indexed; skipped as seeds", unknown)
    return found


def _name_links(
    storage: LinkStorage, weights: LinkWeights, seeds: Sequence[LinkEntry], query_words: str
) -> list[list[Link]]:
    """Per seed, ``(kind, name, df(name), passage ids)`` of every link (module docstring),
    in the order they are found.

    A forward link's ``df`` counts the seed even when it names ``n`` only through a
    longer mention or an alias, so that way never weighs more than naming ``n`` exactly.
    The storage is read three times for all seeds at once: the counts of every name,
    then the holders of those that can link.
    """
    most = weights.max_link_df
    rare = min(weights.max_shared_df, most)
    spans = [[(m, list(mention_spans(m))) for m in seed.mentions] for seed in seeds]
    names = {n for seed_spans in spans for _, forms in seed_spans for n in forms}
    names.update(k for seed in seeds for k in seed.keys)
    counts = storage.counts(names)
    df = {name: keyed + mentioned for name, (keyed, mentioned) in counts.items()}
    forward_names: set[str] = set()
    mention_names: set[str] = set()
    for seed, seed_spans in zip(seeds, spans):
        named = set(seed.mentions)
        forward_names.update(
            n
            for _, forms in seed_spans
            for n in forms
            if counts.get(n, (0, 0))[0] and df[n] + (n not in named) <= most
        )
        mention_names.update(k for k in seed.keys if counts.get(k, (0, 0))[1] and df[k] <= most)
        mention_names.update(
            m for m in seed.mentions if 2 <= df.get(m, 0) <= rare and f" {m} " not in query_words
        )
    keyed_by = storage.holders(forward_names, "key")
    mentioned_by = storage.holders(mention_names, "mention")
    out = []
    for seed, seed_spans in zip(seeds, spans):
        named = set(seed.mentions)
        links: list[Link] = []
        for _, forms in seed_spans:
            for name in forms:
                targets = keyed_by.get(name)
                if targets and name in forward_names:
                    d = df[name] + (name not in named)
                    if d <= most:
                        links.append(("forward", name, d, targets))
        for key in seed.keys:
            targets = mentioned_by.get(key)
            if targets and df.get(key, 0) <= most:
                links.append(("backward", key, df[key], targets))
        for mention in seed.mentions:
            d = df.get(mention, 0)
            targets = mentioned_by.get(mention)
            if targets and 2 <= d <= rare and f" {mention} " not in query_words:
                links.append(("shared", mention, d, targets))
        out.append(links)
    return out


def adjacent_links(
    storage: LinkStorage, seed: LinkEntry, weights: LinkWeights
) -> list[tuple[str, float]]:
    """``(id, weights.adjacent)`` of the document links of ``seed`` (module docstring): the
    chunks of its document whose position differs from its own by one; none without a
    ``doc_id`` or a position, or when ``adjacent`` is 0. Read from ``storage`` (call inside
    its :meth:`~cage_core.expansion.storage.LinkStorage.reading` block)."""
    if seed.doc_id is None or seed.position is None or weights.adjacent <= 0:
        return []
    p = seed.position
    return [
        (entry.id, weights.adjacent)
        for entry in storage.document_entries(seed.doc_id, [p - 1, p + 1])
    ]


def mention_spans(mention: str) -> Iterator[str]:
    """The mention, its contiguous sub-spans of two or more words (longest first), then its
    first and last word when it has ``SHORT_NAME_WORDS`` words (as
    :func:`~cage_core.expansion.entries.name_aliases`)."""
    yield mention
    tokens = mention.split(" ")
    if len(tokens) > MAX_SUBSPAN_MENTION_WORDS:
        return
    for size in range(len(tokens) - 1, 1, -1):
        for start in range(len(tokens) - size + 1):
            yield " ".join(tokens[start : start + size])
    if SHORT_NAME_WORDS[0] <= len(tokens) <= SHORT_NAME_WORDS[1]:
        yield f"{tokens[0]} {tokens[-1]}"
