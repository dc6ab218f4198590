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

The parts are modules of their own (:mod:`cage_core.expansion` lists them); the names
callers use are importable from here too. Names are compared in
:func:`~cage_core.names.forms.normal_name` form.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Self

from cage_core.expansion import algorithm
from cage_core.expansion.algorithm import (
    DEFAULT_LIMIT,
    DEFAULT_SEEDS,
    Expansion,
    LinkWeights,
    adjacent_links,
)
from cage_core.expansion.document_names import DocumentNames
from cage_core.expansion.documents import DocumentRecord
from cage_core.expansion.entries import entry_for, name_aliases
from cage_core.expansion.index_files import (
    STORE_SUFFIXES,
    is_store_path,
    link_store_path,
    open_storage,
    read_storage,
    stored_lines,
)
from cage_core.expansion.jsonl import FILE_MODE, MAX_LINE_CHARS, write_lines
from cage_core.expansion.openings import ingest_chunk, put_chunks
from cage_core.expansion.record import MAX_ID_CHARS, MAX_KEYS, LinkEntry, LinkIndexFormatError
from cage_core.expansion.storage import LinkStorage, MemoryLinkStorage
from cage_core.graphs.passage_graph import PassageGraph
from cage_core.names.forms import MAX_NAME_CHARS, normal_name
from cage_core.passage import Passage

__all__ = [
    "DEFAULT_LIMIT",
    "DEFAULT_SEEDS",
    "FILE_MODE",
    "MAX_ID_CHARS",
    "MAX_KEYS",
    "MAX_LINE_CHARS",
    "MAX_NAME_CHARS",
    "STORE_SUFFIXES",
    "Expansion",
    "LinkEntry",
    "LinkIndex",
    "LinkIndexFormatError",
    "LinkStorage",
    "LinkWeights",
    "adjacent_links",
    "entry_for",
    "is_store_path",
    "link_store_path",
    "name_aliases",
]


