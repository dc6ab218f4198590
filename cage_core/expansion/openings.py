"""Which chunk a document's record is read from at ingest: its opening.

Ingest (:mod:`cage_core.expansion.ingest`, :meth:`LinkIndex.build
<cage_core.expansion.index.LinkIndex.build>`) sees chunks with their document (``doc_id``) and
place (``position``), as the link entries keep them. A document's record
(:func:`~cage_core.expansion.documents.document_record`) is read from its *first* chunk, with
the title and file path of its metadata (:class:`IngestChunk`). Of one call's chunks of a
document, the first is the one of the lowest position (chunks without one after those with
one, in call order); its record is written

* when the index holds no record of that document yet (a first ingest, whatever the
  positions: the first chunk seen where they are unknown), or
* when its position is 0 and no other chunk of the document is stored at position 0 (the
  document ingested again: its opening may have changed).

So a document split over several calls, whose later calls number their own chunks from 0
(positions ranked over a call: :mod:`cage_core.integrations.chunk_order`), keeps the record
of its true first chunk, and ingesting the same chunks twice writes the same record.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cage_core.expansion.documents import DocumentRecord, document_record
from cage_core.expansion.record import LinkEntry
from cage_core.expansion.storage import LinkStorage
from cage_core.passage import Passage

__all__ = [
    "SOURCE_METADATA_KEYS",
    "TITLE_METADATA_KEYS",
    "IngestChunk",
    "ingest_chunk",
    "opening_records",
    "put_chunks",
]

SOURCE_METADATA_KEYS: tuple[str, ...] = ("source", "file_path", "file_name")
"""Metadata keys of a chunk's file (LangChain loaders' ``source``; LlamaIndex
``SimpleDirectoryReader``'s ``file_path`` and ``file_name``), the first non-empty one."""
TITLE_METADATA_KEYS: tuple[str, ...] = ("document_title",)
"""Metadata keys of a document's title read when the chunk has none (LlamaIndex's
``TitleExtractor`` writes ``document_title``)."""


@dataclass(frozen=True)
class IngestChunk:
    """A chunk as ingest indexes it: its link entry, and what its document's record is read
    from when it is the document's first chunk (module docstring).

    entry: the chunk's entry (its ``doc_id`` and ``position`` say which document, where).
    text: the chunk's text (its document's opening when it is the first chunk).
    title: its title (metadata), or "".
    source: its file path or name (metadata :data:`SOURCE_METADATA_KEYS`), or "".
    """

    entry: LinkEntry
    text: str
    title: str = ""
    source: str = ""


def ingest_chunk(
    entry: LinkEntry, passage: Passage, metadata: Mapping[str, Any] | None = None
) -> IngestChunk:
    """The :class:`IngestChunk` of a passage indexed as ``entry``: its text, its title (the
    passage's, else the metadata's :data:`TITLE_METADATA_KEYS`) and its file
    (:data:`SOURCE_METADATA_KEYS`)."""
    metadata = metadata or {}
    return IngestChunk(
        entry,
        passage.text,
        passage.title or _first_text(metadata, TITLE_METADATA_KEYS),
        _first_text(metadata, SOURCE_METADATA_KEYS),
    )


def _first_text(metadata: Mapping[str, Any], keys: Sequence[str]) -> str:
    for key in keys:
        value = metadata.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return ""


def opening_records(storage: LinkStorage, chunks: Iterable[IngestChunk]) -> list[DocumentRecord]:
    """The records to write for one call's ``chunks`` into ``storage`` (module docstring),
    read before their entries are stored; by ``doc_id``."""
    first: dict[str, tuple[tuple[bool, int], IngestChunk]] = {}
    for order, chunk in enumerate(chunks):
        doc_id, position = chunk.entry.doc_id, chunk.entry.position
        if doc_id is None:
            continue
        place = (position is None, position if position is not None else order)
        if doc_id not in first or place < first[doc_id][0]:
            first[doc_id] = (place, chunk)
    names = storage.documents()
    records = []
    for doc_id, (_, chunk) in sorted(first.items()):
        if names.document(doc_id) is not None:
            if chunk.entry.position != 0:
                continue
            stored = storage.document_entries(doc_id, positions=[0])
            if any(entry.id != chunk.entry.id for entry in stored):
                continue  # a later part of a document split over calls
        records.append(
            document_record(doc_id, opening=chunk.text, title=chunk.title, source=chunk.source)
        )
    return records


def put_chunks(storage: LinkStorage, items: Iterable[IngestChunk | LinkEntry]) -> int:
    """Store the entries of ``items`` and the records their chunks give (module docstring;
    a bare :class:`LinkEntry` gives none); returns how many entries.

    Raises:
        TypeError: when an item is neither.
        ValueError: when an entry is one a reader would reject (checked before anything is
            stored; the records, built by ``document_record``, always pass).
    """
    batch = list(items)
    for item in batch:
        if not isinstance(item, IngestChunk | LinkEntry):
            raise TypeError(f"expected IngestChunk or LinkEntry, got {type(item).__name__}")
    records = opening_records(storage, [i for i in batch if isinstance(i, IngestChunk)])
    storage.put([i.entry if isinstance(i, IngestChunk) else i for i in batch])
    storage.put_documents(records)
    return len(batch)
