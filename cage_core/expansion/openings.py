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

The same opening gives every chunk of its call its document's title as subject
(:func:`titled_metadata`): a chunk whose metadata names no title is indexed with the title its
document's opening writes (:func:`~cage_core.names.documents.document_title`: a ``Title:``
field, front matter, HTML ``<title>``, a first heading), not with its file name. A call that
holds no opening of a document (a later part of it) leaves its chunks' subjects as they were.
And it gives each chunk of its call the name of its document, the name its record takes
(:func:`document_name_fields`, under ``cage_document``), which a via names the document by.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cage_core.expansion.documents import (
    TITLE_CHARS,
    DocumentRecord,
    document_record,
    folder_file_name,
)
from cage_core.expansion.record import LinkEntry
from cage_core.expansion.storage import LinkStorage
from cage_core.metadata import DOCUMENT_NAME_KEY, OFFSET_METADATA_KEY, chunk_offset, document_name
from cage_core.names.documents import document_title
from cage_core.names.subjects import TITLE_METADATA_KEYS as SUBJECT_TITLE_KEYS
from cage_core.passage import Passage

__all__ = [
    "MIN_STRIPPED_MARGIN",
    "SOURCE_METADATA_KEYS",
    "TITLE_METADATA_KEYS",
    "IngestChunk",
    "ingest_chunk",
    "document_openings",
    "document_name_fields",
    "opening_records",
    "put_chunks",
    "titled_metadata",
    "with_offsets",
]

