"""An ingest-time index from names to passages, to reach the hop a retriever missed.

Multi-hop questions need a passage that is unlike the question: the one about the entity
that a first-hop passage names ("Where was Charles Mathew's father buried?" → the passage
on *Charles Mathew* names his father *James Charles Mathew* → the passage about him says
where he is buried). GraphER enriches passages with such links at ingest; this index
does so once per corpus, and :meth:`LinkIndex.expand` adds the linked passages to a
retriever's candidates before reranking::

    index = LinkIndex.build(zip(ids, passages, reranker.graphs(passages, level="light")))
    index.save("graphs.links.jsonl")                      # or: cage enrich --link-index
    index = LinkIndex.load("graphs.links.jsonl")
    extra = index.expand(question, retrieved_ids)         # seeds=3, limit=8 by default
    pool = retrieved_ids + [e.id for e in extra]          # then fetch and rerank the pool

The index holds ids and names only, not the passages: the caller maps ids back to its own
passages (a vector store's ids, row numbers, ...). Several threads may call
:meth:`LinkIndex.expand` at once; :meth:`LinkIndex.add` and :meth:`LinkIndex.remove` must
not run concurrently with anything else on the same index.

What the index holds per passage (a :class:`LinkEntry`):

* ``keys`` — the names the passage is *about*: its subject (title, metadata or derived,
  :func:`cage_core.passage_subject.derive_subject`), when the subject is a title or
  metadata also the first-sentence subject ("Charles Mathew" and "Charles James Mathew"),
  and the :func:`name_aliases` of each ("Sir James Charles Mathew" → "James Charles
  Mathew", "James Mathew");
* ``mentions`` — the names the passage *names*: the non-numeric named entities of its
  light graph, less its own keys.

Names are compared in :func:`link_name` form: lower-cased words (``\\w+`` runs) joined by
one space, a trailing parenthetical dropped (``"Kiss and Tell (1945 film)"`` →
``"kiss and tell"``), at least ``MIN_NAME_CHARS`` characters and at most
``MAX_NAME_WORDS`` words.

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
* **document** — ``p`` is a chunk of the seed's document (same ``doc_id``,
  :meth:`LinkIndex.chunks_of`): weight ``adjacent`` when their positions differ by one, else
  ``sibling`` (:func:`sibling_links`; an index without documents has none of these links).

A name with ``df(n) > max_link_df`` makes no link. The weights and both limits are the
fields of :class:`LinkWeights`.

Each link's weight is multiplied by ``seed_decay ** r``, ``r`` the seed's 0-based rank;
a passage's weight is that of its strongest link (its ``via`` and ``seed``; among equally
strong links the first found: seeds in rank order, then forward, backward, shared links,
each in the seed's stored name order, a mention before its sub-spans). Results are ordered
by weight (highest first), then seed rank, then id — deterministic.

Stored form (:meth:`LinkIndex.save`): JSON Lines, UTF-8, no pickle. The first line is the
header ``{"format": "cage-link-index", "version": 1, "passages": N}``; each further line is
one entry ``{"id": ..., "subject": ..., "keys": [...], "mentions": [...]}``, with
``"doc_id"`` and ``"position"`` when the passage has them.
:meth:`LinkIndex.load` treats the file as untrusted: a bad header raises
:class:`LinkIndexFormatError`; an entry line that is not JSON, too long, of the wrong
types, over the count limits, with names not in :func:`link_name` form or with an id seen
before is skipped, and all skips are reported in one warning.
"""

from __future__ import annotations

import json
import logging
import math
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from cage_core.bridge import bare_title
from cage_core.graph.passage_graph import PassageGraph
from cage_core.graph.pronouns import NUMERIC_ENTITY_TYPES
from cage_core.passage import Passage, encodable
from cage_core.passage_subject import derive_subject, first_sentence_subject
from cage_core.pool_index import words

logger = logging.getLogger(__name__)