class LinkIndex:
    """Names → passages, and the expansion of a candidate list (module docstring).

    Args:
        weights: the link weights (default :class:`LinkWeights`).
        storage: where the entries live (default: in memory, :class:`MemoryLinkStorage`);
            :meth:`open` gives an index over a SQLite store.
    """

    def __init__(
        self, weights: LinkWeights | None = None, *, storage: LinkStorage | None = None
    ) -> None:
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
        """An index of ``(passage id, passage, its graph)`` items (a repeated id: the last wins),
        with the records of the passages' documents (their ``doc_id``; read from each one's
        first passage: :mod:`~cage_core.expansion.openings`)."""
        index = cls(weights)
        chunks = [
            ingest_chunk(entry_for(pid, passage, graph), passage) for pid, passage, graph in items
        ]
        put_chunks(index.storage, chunks)
        return index

    def add(
        self,
        passage_id: str,
        passage: Passage,
        graph: PassageGraph | None,
        *,
        metadata: Mapping[str, Any] | None = None,
    ) -> LinkEntry:
        """Index one passage (replacing any entry with the same id); returns its entry. A
        passage of a document (``doc_id``) gives the document's record when it is its first
        (:mod:`~cage_core.expansion.openings`).

        ``metadata`` (e.g. a framework document's) gives the subject of a passage without a
        title (:data:`cage_core.names.subjects.SUBJECT_METADATA_KEYS`) and its file.
        """
        entry = entry_for(passage_id, passage, graph, metadata)
        put_chunks(self._storage, [ingest_chunk(entry, passage, metadata)])
        return entry

    def add_entry(self, entry: LinkEntry) -> None:
        """Index a ready :class:`LinkEntry` (replacing any entry with the same id)."""
        self.add_entries([entry])

    def add_entries(self, entries: Iterable[LinkEntry]) -> int:
        """Index ready entries, each replacing the entry with its id; returns how many.

        The storage's work is proportional to the entries given, not to the index (a
        SQLite store writes them in transactions of at most ``WRITE_BATCH_ENTRIES``).

        Raises:
            TypeError: when an entry is not a :class:`LinkEntry`.
            ValueError: as :meth:`LinkStorage.put
                <cage_core.expansion.storage.LinkStorage.put>` does, in memory as in a store.
        """
        batch = list(entries)
        for entry in batch:
            if not isinstance(entry, LinkEntry):
                raise TypeError(f"entry must be a LinkEntry, got {type(entry).__name__}")
        self._storage.put(batch)
        return len(batch)

    def add_documents(self, records: Iterable[DocumentRecord]) -> int:
        """Keep document records (:mod:`~cage_core.expansion.documents`: a document's name
        and the words that may name it), each replacing the one with its ``doc_id``; returns
        how many. A record may come before or after its document's entries; it goes with the
        document's last entry (:meth:`remove_many`).

        Raises:
            TypeError, ValueError: as :meth:`LinkStorage.put_documents
                <cage_core.expansion.storage.LinkStorage.put_documents>` does.
        """
        batch = list(records)
        self._storage.put_documents(batch)
        return len(batch)

    def documents(self) -> DocumentNames:
        """The documents' records as routing reads them
        (:func:`~cage_core.expansion.routing.route_question`); an index without records
        (an old file or store) has none: ``document_count() == 0``, and nothing routes."""
        return self._storage.documents()

    def remove(self, passage_id: str) -> bool:
        """Drop a passage from the index; whether it was there."""
        return self.remove_many([passage_id]) == 1

    def remove_many(self, passage_ids: Iterable[str]) -> int:
        """Drop passages from the index; how many were there. A document left without
        passages loses its record (:meth:`add_documents`)."""
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
        position last, by id ([] for an unknown document). Read without the entries' names
        (a 384-chunk document: 0.4 ms, not the 2 ms of decoding them), so an entry whose names
        do not decode is still listed: it is still a chunk of the document."""
        if not isinstance(doc_id, str):
            raise TypeError(f"doc_id must be a str, got {type(doc_id).__name__}")
        return self._storage.document_chunk_ids(doc_id)

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
        """Ids of the passages keyed by ``name`` (any form; compared in normal form), sorted."""
        normal = normal_name(name)
        return sorted(self._storage.holders([normal], "key").get(normal, ()))

    def specificity(self, name: str) -> float:
        """``spec(n)`` of :mod:`~cage_core.expansion.algorithm` for a name in normal form (0 if
        unseen)."""
        return algorithm.specificity(sum(self._storage.counts([name]).get(name, (0, 0))), len(self))

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
            :class:`Expansion` s ordered by weight, then seed rank, then id
            (:mod:`~cage_core.expansion.algorithm`).
        """
        return algorithm.expand(
            self._storage, self.weights, query, candidates, seeds=seeds, limit=limit
        )

    # -- persistence (cage_core.expansion.index_files) ---------------------------------------
    def to_lines(self) -> Iterator[str]:
        """The stored form, line by line (:mod:`~cage_core.expansion.jsonl`), each without its
        newline."""
        return stored_lines(self._storage)

    def save(self, path: str | os.PathLike[str]) -> int:
        """Write the stored form to ``path`` (atomically, mode 0600); returns the bytes written."""
        return write_lines(path, self.to_lines())

    def stored_bytes(self) -> int:
        """Size of the stored form in bytes (UTF-8), header included."""
        return sum(len(line.encode("utf-8")) + 1 for line in self.to_lines())

    def bytes_per_passage(self) -> float:
        """Mean stored bytes per indexed passage (0 for an empty index)."""
        n = len(self)
        return self.stored_bytes() / n if n else 0.0

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        weights: LinkWeights | None = None,
        create: bool = False,
        integrity_key: bytes | str | None = None,
        reopen: bool = False,
    ) -> LinkIndex:
        """The index stored at ``path``: a SQLite link store or a JSON Lines file, by the
        path's suffix (:data:`STORE_SUFFIXES`); the arguments and errors are those of
        :func:`~cage_core.expansion.index_files.open_storage`."""
        storage = open_storage(path, create=create, integrity_key=integrity_key, reopen=reopen)
        return cls(weights, storage=storage)

    @classmethod
    def load(cls, path: str | os.PathLike[str], *, weights: LinkWeights | None = None) -> LinkIndex:
        """Read an index written by :meth:`save`, validating it
        (:mod:`~cage_core.expansion.jsonl`); a SQLite store's path (:data:`STORE_SUFFIXES`) is
        opened as :meth:`open` does.

        Raises:
            LinkIndexFormatError: when the header is missing, malformed or of another version.
        """
        return cls(weights, storage=open_storage(path))

    @classmethod
    def from_lines(
        cls,
        lines: Iterable[bytes | str | None],
        *,
        weights: LinkWeights | None = None,
        source: str = "link index",
    ) -> LinkIndex:
        """An index from stored lines (the :meth:`to_lines` form), read as
        :func:`~cage_core.expansion.index_files.read_storage` reads them."""
        return cls(weights, storage=read_storage(lines, source))