MIN_STRIPPED_MARGIN = 5
"""The least blank space a splitter stripped between two chunks that :func:`document_openings`
reads as a blank line and a margin (a paragraph's first line set in by 3 after a blank line)."""
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
    offset: where its text starts in its document (metadata ``start_index``), or ``None``.
    """

    entry: LinkEntry
    text: str
    title: str = ""
    source: str = ""
    offset: int | None = None


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
        chunk_offset(metadata),
    )


def with_offsets(
    metadatas: Sequence[Mapping[str, Any]], offsets: Sequence[object]
) -> list[Mapping[str, Any]]:
    """``metadatas``, each with the framework's character ``offset`` of its chunk (LlamaIndex
    ``start_char_idx``) as ``start_index`` where it has none, for its document's opening to be
    read (:func:`document_openings`); the inputs are not modified."""
    return [
        {**m, OFFSET_METADATA_KEY: o} if o is not None and chunk_offset(m) is None else m
        for m, o in zip(metadatas, offsets, strict=True)
    ]


def _first_text(metadata: Mapping[str, Any], keys: Sequence[str]) -> str:
    for key in keys:
        value = metadata.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return ""


def _opening_starts(
    chunks: Sequence[tuple[str | None, int | None, str, int | None]],
) -> dict[str, tuple[int, str]]:
    """For each document of one call's ``(doc_id, position, text, offset)`` chunks, the index
    in ``chunks`` of the chunk its opening starts with and the opening
    (:func:`document_openings`)."""
    openings = document_openings(chunks)
    out: dict[str, tuple[int, str]] = {}
    for index, (doc_id, position, _, _) in enumerate(chunks):
        if doc_id is not None and doc_id not in out and position == openings[doc_id][0]:
            out[doc_id] = (index, openings[doc_id][1])
    return out


def document_openings(
    chunks: Iterable[tuple[str | None, int | None, str, int | None]],
) -> dict[str, tuple[int | None, str]]:
    """For each document of one call's ``(doc_id, position, text, offset)`` chunks: the
    position of its first chunk (the lowest; the first in call order where none has one) and
    its opening, that chunk's text followed by the next ones' (consecutive positions, or call
    order), joined by newlines up to :data:`~cage_core.expansion.documents.TITLE_CHARS`
    characters — a title that a short first chunk cuts off (front matter, an HTML head, an
    RFC's title under a long header) is still read.

    A splitter strips the blank space around each chunk, so a centred title that starts a
    later chunk loses its margin. Where the offsets say that ``n`` ≥ 5 blank characters were
    stripped between two chunks, and the opening joined by newlines writes no title
    (:func:`~cage_core.names.documents.document_title`), they are joined by a blank line and
    ``n − 2`` spaces instead, when that opening writes one."""
    held: dict[str, list[tuple[tuple[bool, int], int | None, str, int | None]]] = {}
    for order, (doc_id, position, text, offset) in enumerate(chunks):
        if doc_id is not None:
            place = (position is None, position if position is not None else order)
            held.setdefault(doc_id, []).append((place, position, text, offset))
    out: dict[str, tuple[int | None, str]] = {}
    for doc_id, parts in held.items():
        parts.sort(key=lambda part: part[0])
        opening, spaced = parts[0][2], parts[0][2]
        for (_, position, text, offset), (_, before, last, start) in zip(parts[1:], parts):
            if len(opening) >= TITLE_CHARS or (
                position is not None and (before is None or position != before + 1)
            ):
                break
            gap = offset - start - len(last) if offset is not None and start is not None else 0
            opening += "\n" + text
            spaced += ("\n\n" + " " * (gap - 2) if gap >= MIN_STRIPPED_MARGIN else "\n") + text
        opening, spaced = opening[:TITLE_CHARS], spaced[:TITLE_CHARS]
        if spaced != opening and not document_title(opening) and document_title(spaced):
            opening = spaced
        out[doc_id] = (parts[0][1], opening)
    return out


def titled_metadata(
    passages: Sequence[Passage], metadatas: Sequence[Mapping[str, Any]]
) -> list[Mapping[str, Any]]:
    """``metadatas``, each with its document's title under ``document_title`` where the
    passage has no title and its metadata none (:data:`cage_core.names.subjects.
    TITLE_METADATA_KEYS`), and the call holds the document's opening (:func:`document_openings`
    from position 0, or from its first chunk where none has a position; module docstring).
    The inputs are not modified."""
    openings = document_openings(
        (p.doc_id, p.position, p.text, chunk_offset(m)) for p, m in zip(passages, metadatas)
    )
    titles = {
        doc_id: document_title(text)
        for doc_id, (position, text) in openings.items()
        if position in (0, None)
    }
    out: list[Mapping[str, Any]] = []
    for passage, metadata in zip(passages, metadatas):
        title = titles.get(passage.doc_id or "", "")
        named = passage.title.strip() or _first_text(metadata, SUBJECT_TITLE_KEYS)
        out.append(metadata if named or not title else {**metadata, "document_title": title})
    return out


def document_name_fields(
    passages: Sequence[Passage], metadatas: Sequence[Mapping[str, Any]]
) -> list[dict[str, str]]:
    """The metadata each chunk gains: its document's name under
    :data:`~cage_core.metadata.DOCUMENT_NAME_KEY`, where the call holds the document's
    opening (:func:`document_openings`, from position 0 or where none has a position), a title
    names it (the metadata's, or one its opening writes) or its folder does (a generic file:
    :func:`~cage_core.expansion.documents.folder_file_name`, "tmux README") and the metadata
    names none; else nothing. The name is that of the record read from that opening
    (:func:`~cage_core.expansion.documents.document_record`: ``"RFC 9110: HTTP Semantics"``),
    what the link index writes. ``metadatas``: with the framework's offsets
    (:func:`with_offsets`)."""
    starts = _opening_starts(
        [(p.doc_id, p.position, p.text, chunk_offset(m)) for p, m in zip(passages, metadatas)]
    )
    names: dict[str, str] = {}
    for doc_id, (index, head) in starts.items():
        passage, metadata = passages[index], metadatas[index]
        if passage.position not in (0, None):
            continue  # a later part of the document: its opening is not in the call
        given = passage.title or _first_text(metadata, TITLE_METADATA_KEYS)
        title = " ".join(given.split()) or document_title(head)
        source = _first_text(metadata, SOURCE_METADATA_KEYS)
        if title or folder_file_name(source or doc_id):  # else its file names it ("Birch MA")
            names[doc_id] = document_record(
                doc_id, opening=passage.text, title=title, source=source, head=head
            ).name
    return [
        {DOCUMENT_NAME_KEY: names[p.doc_id]} if p.doc_id in names and not document_name(m) else {}
        for p, m in zip(passages, metadatas)
    ]


def opening_records(storage: LinkStorage, chunks: Iterable[IngestChunk]) -> list[DocumentRecord]:
    """The records to write for one call's ``chunks`` into ``storage`` (module docstring),
    read before their entries are stored, from each document's :func:`document_openings`;
    by ``doc_id``."""
    batch = [chunk for chunk in chunks if chunk.entry.doc_id is not None]
    starts = _opening_starts([(c.entry.doc_id, c.entry.position, c.text, c.offset) for c in batch])
    known = storage.documents().documents(starts)  # one read of the records already stored
    records = []
    for doc_id, (index, head) in sorted(starts.items()):
        chunk = batch[index]  # the chunk the opening starts with: its title and file
        if doc_id in known:
            if chunk.entry.position != 0:
                continue
            stored = storage.document_entries(doc_id, positions=[0])
            if any(entry.id != chunk.entry.id for entry in stored):
                continue  # a later part of a document split over calls
        records.append(
            document_record(
                doc_id,
                opening=chunk.text,
                title=chunk.title,
                source=chunk.source,
                head=head,
            )
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