FORMAT_TAG = "cage-link-index"
LINK_INDEX_VERSION = 1
"""Bump when the stored layout or the meaning of keys/mentions changes."""
MIN_NAME_CHARS = 3
"""Names shorter than this (in :func:`link_name` form) never link (as for bridge titles)."""
MAX_NAME_WORDS = 12
"""Names of more words than this are no names (a sentence, not an entity)."""
MAX_NAME_CHARS = 200
"""Stored names longer than this are rejected."""
MAX_ID_CHARS = 512
"""Stored passage ids longer than this are rejected."""
MAX_KEYS = 8
"""Stored entries with more keys than this are rejected."""
MAX_MENTIONS = 512
"""Mentions kept per passage (the first in graph order); stored entries with more are rejected."""
MAX_LINE_CHARS = 256_000
"""Stored lines longer than this are rejected before they are parsed."""
MAX_SUBSPAN_MENTION_WORDS = 8
"""Sub-spans are looked up only in mentions of at most this many words."""
SHORT_NAME_WORDS = (3, 5)
"""Names of this many words (inclusive range) also stand for their first and last word."""
HONORIFICS = frozenset({"sir", "dame", "lady", "lord", "dr", "saint", "st"})
"""Leading words a name is also known without."""
FILE_MODE = 0o600
LINK_INDEX_SUFFIX = ".links.jsonl"
"""The link index kept next to a graph store ``graphs.sqlite`` is ``graphs.links.jsonl``."""

DEFAULT_SEEDS = 3
"""Candidates expanded from by default; chosen with :data:`DEFAULT_LIMIT` by 5-fold
cross-validation on the DEV questions of HotpotQA, 2Wiki and MuSiQue pooled, with and without
titles (one-SE rule: the smallest expansion within one standard error of the best mean
Recall@5 after reranking; ``benchmarks/link_expansion.py``)."""
DEFAULT_LIMIT = 8
"""Most passages added by default (see :data:`DEFAULT_SEEDS`)."""

LinkKind = Literal["forward", "backward", "shared", "document"]


class LinkIndexFormatError(ValueError):
    """A stored link index (or one of its entries) is malformed, oversized or of another version."""


@dataclass(frozen=True)
class LinkWeights:
    """The weights of the module docstring's formula, validated.

    Attributes:
        forward: weight of a forward link (the seed names what the passage is about).
        backward: weight of a backward link (the passage names what the seed is about).
        shared: weight of a shared rare entity.
        adjacent: weight of the link to the chunk right before or after the seed in its
            document (``doc_id`` and ``position``).
        sibling: weight of the link to another chunk of the seed's document.
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
    sibling: float = 0.5
    seed_decay: float = 0.8
    max_shared_df: int = 20
    max_link_df: int = 1000

    def __post_init__(self) -> None:
        for name in ("forward", "backward", "shared", "adjacent", "sibling"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not 0.0 <= value < math.inf:
                raise ValueError(f"LinkWeights.{name} must be a finite number >= 0, got {value!r}")
        if not isinstance(self.seed_decay, (int, float)) or not 0.0 < self.seed_decay <= 1.0:
            raise ValueError(f"LinkWeights.seed_decay must be in (0, 1], got {self.seed_decay!r}")
        for name in ("max_shared_df", "max_link_df"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 2:
                raise ValueError(f"LinkWeights.{name} must be an int >= 2, got {value!r}")


@dataclass(frozen=True)
class Expansion:
    """A passage the index adds to the candidates.

    Attributes:
        id: the passage's id (as given to :meth:`LinkIndex.add`).
        via: the name (in :func:`link_name` form) through which it was reached.
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


