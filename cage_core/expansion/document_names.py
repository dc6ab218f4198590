"""The documents' side of routing: each document's record, and which documents hold a word.

:func:`~cage_core.expansion.routing.route_question` reads a question's words against a
:class:`DocumentNames`; the link stores keep one (:meth:`LinkIndex.documents
<cage_core.expansion.index.LinkIndex.documents>`), and :class:`MemoryDocumentNames` is the one
in dicts (the in-memory storage's, and the evaluation's).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable
from typing import Protocol

from cage_core.expansion.documents import DocumentRecord

__all__ = [
    "DocumentNames",
    "MemoryDocumentNames",
    "held_by_all",
    "words_held",
]


class DocumentNames(Protocol):
    """The documents' side of routing: their records and which hold a word."""

    def document_count(self) -> int:
        """``N``: the documents with a record."""
        ...

    def document_frequencies(self, words: Collection[str]) -> dict[str, int]:
        """How many documents hold each of ``words`` (words none holds: absent)."""
        ...

    def documents_with(self, words: Collection[str]) -> dict[str, Collection[str]]:
        """The ids of the documents holding each of ``words`` (words none holds: absent)."""
        ...

    def document(self, doc_id: str) -> DocumentRecord | None:
        """The record of ``doc_id``, or ``None``."""
        ...

    def documents(self, doc_ids: Collection[str]) -> dict[str, DocumentRecord]:
        """The records of ``doc_ids`` by id, in one read (ids without one: absent)."""
        ...


class MemoryDocumentNames:
    """:class:`DocumentNames` in dicts: records by id, and word → document ids."""

    def __init__(self, records: Iterable[DocumentRecord] = ()) -> None:
        self._records: dict[str, DocumentRecord] = {}
        self._holders: dict[str, set[str]] = {}
        self.put(records)

    def put(self, records: Iterable[DocumentRecord]) -> None:
        """Add records, each replacing the one with its ``doc_id``."""
        for record in records:
            self.remove([record.doc_id])
            self._records[record.doc_id] = record
            for word in record.words:
                self._holders.setdefault(word, set()).add(record.doc_id)

    def remove(self, doc_ids: Iterable[str]) -> int:
        """Drop the records of ``doc_ids``; how many were held."""
        removed = 0
        for doc_id in doc_ids:
            old = self._records.pop(doc_id, None)
            if old is None:
                continue
            removed += 1
            for word in old.words:
                holders = self._holders[word]
                holders.discard(doc_id)
                if not holders:
                    del self._holders[word]
        return removed

    def records(self) -> list[DocumentRecord]:
        """Every record, by ``doc_id``."""
        return [self._records[doc_id] for doc_id in sorted(self._records)]

    def document_count(self) -> int:
        return len(self._records)

    def document_frequencies(self, words: Collection[str]) -> dict[str, int]:
        return {word: len(self._holders[word]) for word in words if word in self._holders}

    def documents_with(self, words: Collection[str]) -> dict[str, Collection[str]]:
        return {word: self._holders[word] for word in words if word in self._holders}

    def document(self, doc_id: str) -> DocumentRecord | None:
        return self._records.get(doc_id)

    def documents(self, doc_ids: Collection[str]) -> dict[str, DocumentRecord]:
        return {d: self._records[d] for d in doc_ids if d in self._records}


def held_by_all(
    names: DocumentNames, words: Collection[str], read: dict[str, Collection[str]] | None = None
) -> set[str]:
    """The ids of the documents holding every one of ``words`` (none for no words); ``read``
    keeps each word's holders once read, for the next call of one question."""
    read = {} if read is None else read
    unread = [w for w in dict.fromkeys(words) if w not in read]
    if unread:
        read.update({w: () for w in unread} | names.documents_with(unread))
    holders = [read[w] for w in words]
    return set(holders[0]).intersection(*holders[1:]) if holders else set()


def words_held(names: DocumentNames, words: Collection[str]) -> Counter[str]:
    """How many of ``words`` each document holds, by ``doc_id`` (one lookup)."""
    return Counter(doc_id for held in names.documents_with(words).values() for doc_id in held)
