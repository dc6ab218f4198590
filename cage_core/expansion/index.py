"""An ingest-time index from names to passages, to reach the hop a retriever missed.

Multi-hop questions need a passage that is unlike the question: the one about the entity
that a first-hop passage names ("Where was Charles Mathew's father buried?" → the passage
on *Charles Mathew* names his father *James Charles Mathew* → the passage about him says
where he is buried). GraphER enriches passages with such links at ingest; this index
does so once per corpus, and :meth:`LinkIndex.expand` adds the linked passages to a
retriever's candidates before reranking::

    index = LinkIndex.build(zip(ids, passages, reranker.graphs(passages, level="light")))
    index.save("graphs.links.jsonl")                      # JSON Lines: loaded whole
    index = LinkIndex.open("graphs.links.sqlite")         # SQLite: opened, read per query
    extra = index.expand(question, retrieved_ids)         # seeds=3, limit=8 by default
    pool = retrieved_ids + [e.id for e in extra]          # then fetch and rerank the pool

The index holds ids and names only, not the passages: the caller maps ids back to its own
passages (a vector store's ids, row numbers, ...). Several threads may call
:meth:`LinkIndex.expand` at once; :meth:`LinkIndex.add` and :meth:`LinkIndex.remove` must
not run concurrently with anything else on the same index.

What the index holds per passage (a :class:`LinkEntry`):

* ``keys`` — the names the passage is *about*: its subject (title, metadata or derived,
  :func:`cage_core.ranking.subjects.derive_subject`), when the subject is a title or
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
* **document** — ``p`` is the chunk right before or after the seed in its document (same
  ``doc_id``, positions differing by one; :meth:`LinkIndex.chunks_of`): weight ``adjacent``
  (:func:`adjacent_links`; an index without documents, or without positions, has none of
  these links). Other chunks of the seed's document make no link: with a weight of 0.25 or
  0.5 for them, cross-validation over every DEV file pooled chose 0 in 4 of 5 folds and on
  all folds (``benchmarks/sibling_cv.py``: DragonBall and SciFact chunks, ``--expand``).

A name with ``df(n) > max_link_df`` makes no link. The weights and both limits are the
fields of :class:`LinkWeights`.

Each link's weight is multiplied by ``seed_decay ** r``, ``r`` the seed's 0-based rank;
a passage's weight is that of its strongest link (its ``via`` and ``seed``; among equally
strong links the first found: seeds in rank order, then forward, backward, shared links,
each in the seed's stored name order, a mention before its sub-spans). Results are ordered
by weight (highest first), then seed rank, then id — deterministic.

Storage (:class:`LinkStorage`): in memory (:class:`MemoryLinkStorage`), or a SQLite link
store (:mod:`cage_core.expansion.store`: opened without loading, for millions of chunks, written
per batch by several processes), chosen by :meth:`LinkIndex.open` from the path's suffix
(:data:`STORE_SUFFIXES`); :meth:`LinkIndex.expand` is the same code over both.

Stored form (:meth:`LinkIndex.save`; the export and import form of a store): JSON Lines,
UTF-8, no pickle. The first line is the header ``{"format": "cage-link-index", "version":
1, "passages": N}``; each further line is one entry ``{"id": ..., "subject": ...,
"keys": [...], "mentions": [...]}``, with ``"doc_id"`` and ``"position"`` when set.
:meth:`LinkIndex.load` treats the file as untrusted: a bad header raises
:class:`LinkIndexFormatError`; an entry line that is not JSON, too long, of the wrong
types, over the count limits, with names not in :func:`link_name` form or with an id seen
before is skipped, and all skips are reported in one warning.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import os
import re
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal, Protocol, Self

from cage_core.config import WEIGHT, Int, Ranges, Real, validate
from cage_core.graphs.passage_graph import PassageGraph
from cage_core.graphs.pronouns import NUMERIC_ENTITY_TYPES
from cage_core.lang.en import EXPANSION_ALIASES, shortened_names
from cage_core.passage import Passage, encodable
from cage_core.ranking.links import (  # link_name and its bounds: re-exported
    MAX_NAME_CHARS,
    MAX_NAME_WORDS,
    MIN_NAME_CHARS,
    link_name,
)
from cage_core.ranking.pair_index import words
from cage_core.ranking.subjects import derive_subject, first_sentence_subject

__all__ = [
    "DEFAULT_LIMIT",
    "DEFAULT_SEEDS",
    "FILE_MODE",
    "FORMAT_TAG",
    "HONORIFICS",
    "LINK_INDEX_SUFFIX",
    "LINK_INDEX_VERSION",
    "MAX_ID_CHARS",
    "MAX_KEYS",
    "MAX_LINE_CHARS",
    "MAX_MENTIONS",
    "MAX_NAME_CHARS",
    "MAX_NAME_WORDS",
    "MAX_SUBSPAN_MENTION_WORDS",
    "MIN_NAME_CHARS",
    "SHORT_NAME_WORDS",
    "Expansion",
    "LinkEntry",
    "LinkIndex",
    "LinkIndexFormatError",
    "LinkKind",
    "LinkWeights",
    "entry_for",
    "link_index_path",
    "link_name",
    "name_aliases",
]

logger = logging.getLogger(__name__)

FORMAT_TAG = "cage-link-index"
LINK_INDEX_VERSION = 1
"""Bump when the stored layout or the meaning of keys/mentions changes."""
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
SHORT_NAME_WORDS = (EXPANSION_ALIASES.min_words, EXPANSION_ALIASES.max_words)
"""Names of this many words (inclusive range) also stand for their first and last word."""
HONORIFICS = EXPANSION_ALIASES.titles
"""Leading words a name is also known without (:data:`~cage_core.lang.en.EXPANSION_ALIASES`)."""
NAME_CHECK_CACHE = 1 << 16
"""Stored names whose validity is remembered per process (validating entries on read)."""
MAX_POSITION = 2**63 - 1
"""Stored chunk positions larger than this are rejected (SQLite's integer range)."""
FILE_MODE = 0o600
LINK_INDEX_SUFFIX = ".links.jsonl"
"""The JSON Lines link index of a graph store ``graphs.sqlite`` is ``graphs.links.jsonl``."""
LINK_STORE_SUFFIX = ".links.sqlite"
"""The SQLite link store of a graph store ``graphs.sqlite`` is ``graphs.links.sqlite``."""
STORE_SUFFIXES = (".sqlite", ".sqlite3", ".db")
"""A link index path ending in one of these is a SQLite link store (:mod:`cage_core.expansion.store`)."""

DEFAULT_SEEDS = 3
"""Candidates expanded from by default; chosen with :data:`DEFAULT_LIMIT` by 5-fold
cross-validation on the DEV questions of HotpotQA, 2Wiki and MuSiQue pooled, with and without
titles (one-SE rule: the smallest expansion within one standard error of the best mean
Recall@5 after reranking; ``benchmarks/link_expansion.py``)."""
DEFAULT_LIMIT = 8
"""Most passages added by default (see :data:`DEFAULT_SEEDS`)."""

LinkKind = Literal["forward", "backward", "shared", "document"]
NameRole = Literal["key", "mention"]


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

    RANGES: ClassVar[Ranges] = {
        "forward": WEIGHT,
        "backward": WEIGHT,
        "shared": WEIGHT,
        "adjacent": WEIGHT,
        "seed_decay": Real(0.0, 1.0, low_open=True),
        "max_shared_df": Int(2, 2**31 - 1),
        "max_link_df": Int(2, 2**31 - 1),
    }
    """The accepted value of each field (checked by :func:`~cage_core.config.validate`)."""

    def __post_init__(self) -> None:
        validate(self, self.RANGES, "LinkWeights.")


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
        doc_id: the document the passage (chunk) belongs to, or ``None``.
        position: the chunk's 0-based order inside its document, or ``None``.
    """

    id: str
    subject: str
    keys: tuple[str, ...]
    mentions: tuple[str, ...]
    doc_id: str | None = None
    position: int | None = None

    def __post_init__(self) -> None:
        if self.doc_id is not None and not _valid_id(self.doc_id):
            raise ValueError(f"LinkEntry.doc_id must be None or a valid Unicode string of 1 to "
                             f"{MAX_ID_CHARS} characters, got {self.doc_id!r:.60}")  # fmt: skip
        if self.position is not None and (
            isinstance(self.position, bool)
            or not isinstance(self.position, int)
            or not 0 <= self.position <= MAX_POSITION
        ):
            raise ValueError(f"LinkEntry.position must be None or an int in [0, {MAX_POSITION}], "
                             f"got {self.position!r}")  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        """The stored mapping; ``doc_id`` and ``position`` only when set."""
        data: dict[str, Any] = {"id": self.id, "subject": self.subject, "keys": list(self.keys),
                                "mentions": list(self.mentions)}  # fmt: skip
        if self.doc_id is not None:
            data["doc_id"] = self.doc_id
        if self.position is not None:
            data["position"] = self.position
        return data

    @classmethod
    def from_stored(cls, data: Any) -> LinkEntry:
        """An entry from its stored mapping, validating everything (module docstring).

        Raises:
            LinkIndexFormatError: on wrong types, oversized values or names not in
                :func:`link_name` form.
        """
        if not isinstance(data, Mapping):
            raise LinkIndexFormatError(f"an entry must be an object, got {type(data).__name__}")
        if not _ENTRY_FIELDS <= set(data) <= _ENTRY_FIELDS | _OPTIONAL_ENTRY_FIELDS:
            raise LinkIndexFormatError("an entry has exactly the fields id, subject, keys, "
                                       "mentions (and optionally doc_id, position)")  # fmt: skip
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
        doc_id, position = data.get("doc_id"), data.get("position")
        if doc_id is not None and not _valid_id(doc_id):
            raise LinkIndexFormatError(f"doc_id must be a string of 1 to {MAX_ID_CHARS} characters")
        if position is not None and (isinstance(position, bool) or not isinstance(position, int)
                                     or not 0 <= position <= MAX_POSITION):  # fmt: skip
            raise LinkIndexFormatError(f"position must be an int in [0, {MAX_POSITION}]")
        return cls(pid, subject, keys, mentions, doc_id, position)


_ENTRY_FIELDS = frozenset({"id", "subject", "keys", "mentions"})
_OPTIONAL_ENTRY_FIELDS = frozenset({"doc_id", "position"})


class LinkStorage(Protocol):
    """Where a :class:`LinkIndex` keeps its entries and postings: the little it reads them
    through, so that :meth:`LinkIndex.expand` is one algorithm over every storage.

    :class:`MemoryLinkStorage` holds them in dicts (what :meth:`LinkIndex.load` fills);
    :class:`cage_core.expansion.store.SqliteLinkStorage` in a SQLite file, read per query.
    Names are in :func:`link_name` form; ``role`` is ``"key"`` or ``"mention"``.
    """

    def __len__(self) -> int:
        """``N``: the entries held."""
        ...

    def get(self, ids: Sequence[str]) -> dict[str, LinkEntry]:
        """The entries held among ``ids`` (distinct strings), by id."""
        ...

    def counts(self, names: Collection[str]) -> dict[str, tuple[int, int]]:
        """``(passages keyed by it, passages mentioning it)`` of each name held by some entry."""
        ...

    def holders(self, names: Collection[str], role: NameRole) -> dict[str, Collection[str]]:
        """The ids of the passages holding each name in ``role`` (names held so by none: absent)."""
        ...

    def put(self, entries: Sequence[LinkEntry]) -> None:
        """Add entries, each replacing the one with its id (in order: a repeated id, the last)."""
        ...

    def delete(self, ids: Sequence[str]) -> int:
        """Remove the entries of ``ids``; how many were held."""
        ...

    def iter_entries(self) -> Iterator[LinkEntry]:
        """Every entry, in the order it was (last) put."""
        ...

    def document_entries(
        self, doc_id: str, positions: Collection[int] | None = None
    ) -> list[LinkEntry]:
        """The document's entries ordered by (position, id), those without one last; with
        ``positions``, only those at one of them."""
        ...

    def reading(self) -> AbstractContextManager[object]:
        """A block whose reads all see one state of the storage (one expansion's reads)."""
        ...


class MemoryLinkStorage:
    """:class:`LinkStorage` in dicts: entries by id, and name → ids postings per role."""

    def __init__(self) -> None:
        self._entries: dict[str, LinkEntry] = {}
        self._postings: dict[NameRole, dict[str, set[str]]] = {"key": {}, "mention": {}}
        self._documents: dict[str, set[str]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, ids: Sequence[str]) -> dict[str, LinkEntry]:
        return {pid: self._entries[pid] for pid in ids if pid in self._entries}

    def counts(self, names: Collection[str]) -> dict[str, tuple[int, int]]:
        keyed, mentioned = self._postings["key"], self._postings["mention"]
        return {n: (len(keyed.get(n, ())), len(mentioned.get(n, ())))
                for n in names if n in keyed or n in mentioned}  # fmt: skip

    def holders(self, names: Collection[str], role: NameRole) -> dict[str, Collection[str]]:
        postings = self._postings[role]
        return {n: postings[n] for n in names if n in postings}

    def put(self, entries: Sequence[LinkEntry]) -> None:
        for entry in entries:
            self.delete([entry.id])
            self._entries[entry.id] = entry
            for role, names in (("key", entry.keys), ("mention", entry.mentions)):
                postings = self._postings[role]  # type: ignore[index]
                for name in names:
                    postings.setdefault(name, set()).add(entry.id)
            if entry.doc_id is not None:
                self._documents.setdefault(entry.doc_id, set()).add(entry.id)

    def delete(self, ids: Sequence[str]) -> int:
        removed = 0
        for pid in ids:
            entry = self._entries.pop(pid, None)
            if entry is None:
                continue
            removed += 1
            for role, names in (("key", entry.keys), ("mention", entry.mentions)):
                postings = self._postings[role]  # type: ignore[index]
                for name in names:
                    _discard(postings, name, pid)
            if entry.doc_id is not None:
                _discard(self._documents, entry.doc_id, pid)
        return removed

    def iter_entries(self) -> Iterator[LinkEntry]:
        return iter(list(self._entries.values()))

    def document_entries(
        self, doc_id: str, positions: Collection[int] | None = None
    ) -> list[LinkEntry]:
        held = (self._entries[pid] for pid in self._documents.get(doc_id, ()))
        if positions is not None:
            held = (e for e in held if e.position is not None and e.position in positions)
        return sorted(held, key=_chunk_order)

    def reading(self) -> AbstractContextManager[object]:
        return nullcontext()


def _discard(postings: dict[str, set[str]], name: str, pid: str) -> None:
    holders = postings[name]
    holders.discard(pid)
    if not holders:
        del postings[name]


def _chunk_order(entry: LinkEntry) -> tuple[bool, int, str]:
    """The order of :meth:`LinkIndex.chunks_of`: by position, then id; no position last."""
    return (entry.position is None, entry.position or 0, entry.id)


def link_index_path(graph_store_path: str | os.PathLike[str]) -> Path:
    """Where the JSON Lines link index of a graph store lives (``LINK_INDEX_SUFFIX`` next to it)."""
    return Path(graph_store_path).with_suffix(LINK_INDEX_SUFFIX)


def link_store_path(graph_store_path: str | os.PathLike[str]) -> Path:
    """Where the SQLite link store of a graph store lives (``LINK_STORE_SUFFIX`` next to it)."""
    return Path(graph_store_path).with_suffix(LINK_STORE_SUFFIX)


def is_store_path(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names a SQLite link store (its name ends in :data:`STORE_SUFFIXES`)."""
    return Path(path).suffix.lower() in STORE_SUFFIXES


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
    position = passage.position if doc_id is not None else None
    if position is not None and not 0 <= position <= MAX_POSITION:
        position = None
    return LinkEntry(passage_id, subject_name, keys, tuple(mentions[:MAX_MENTIONS]), doc_id,
                     position)  # fmt: skip


class LinkIndex:
    """Names → passages, and the expansion of a candidate list (module docstring).

    Args:
        weights: the link weights (default :class:`LinkWeights`).
        storage: where the entries live (default: in memory, :class:`MemoryLinkStorage`);
            :meth:`open` gives an index over a SQLite store.
    """

    def __init__(self, weights: LinkWeights | None = None, *,
                 storage: LinkStorage | None = None) -> None:  # fmt: skip
        if weights is not None and not isinstance(weights, LinkWeights):
            raise TypeError(f"weights must be LinkWeights, got {type(weights).__name__}")
        self.weights = weights or LinkWeights()
        self._storage: LinkStorage = storage if storage is not None else MemoryLinkStorage()

    @property
    def storage(self) -> LinkStorage:
        """Where the entries live (:class:`LinkStorage`)."""
        return self._storage

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
        title (:data:`cage_core.ranking.subjects.SUBJECT_METADATA_KEYS`).
        """
        entry = entry_for(passage_id, passage, graph, metadata)
        self.add_entry(entry)
        return entry

    def add_entry(self, entry: LinkEntry) -> None:
        """Index a ready :class:`LinkEntry` (replacing any entry with the same id)."""
        self.add_entries([entry])

    def add_entries(self, entries: Iterable[LinkEntry]) -> int:
        """Index ready entries, each replacing the entry with its id; returns how many.

        The storage's work is proportional to the entries given, not to the index (a
        SQLite store writes them in transactions of at most ``WRITE_BATCH_ENTRIES``).
        """
        batch = list(entries)
        for entry in batch:
            if not isinstance(entry, LinkEntry):
                raise TypeError(f"entry must be a LinkEntry, got {type(entry).__name__}")
        self._storage.put(batch)
        return len(batch)

    def remove(self, passage_id: str) -> bool:
        """Drop a passage from the index; whether it was there."""
        return self.remove_many([passage_id]) == 1

    def remove_many(self, passage_ids: Iterable[str]) -> int:
        """Drop passages from the index; how many were there."""
        return self._storage.delete(list(dict.fromkeys(passage_ids)))

    def __len__(self) -> int:
        return len(self._storage)

    def __contains__(self, passage_id: object) -> bool:
        return isinstance(passage_id, str) and bool(self._storage.get([passage_id]))

    def entry(self, passage_id: str) -> LinkEntry | None:
        """The entry of a passage id, or ``None`` if it is not indexed."""
        return self._storage.get([passage_id]).get(passage_id)

    def entries(self) -> Iterator[LinkEntry]:
        """Every entry, in insertion order (a replaced entry counts as inserted anew)."""
        return self._storage.iter_entries()

    def chunks_of(self, doc_id: str) -> list[str]:
        """Ids of the entries of document ``doc_id``, by (position, id); those without a
        position last, by id ([] for an unknown document)."""
        if not isinstance(doc_id, str):
            raise TypeError(f"doc_id must be a str, got {type(doc_id).__name__}")
        return [entry.id for entry in self._storage.document_entries(doc_id)]

    def close(self) -> None:
        """Release the storage's resources (a SQLite connection); a no-op in memory."""
        close = getattr(self._storage, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- querying ------------------------------------------------------------------------
    def about(self, name: str) -> list[str]:
        """Ids of the passages keyed by ``name`` (any form; compared by :func:`link_name`), sorted."""
        normal = link_name(name)
        return sorted(self._storage.holders([normal], "key").get(normal, ()))

    def specificity(self, name: str) -> float:
        """``spec(n)`` of the module docstring for a name in :func:`link_name` form (0 if unseen)."""
        return self._spec(sum(self._storage.counts([name]).get(name, (0, 0))), len(self))

    @staticmethod
    def _spec(df: int, n: int) -> float:
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
        query_words = f" {' '.join(words(query.lower()))} "
        with self._storage.reading():
            seed_entries = self._seeds(candidates, seeds)
            if not limit or not seed_entries:
                return []
            seed_links = self._links(seed_entries, query_words)
            seed_documents = [adjacent_links(self._storage, seed, self.weights)
                              for seed in seed_entries]  # fmt: skip
            n = len(self._storage)
        best: dict[str, tuple[float, int, str, LinkKind, str]] = {}
        for rank, (seed, links) in enumerate(zip(seed_entries, seed_links)):
            decay = self.weights.seed_decay**rank
            for kind, name, df, targets in links:
                weight = self._weight(kind) * self._spec(df, n) * decay
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
        return [Expansion(id=pid, via=name, seed=seed_id, weight=weight, kind=kind)
                for pid, (weight, _, seed_id, kind, name) in ordered[:limit]]  # fmt: skip

    def _seeds(self, candidates: Sequence[str], seeds: int) -> list[LinkEntry]:
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
            held = self._storage.get([pid for pid in chunk if isinstance(pid, str)])
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

    def _weight(self, kind: LinkKind) -> float:
        return {"forward": self.weights.forward, "backward": self.weights.backward,
                "shared": self.weights.shared}[kind]  # fmt: skip

    def _links(
        self, seeds: Sequence[LinkEntry], query_words: str
    ) -> list[list[tuple[LinkKind, str, int, Collection[str]]]]:
        """Per seed, ``(kind, name, df(name), passage ids)`` of every link (module docstring),
        in the order they are found.

        A forward link's ``df`` counts the seed even when it names ``n`` only through a
        longer mention or an alias, so that way never weighs more than naming ``n`` exactly.
        The storage is read three times for all seeds at once: the counts of every name,
        then the holders of those that can link.
        """
        most = self.weights.max_link_df
        rare = min(self.weights.max_shared_df, most)
        spans = [[(m, list(_spans(m))) for m in seed.mentions] for seed in seeds]
        names = {n for seed_spans in spans for _, forms in seed_spans for n in forms}
        names.update(k for seed in seeds for k in seed.keys)
        counts = self._storage.counts(names)
        df = {name: keyed + mentioned for name, (keyed, mentioned) in counts.items()}
        forward_names: set[str] = set()
        mention_names: set[str] = set()
        for seed, seed_spans in zip(seeds, spans):
            named = set(seed.mentions)
            forward_names.update(n for _, forms in seed_spans for n in forms
                                 if counts.get(n, (0, 0))[0]
                                 and df[n] + (n not in named) <= most)  # fmt: skip
            mention_names.update(k for k in seed.keys
                                 if counts.get(k, (0, 0))[1] and df[k] <= most)  # fmt: skip
            mention_names.update(m for m in seed.mentions if 2 <= df.get(m, 0) <= rare
                                 and f" {m} " not in query_words)  # fmt: skip
        keyed_by = self._storage.holders(forward_names, "key")
        mentioned_by = self._storage.holders(mention_names, "mention")
        out = []
        for seed, seed_spans in zip(seeds, spans):
            named = set(seed.mentions)
            links: list[tuple[LinkKind, str, int, Collection[str]]] = []
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

    # -- persistence ---------------------------------------------------------------------
    def to_lines(self) -> Iterator[str]:
        """The stored form, line by line (module docstring), each without its newline."""
        yield json.dumps({"format": FORMAT_TAG, "version": LINK_INDEX_VERSION,
                          "passages": len(self)})  # fmt: skip
        for entry in self.entries():
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
        n = len(self)
        return self.stored_bytes() / n if n else 0.0

    @classmethod
    def open(
        cls, path: str | os.PathLike[str], *, weights: LinkWeights | None = None,
        create: bool = False,
    ) -> LinkIndex:  # fmt: skip
        """The index stored at ``path``: a SQLite link store when the name ends in one of
        :data:`STORE_SUFFIXES` (opened without loading, read per query:
        :mod:`cage_core.expansion.store`), else the JSON Lines file, loaded (:meth:`load`).

        Args:
            create: create an empty SQLite store when there is none (writers: ingest);
                readers leave it ``False``, so a mistyped path is an error, not an empty index.

        Raises:
            FileNotFoundError: when nothing is stored at ``path`` (and not ``create``).
            LinkIndexFormatError: when the file is not a link index of this version.
        """
        if is_store_path(path):
            from cage_core.expansion.store import SqliteLinkStorage

            return cls(weights, storage=SqliteLinkStorage(path, create=create))
        return cls.load(path, weights=weights)

    @classmethod
    def load(cls, path: str | os.PathLike[str], *, weights: LinkWeights | None = None) -> LinkIndex:
        """Read an index written by :meth:`save`, validating it (module docstring); a SQLite
        store's path (:data:`STORE_SUFFIXES`) is opened as :meth:`open` does.

        Raises:
            LinkIndexFormatError: when the header is missing, malformed or of another version.
        """
        if is_store_path(path):
            return cls.open(path, weights=weights)
        with open(path, "rb") as handle:
            return cls.from_lines(_bounded_lines(handle), weights=weights, source=str(path))

    @classmethod
    def from_lines(
        cls, lines: Iterable[bytes | str | None], *, weights: LinkWeights | None = None,
        source: str = "link index",
    ) -> LinkIndex:  # fmt: skip
        """An index from stored lines (the :meth:`to_lines` form; bytes are decoded as UTF-8).

        A line longer than ``MAX_LINE_CHARS`` is rejected; pass ``None`` in place of a line
        to count one that was cut off by the reader.
        """
        index = cls(weights)
        iterator = iter(lines)
        first = next(iterator, b"")
        if first in (b"", ""):  # None: a header past the length bound, which _header names
            raise LinkIndexFormatError(f"{source}: empty; not a cage link index")
        header = _header(first, source)
        skipped: dict[str, int] = {}
        for line in iterator:
            try:
                data = _json_line(line)
                entry = LinkEntry.from_stored(data)
                if entry.id in index:
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


def adjacent_links(storage: LinkStorage, seed: LinkEntry,
                   weights: LinkWeights) -> list[tuple[str, float]]:  # fmt: skip
    """``(id, weights.adjacent)`` of the document links of ``seed`` (module docstring): the
    chunks of its document whose position differs from its own by one; none without a
    ``doc_id`` or a position, or when ``adjacent`` is 0. Read from ``storage`` (call inside
    its :meth:`~LinkStorage.reading` block)."""
    if seed.doc_id is None or seed.position is None or weights.adjacent <= 0:
        return []
    p = seed.position
    return [(entry.id, weights.adjacent) for entry in storage.document_entries(
        seed.doc_id, [p - 1, p + 1])]  # fmt: skip


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
    core, short = shortened_names(tokens, EXPANSION_ALIASES)  # the ranking's, in another style
    return ([" ".join(core)] if len(core) < len(tokens) else []) + short


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
        if not isinstance(name, str) or len(name) > MAX_NAME_CHARS or not _is_link_name(name):
            raise LinkIndexFormatError(f"{field} must hold names in link_name form")
    if len(set(value)) != len(value):
        raise LinkIndexFormatError(f"{field} must not repeat a name")
    return tuple(value)


_ASCII_LINK_NAME = re.compile(r"[a-z0-9_]+(?: [a-z0-9_]+)*")
"""ASCII text in :func:`link_name` form, but for its length bounds: lower-case ``\\w`` runs
joined by one space (no parenthetical, nothing to lower-case or split)."""


@functools.lru_cache(maxsize=NAME_CHECK_CACHE)
def _is_link_name(name: str) -> bool:
    """``link_name(name) == name``, remembered: stored names repeat (a few are very common).
    An ASCII name is checked by :data:`_ASCII_LINK_NAME` and the bounds (the same answer,
    without normalising it: most names of a store are read once; "" is its own form)."""
    if name.isascii():
        return not name or (MIN_NAME_CHARS <= len(name) <= MAX_NAME_CHARS
                and name.count(" ") < MAX_NAME_WORDS
                and _ASCII_LINK_NAME.fullmatch(name) is not None)  # fmt: skip
    return link_name(name) == name


def _json_line(line: bytes | str | None) -> Any:
    if line is None or len(line) > MAX_LINE_CHARS:
        raise LinkIndexFormatError(f"line longer than {MAX_LINE_CHARS} characters")
    try:
        text = line.decode("utf-8") if isinstance(line, bytes) else line
        return json.loads(text)
    except UnicodeDecodeError:
        raise LinkIndexFormatError("line is not UTF-8") from None
    except (ValueError, RecursionError):  # also a number past Python's int-string limit
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