@dataclass(frozen=True)
class LinkEntry:
    """What the index holds of one passage (module docstring): names in :func:`link_name` form.

    Attributes:
        id: the passage id.
        subject: the passage's subject as found (for display; "" when none).
        keys: the names the passage is about (its subject first, then aliases).
        mentions: the names the passage mentions, less its keys.
        doc_id: the document the passage is a chunk of (``Passage.doc_id``), or ``None``.
        position: the chunk's 0-based place in that document, or ``None``.
    """

    id: str
    subject: str
    keys: tuple[str, ...]
    mentions: tuple[str, ...]
    doc_id: str | None = None
    position: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "subject": self.subject, "keys": list(self.keys),
                               "mentions": list(self.mentions)}  # fmt: skip
        if self.doc_id is not None:
            out["doc_id"] = self.doc_id
        if self.position is not None:
            out["position"] = self.position
        return out

    @classmethod
    def from_stored(cls, data: Any) -> LinkEntry:
        """An entry from its stored mapping, validating everything (module docstring).

        Raises:
            LinkIndexFormatError: on wrong types, oversized values or names not in
                :func:`link_name` form.
        """
        if not isinstance(data, Mapping):
            raise LinkIndexFormatError(f"an entry must be an object, got {type(data).__name__}")
        if not {"id", "subject", "keys", "mentions"} <= set(data) <= {
                "id", "subject", "keys", "mentions", "doc_id", "position"}:
            raise LinkIndexFormatError(
                "an entry has the fields id, subject, keys, mentions (and doc_id, position)"
            )
        doc_id, position = data.get("doc_id"), data.get("position")
        if doc_id is not None and not _valid_id(doc_id):
            raise LinkIndexFormatError(f"doc_id must be a string of 1 to {MAX_ID_CHARS} characters")
        if position is not None and (isinstance(position, bool) or not isinstance(position, int)
                                     or position < 0):
            raise LinkIndexFormatError("position must be an int >= 0")
        pid, subject = data["id"], data["subject"]
        if not _valid_id(pid):
            raise LinkIndexFormatError(f"id must be a string of 1 to {MAX_ID_CHARS} characters")
        if not isinstance(subject, str) or len(subject) > MAX_NAME_CHARS or not _is_utf8(subject):
            raise LinkIndexFormatError(
                f"subject must be a string of at most {MAX_NAME_CHARS} characters"
            )
        keys = _stored_names(data["keys"], MAX_KEYS, "keys")
        mentions = _stored_names(data["mentions"], MAX_MENTIONS, "mentions")
        if set(keys) & set(mentions):
            raise LinkIndexFormatError("a name is both a key and a mention of one entry")
        return cls(pid, subject, keys, mentions, doc_id, position)


def link_index_path(graph_store_path: str | os.PathLike[str]) -> Path:
    """Where the link index of a graph store lives (``LINK_INDEX_SUFFIX`` next to it)."""
    return Path(graph_store_path).with_suffix(LINK_INDEX_SUFFIX)


def link_name(name: str) -> str:
    """``name`` in the form names are compared in (module docstring); "" if it cannot link."""
    if not isinstance(name, str):
        return ""
    tokens = words(bare_title(name))
    normal = " ".join(tokens)
    if len(normal) < MIN_NAME_CHARS or len(tokens) > MAX_NAME_WORDS or len(normal) > MAX_NAME_CHARS:
        return ""
    return normal


def entry_for(
    passage_id: str,
    passage: Passage,
    graph: PassageGraph | None,
    metadata: Mapping[str, Any] | None = None,
) -> LinkEntry:
    """The :class:`LinkEntry` of a passage, its light (or full) graph and its metadata."""
    if not _valid_id(passage_id):
        raise ValueError(f"a passage id must be a valid Unicode string of 1 to {MAX_ID_CHARS} "
                         f"characters, got {passage_id!r:.60}")  # fmt: skip
    if not isinstance(passage, Passage):
        raise TypeError(f"passage must be a cage_core.Passage, got {type(passage).__name__}")
    if graph is not None and not isinstance(graph, PassageGraph):
        raise TypeError(f"graph must be a PassageGraph or None, got {type(graph).__name__}")
    subject = derive_subject(passage, graph, metadata)
    names = [subject.name]
    if subject.origin in ("title", "metadata"):
        names.append(first_sentence_subject(passage.text))
    names += [alias for n in names for alias in name_aliases(n)]
    keys = tuple(_unique(link_name(n) for n in names))[:MAX_KEYS]
    mentions: list[str] = []
    if graph is not None:
        own = set(keys)
        entity_labels = (label for label, ent in zip(graph.labels, graph.entity_types)
                         if ent and ent not in NUMERIC_ENTITY_TYPES)  # fmt: skip
        mentions = [n for n in _unique(link_name(label) for label in entity_labels) if n not in own]
    subject_name = encodable(subject.name)  # a lone surrogate of the title would not save
    doc_id = passage.doc_id if passage.doc_id is not None and _valid_id(passage.doc_id) else None
    return LinkEntry(passage_id, subject_name, keys, tuple(mentions[:MAX_MENTIONS]), doc_id,
                     passage.position if doc_id is not None else None)


