"""Where a link index keeps its entries: the :class:`LinkStorage` protocol, and its in-memory
twin :class:`MemoryLinkStorage`.

Beside the entries, a storage keeps one
:class:`~cage_core.expansion.documents.DocumentRecord` per document (its name and the words
that may name it: what :mod:`~cage_core.expansion.routing` reads), put by ingest
(:meth:`LinkStorage.put_documents`); a record goes when the last entry of its document does.

:meth:`LinkIndex.expand <cage_core.expansion.index.LinkIndex.expand>` is one algorithm over
every storage: it reads entries and postings only through the few methods of
:class:`LinkStorage`. :class:`MemoryLinkStorage` holds them in dicts (what
:meth:`LinkIndex.load <cage_core.expansion.index.LinkIndex.load>` fills);
:class:`cage_core.expansion.store.SqliteLinkStorage` in a SQLite file, read per query.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Literal, Protocol

from cage_core.expansion.document_names import DocumentNames, MemoryDocumentNames
from cage_core.expansion.documents import DocumentRecord
from cage_core.expansion.record import LinkEntry, LinkIndexFormatError

__all__ = [
    "LinkStorage",
    "MemoryLinkStorage",
    "NameRole",
    "check_document_storable",
    "check_storable",
    "chunk_order",
]

NameRole = Literal["key", "mention"]
"""How an entry holds a name: as a key (it is about it) or as a mention (it names it)."""


class LinkStorage(Protocol):
    """Where a :class:`~cage_core.expansion.index.LinkIndex` keeps its entries and postings:
    the little it reads them through (module docstring).

    Names are in :func:`~cage_core.names.forms.normal_name` form; ``role`` is ``"key"`` or
    ``"mention"``.
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
        """Add entries, each replacing the one with its id (in order: a repeated id, the last).

        Raises:
            ValueError: when an entry is one a reader would reject (an empty, too long or
                not UTF-8 id, names not in ``normal_name`` form, ...: :func:`check_storable`);
                checked for all before anything is stored.
        """
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

    def document_chunk_ids(self, doc_id: str) -> list[str]:
        """The ids of the document's entries in :meth:`document_entries`' order, read without
        their names (an entry whose names do not decode is still a chunk of its document)."""
        ...

    def reading(self) -> AbstractContextManager[object]:
        """A block whose reads all see one state of the storage (one expansion's reads)."""
        ...

    def documents(self) -> DocumentNames:
        """The documents' records, as routing reads them (none held: ``document_count() == 0``)."""
        ...

    def put_documents(self, records: Sequence[DocumentRecord]) -> None:
        """Add document records, each replacing the one with its ``doc_id`` (a repeated one:
        the last); a record may precede its document's entries.

        Raises:
            TypeError, ValueError: when a record is not one a reader would accept
                (:func:`check_document_storable`); checked for all before anything is stored.
        """
        ...

    def document_records(self) -> Iterator[DocumentRecord]:
        """Every valid document record, by ``doc_id`` (the export's)."""
        ...