class LinkIndex:
    """Names → passages, and the expansion of a candidate list (module docstring).

    Args:
        weights: the link weights (default :class:`LinkWeights`).
    """

    def __init__(self, weights: LinkWeights | None = None) -> None:
        if weights is not None and not isinstance(weights, LinkWeights):
            raise TypeError(f"weights must be LinkWeights, got {type(weights).__name__}")
        self.weights = weights or LinkWeights()
        self._entries: dict[str, LinkEntry] = {}
        self._by_key: dict[str, set[str]] = {}
        self._by_mention: dict[str, set[str]] = {}
        self._by_doc: dict[str, set[str]] = {}

    # -- building ------------------------------------------------------------------------
    @classmethod
    def build(
        cls,
        items: Iterable[tuple[str, Passage, PassageGraph]],
        *,
        weights: LinkWeights | None = None,
    ) -> LinkIndex:
        """An index of ``(passage id, passage, its graph)`` items (a repeated id: the last wins)."""
        index = cls(weights)
        for passage_id, passage, graph in items:
            index.add(passage_id, passage, graph)
        return index

    def add(
        self,
        passage_id: str,
        passage: Passage,
        graph: PassageGraph | None,
        *,
        metadata: Mapping[str, Any] | None = None,
    ) -> LinkEntry:
        """Index one passage (replacing any entry with the same id); returns its entry.

        ``metadata`` (e.g. a framework document's) gives the subject of a passage without a
        title (:data:`cage_core.passage_subject.SUBJECT_METADATA_KEYS`).
        """
        entry = entry_for(passage_id, passage, graph, metadata)
        self.add_entry(entry)
        return entry

    def add_entry(self, entry: LinkEntry) -> None:
        """Index a ready :class:`LinkEntry` (replacing any entry with the same id)."""
        if not isinstance(entry, LinkEntry):
            raise TypeError(f"entry must be a LinkEntry, got {type(entry).__name__}")
        self.remove(entry.id)
        self._entries[entry.id] = entry
        for name in entry.keys:
            self._by_key.setdefault(name, set()).add(entry.id)
        for name in entry.mentions:
            self._by_mention.setdefault(name, set()).add(entry.id)
        if entry.doc_id is not None:
            self._by_doc.setdefault(entry.doc_id, set()).add(entry.id)

    def remove(self, passage_id: str) -> bool:
        """Drop a passage from the index; whether it was there."""
        entry = self._entries.pop(passage_id, None)
        if entry is None:
            return False
        for postings, names in ((self._by_key, entry.keys), (self._by_mention, entry.mentions)):
            for name in names:
                holders = postings[name]
                holders.discard(passage_id)
                if not holders:
                    del postings[name]
        if entry.doc_id is not None:
            chunks = self._by_doc[entry.doc_id]
            chunks.discard(passage_id)
            if not chunks:
                del self._by_doc[entry.doc_id]
        return True

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, passage_id: object) -> bool:
        return passage_id in self._entries

    def entry(self, passage_id: str) -> LinkEntry | None:
        """The entry of a passage id, or ``None`` if it is not indexed."""
        return self._entries.get(passage_id)

    def entries(self) -> Iterator[LinkEntry]:
        """Every entry, in insertion order."""
        return iter(list(self._entries.values()))

    # -- querying ------------------------------------------------------------------------
    def about(self, name: str) -> list[str]:
        """Ids of the passages keyed by ``name`` (any form; compared by :func:`link_name`), sorted."""
        return sorted(self._by_key.get(link_name(name), ()))

    def chunks_of(self, doc_id: str) -> list[str]:
        """Ids of the entries of document ``doc_id``, ordered by (position, id); entries
        without a position last, by id. ``[]`` for an unknown document."""
        entries = (self._entries[pid] for pid in self._by_doc.get(doc_id, ()))
        return [e.id for e in sorted(entries, key=lambda e: (e.position is None, e.position or 0, e.id))]

    def specificity(self, name: str) -> float:
        """``spec(n)`` of the module docstring for a name in :func:`link_name` form (0 if unseen)."""
        return self._spec(self._df(name))

    def _spec(self, df: int) -> float:
        n = len(self._entries)
        if not df or not n:
            return 0.0
        return math.log1p(n / df) / math.log1p(n)

    def expand(
        self,
        query: str,
        candidates: Sequence[str],
        *,
        seeds: int = DEFAULT_SEEDS,
        limit: int = DEFAULT_LIMIT,
    ) -> list[Expansion]:
        """Passages linked to the ``seeds`` most relevant candidates, best first, at most ``limit``.

        Args:
            query: the question (entities it names make no shared link).
            candidates: the retrieved passage ids, most relevant first. The seeds are the
                first ``seeds`` of them that the index knows; unknown ids are skipped (logged
                at debug level). No candidate is ever returned.
            seeds: how many candidates to expand from (>= 0).
            limit: the most expansions returned (>= 0).

        Returns:
            :class:`Expansion` s ordered by weight, then seed rank, then id (module docstring).
        """
        if not isinstance(query, str):
            raise TypeError(f"query must be a str, got {type(query).__name__}")
        if isinstance(candidates, str) or not isinstance(candidates, Sequence):
            raise TypeError("candidates must be a sequence of passage ids")
        for name, value in (("seeds", seeds), ("limit", limit)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be an int >= 0, got {value!r}")
        excluded = set(candidates)
        seed_entries: list[LinkEntry] = []
        unknown = 0
        for pid in dict.fromkeys(candidates):
            if len(seed_entries) == seeds:
                break
            entry = self._entries.get(pid) if isinstance(pid, str) else None
            if entry is None:
                unknown += 1
                continue
            seed_entries.append(entry)
        if unknown:
            logger.debug("link index: %d candidate ids are not indexed; skipped as seeds", unknown)
        if not limit or not seed_entries:
            return []
        query_words = f" {' '.join(words(query.lower()))} "
        best: dict[str, tuple[float, int, str, LinkKind, str]] = {}
        for rank, seed in enumerate(seed_entries):
            decay = self.weights.seed_decay**rank
            for kind, name, df, targets in self._links(seed, query_words):
                weight = self._weight(kind) * self._spec(df) * decay
                for target in targets:
                    if target in excluded:
                        continue
                    current = best.get(target)
                    if current is None or weight > current[0]:  # equal weight: the first stays
                        best[target] = (weight, rank, seed.id, kind, name)
            for target, weight in sibling_links(self, seed, self.weights):
                weight *= decay
                current = best.get(target)
                if target not in excluded and (current is None or weight > current[0]):
                    best[target] = (weight, rank, seed.id, "document", seed.doc_id or "")
        ordered = sorted(best.items(), key=lambda item: (-item[1][0], item[1][1], item[0]))
        return [Expansion(id=pid, via=name, seed=seed_id, weight=weight, kind=kind)
                for pid, (weight, _, seed_id, kind, name) in ordered[:limit]]  # fmt: skip

    def _weight(self, kind: LinkKind) -> float:
        return {"forward": self.weights.forward, "backward": self.weights.backward,
                "shared": self.weights.shared}[kind]  # fmt: skip

    def _links(
        self, seed: LinkEntry, query_words: str
    ) -> Iterator[tuple[LinkKind, str, int, set[str]]]:
        """``(kind, name, df(name), passage ids)`` of every link of the seed (module docstring).

        A forward link's ``df`` counts the seed even when it names ``n`` only through a
        longer mention or an alias, so that way never weighs more than naming ``n`` exactly.
        """
        most = self.weights.max_link_df
        named = set(seed.mentions)
        for mention in seed.mentions:
            for name in _spans(mention):
                targets = self._by_key.get(name)
                df = self._df(name) + (name not in named)
                if targets and df <= most:
                    yield "forward", name, df, targets
        for key in seed.keys:
            targets = self._by_mention.get(key)
            df = self._df(key)
            if targets and df <= most:
                yield "backward", key, df, targets
        rare = min(self.weights.max_shared_df, most)
        for mention in seed.mentions:
            df = self._df(mention)
            if 2 <= df <= rare and f" {mention} " not in query_words:
                yield "shared", mention, df, self._by_mention[mention]

    def _df(self, name: str) -> int:
        """``df(n)``: passages keyed by or mentioning ``name`` (disjoint: keys are no mentions)."""
        return len(self._by_key.get(name, ())) + len(self._by_mention.get(name, ()))

    # -- persistence ---------------------------------------------------------------------
    def to_lines(self) -> Iterator[str]:
        """The stored form, line by line (module docstring), each without its newline."""
        yield json.dumps({"format": FORMAT_TAG, "version": LINK_INDEX_VERSION,
                          "passages": len(self._entries)})  # fmt: skip
        for entry in self._entries.values():
            yield json.dumps(entry.to_dict(), ensure_ascii=False, separators=(",", ":"))

    def save(self, path: str | os.PathLike[str]) -> int:
        """Write the stored form to ``path`` (atomically, mode 0600); returns the bytes written."""
        target = Path(path)
        temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        fd = os.open(temporary, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, FILE_MODE)
        written = 0
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                for line in self.to_lines():
                    written += handle.write(line + "\n")
            os.replace(temporary, target)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
        return written

    def stored_bytes(self) -> int:
        """Size of the stored form in bytes (UTF-8), header included."""
        return sum(len(line.encode("utf-8")) + 1 for line in self.to_lines())

    def bytes_per_passage(self) -> float:
        """Mean stored bytes per indexed passage (0 for an empty index)."""
        return self.stored_bytes() / len(self._entries) if self._entries else 0.0

    @classmethod
    def load(cls, path: str | os.PathLike[str], *, weights: LinkWeights | None = None) -> LinkIndex:
        """Read an index written by :meth:`save`, validating it (module docstring).

        Raises:
            LinkIndexFormatError: when the header is missing, malformed or of another version.
        """
        with open(path, "rb") as handle:
            return cls.from_lines(_bounded_lines(handle), weights=weights, source=str(path))

    @classmethod
    def from_lines(
        cls, lines: Iterable[bytes | str], *, weights: LinkWeights | None = None,
        source: str = "link index",
    ) -> LinkIndex:  # fmt: skip
        """An index from stored lines (the :meth:`to_lines` form; bytes are decoded as UTF-8).

        A line longer than ``MAX_LINE_CHARS`` is rejected; pass ``None`` in place of a line
        to count one that was cut off by the reader.
        """
        index = cls(weights)
        iterator = iter(lines)
        first = next(iterator, b"")
        if not first:
            raise LinkIndexFormatError(f"{source}: empty; not a cage link index")
        header = _header(first, source)
        skipped: dict[str, int] = {}
        for line in iterator:
            try:
                data = _json_line(line)
                entry = LinkEntry.from_stored(data)
                if entry.id in index._entries:
                    raise LinkIndexFormatError("repeated id")
            except LinkIndexFormatError as exc:
                reason = str(exc)
                skipped[reason] = skipped.get(reason, 0) + 1
                continue
            index.add_entry(entry)
        if skipped:
            summary = "; ".join(f"{count} × {reason}" for reason, count in sorted(skipped.items()))
            logger.warning(
                "%s: skipped %d invalid entries (%s)", source, sum(skipped.values()), summary
            )
        if header != len(index) + sum(skipped.values()):
            logger.warning("%s: the header announces %d entries but %d lines follow "
                           "(truncated or appended to?)", source, header,
                           len(index) + sum(skipped.values()))  # fmt: skip
        return index


def sibling_links(index: LinkIndex, seed: LinkEntry,
                  weights: LinkWeights) -> Iterator[tuple[str, float]]:  # fmt: skip
    """``(id, weight)`` of the document links of ``seed`` (module docstring): every other chunk
    of its document, ``weights.adjacent`` for the chunks right before and after it,
    ``weights.sibling`` for the others (0-weight links are left out); none without a
    ``doc_id``. Positions unknown on either side make a sibling link."""
    if seed.doc_id is None:
        return
    for pid in index.chunks_of(seed.doc_id):
        if pid == seed.id:
            continue
        position = index._entries[pid].position
        near = seed.position is not None and position is not None and abs(position - seed.position) == 1
        weight = weights.adjacent if near else weights.sibling
        if weight > 0:
            yield pid, weight


def _is_utf8(text: str) -> bool:
    """No lone surrogates: the text can be written as UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) and 0 < len(value) <= MAX_ID_CHARS and _is_utf8(value)


def _unique(names: Iterable[str]) -> list[str]:
    """Non-empty names, first occurrence kept, in order."""
    return [n for n in dict.fromkeys(names) if n]


def name_aliases(name: str) -> list[str]:
    """Shorter forms other passages use for a name (module docstring), in this order:

    * without a leading honorific (:data:`HONORIFICS`): ``"Sir James Charles Mathew"`` →
      ``"James Charles Mathew"``;
    * the first and last word of a name of ``SHORT_NAME_WORDS`` capitalised words:
      ``"George Timothy Clooney"`` → ``"George Clooney"``, ``"Robert A. Stemmle"`` →
      ``"Robert Stemmle"``. A lower-case word ("University of Cambridge") makes none.
    """
    tokens = words(name)
    aliases = []
    if len(tokens) > 2 and tokens[0].lower() in HONORIFICS:
        tokens = tokens[1:]
        aliases.append(" ".join(tokens))
    if SHORT_NAME_WORDS[0] <= len(tokens) <= SHORT_NAME_WORDS[1] and all(
        t[0].isupper() for t in tokens
    ):
        aliases.append(f"{tokens[0]} {tokens[-1]}")
    return aliases


def _spans(mention: str) -> Iterator[str]:
    """The mention, its contiguous sub-spans of two or more words (longest first), then its
    first and last word when it has ``SHORT_NAME_WORDS`` words (as :func:`name_aliases`)."""
    yield mention
    tokens = mention.split(" ")
    if len(tokens) > MAX_SUBSPAN_MENTION_WORDS:
        return
    for size in range(len(tokens) - 1, 1, -1):
        for start in range(len(tokens) - size + 1):
            yield " ".join(tokens[start : start + size])
    if SHORT_NAME_WORDS[0] <= len(tokens) <= SHORT_NAME_WORDS[1]:
        yield f"{tokens[0]} {tokens[-1]}"


def _stored_names(value: Any, most: int, field: str) -> tuple[str, ...]:
    if not isinstance(value, list) or len(value) > most:
        raise LinkIndexFormatError(f"{field} must be a list of at most {most} names")
    for name in value:
        if not isinstance(name, str) or len(name) > MAX_NAME_CHARS or link_name(name) != name:
            raise LinkIndexFormatError(f"{field} must hold names in link_name form")
    if len(set(value)) != len(value):
        raise LinkIndexFormatError(f"{field} must not repeat a name")
    return tuple(value)


def _json_line(line: bytes | str | None) -> Any:
    if line is None or len(line) > MAX_LINE_CHARS:
        raise LinkIndexFormatError(f"line longer than {MAX_LINE_CHARS} characters")
    try:
        text = line.decode("utf-8") if isinstance(line, bytes) else line
        return json.loads(text)
    except UnicodeDecodeError:
        raise LinkIndexFormatError("line is not UTF-8") from None
    except (json.JSONDecodeError, RecursionError):
        raise LinkIndexFormatError("line is not JSON") from None


def _header(line: bytes | str | None, source: str) -> int:
    """The announced entry count of a valid header line."""
    try:
        data = _json_line(line)
    except LinkIndexFormatError as exc:
        raise LinkIndexFormatError(f"{source}: not a cage link index ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT_TAG:
        raise LinkIndexFormatError(f"{source}: not a cage link index (missing format tag)")
    if data.get("version") != LINK_INDEX_VERSION:
        raise LinkIndexFormatError(f"{source}: link index version {data.get('version')!r} is not "
                                   f"{LINK_INDEX_VERSION}; rebuild it with this cage-rag")  # fmt: skip
    count = data.get("passages")
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise LinkIndexFormatError(f"{source}: the header's passage count must be an int >= 0")
    return count


def _bounded_lines(handle: Any) -> Iterator[bytes | None]:
    """Lines of a binary file without their newline; ``None`` for one over the length limit
    (whose rest is read past in bounded pieces, never held whole); blank lines skipped."""
    while True:
        line = handle.readline(MAX_LINE_CHARS + 1)
        if not line:
            return
        if len(line) > MAX_LINE_CHARS and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):
                line = handle.readline(MAX_LINE_CHARS + 1)
            yield None
            continue
        line = line.rstrip(b"\r\n")
        if line.strip():
            yield line