class MemoryLinkStorage:
    """:class:`LinkStorage` in dicts: entries by id, and name → ids postings per role."""

    def __init__(self) -> None:
        self._entries: dict[str, LinkEntry] = {}
        self._postings: dict[NameRole, dict[str, set[str]]] = {"key": {}, "mention": {}}
        self._documents: dict[str, set[str]] = {}
        self._names = MemoryDocumentNames()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, ids: Sequence[str]) -> dict[str, LinkEntry]:
        return {pid: self._entries[pid] for pid in ids if pid in self._entries}

    def counts(self, names: Collection[str]) -> dict[str, tuple[int, int]]:
        keyed, mentioned = self._postings["key"], self._postings["mention"]
        return {
            n: (len(keyed.get(n, ())), len(mentioned.get(n, ())))
            for n in names
            if n in keyed or n in mentioned
        }

    def holders(self, names: Collection[str], role: NameRole) -> dict[str, Collection[str]]:
        postings = self._postings[role]
        return {n: postings[n] for n in names if n in postings}

    def put(self, entries: Sequence[LinkEntry]) -> None:
        for entry in entries:
            check_storable(entry)
        self.put_validated(entries)

    def put_validated(self, entries: Iterable[LinkEntry]) -> None:
        """Upsert entries already read through :meth:`LinkEntry.from_stored
        <cage_core.expansion.record.LinkEntry.from_stored>` (what
        :func:`~cage_core.expansion.jsonl.read_items` yields), without checking them again.
        A document left without entries loses its record."""
        emptied: set[str] = set()
        for entry in entries:
            emptied.update(self._take_back(entry.id)[1])
            self._entries[entry.id] = entry
            for role, names in (("key", entry.keys), ("mention", entry.mentions)):
                postings = self._postings[role]  # type: ignore[index]
                for name in names:
                    postings.setdefault(name, set()).add(entry.id)
            if entry.doc_id is not None:
                self._documents.setdefault(entry.doc_id, set()).add(entry.id)
        self._names.remove(d for d in emptied if d not in self._documents)

    def delete(self, ids: Sequence[str]) -> int:
        """Remove the entries of ``ids`` (and the records of the documents left without
        entries); how many were held."""
        removed = 0
        emptied: set[str] = set()
        for pid in ids:
            held, documents = self._take_back(pid)
            removed += held
            emptied.update(documents)
        self._names.remove(d for d in emptied if d not in self._documents)
        return removed

    def _take_back(self, pid: str) -> tuple[bool, tuple[str, ...]]:
        """Remove the entry of ``pid`` with its postings: whether one was held, and its
        document when that has no entry left."""
        entry = self._entries.pop(pid, None)
        if entry is None:
            return False, ()
        for role, names in (("key", entry.keys), ("mention", entry.mentions)):
            postings = self._postings[role]  # type: ignore[index]
            for name in names:
                _discard(postings, name, pid)
        if entry.doc_id is None:
            return True, ()
        _discard(self._documents, entry.doc_id, pid)
        return True, (() if entry.doc_id in self._documents else (entry.doc_id,))

    def iter_entries(self) -> Iterator[LinkEntry]:
        return iter(list(self._entries.values()))

    def document_entries(
        self, doc_id: str, positions: Collection[int] | None = None
    ) -> list[LinkEntry]:
        held = (self._entries[pid] for pid in self._documents.get(doc_id, ()))
        if positions is not None:
            held = (e for e in held if e.position is not None and e.position in positions)
        return sorted(held, key=chunk_order)

    def document_chunk_ids(self, doc_id: str) -> list[str]:
        return [entry.id for entry in self.document_entries(doc_id)]

    def reading(self) -> AbstractContextManager[object]:
        return nullcontext()

    def documents(self) -> MemoryDocumentNames:
        return self._names

    def put_documents(self, records: Sequence[DocumentRecord]) -> None:
        for record in records:
            check_document_storable(record)
        self._names.put(records)

    def document_records(self) -> Iterator[DocumentRecord]:
        return iter(self._names.records())


def _discard(postings: dict[str, set[str]], name: str, pid: str) -> None:
    holders = postings[name]
    holders.discard(pid)
    if not holders:
        del postings[name]


def chunk_order(entry: LinkEntry) -> tuple[bool, int, str]:
    """The order of a document's chunks (:meth:`LinkStorage.document_entries`): by position,
    then id; no position last."""
    return (entry.position is None, entry.position or 0, entry.id)


def check_document_storable(record: DocumentRecord) -> None:
    """Refuse a record a reader would reject (:meth:`DocumentRecord.from_stored`'s rules)."""
    if not isinstance(record, DocumentRecord):
        raise TypeError(f"record must be a DocumentRecord, got {type(record).__name__}")
    try:
        DocumentRecord.from_stored(record.to_stored())
    except LinkIndexFormatError as exc:
        raise ValueError(
            f"document record {record.doc_id!r:.60} would not be readable back: {exc}; "
            "nothing was written"
        ) from None


def check_storable(entry: LinkEntry) -> None:
    """Refuse an entry a reader would reject (:meth:`LinkEntry.from_stored`'s rules)."""
    try:
        LinkEntry.from_stored(entry.to_dict())
    except LinkIndexFormatError as exc:
        raise ValueError(
            f"link entry {entry.id!r:.60} would not be readable back: {exc}; nothing was written"
        ) from None
