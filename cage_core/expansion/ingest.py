"""Writing a link index at ingest, from the graphs the ingest components build anyway.

:class:`cage_langchain.CageGraphTransformer` and :class:`cage_llamaindex.CageGraphExtractor`
parse every document into its graph; given a ``link_index`` target they also add each
document's :func:`~cage_core.expansion.index.entry_for` entry (its subject, from the title, the
metadata of :data:`~cage_core.names.subjects.SUBJECT_METADATA_KEYS` or the text, and the
entities of its graph) to a :class:`~cage_core.expansion.index.LinkIndex`: no extra parse.

The target is either

* a :class:`~cage_core.expansion.index.LinkIndex`, extended in memory (an entry replaces the one
  with the same id). It lives in one process: where the component is copied into worker
  processes (``IngestionPipeline(num_workers=...)``) each worker extends its own copy, so
  use a path there; or
* the path of a SQLite link store (a name ending in
  :data:`~cage_core.expansion.index.STORE_SUFFIXES`, e.g. ``graphs.links.sqlite``; created if
  absent): the entries are upserted by id in short transactions
  (:mod:`cage_core.expansion.store`), in time proportional to the batch, safe with several
  processes and with a killed one. What to use at scale, and with worker processes; or
* the path of a JSON Lines index: the entries are merged into the index saved there
  (created if absent) under an exclusive lock of ``<path>.lock`` (``fcntl.flock``;
  unlocked where there is no ``fcntl``): read with :meth:`LinkIndex.load
  <cage_core.expansion.index.LinkIndex.load>` (validated; a file with a bad header raises and
  is left as it is), extended, saved atomically. Safe with several processes, but each
  call reads and writes the whole file once: for small corpora only.

``cage enrich`` (:mod:`cage_core.integrations.enrich`) writes the entries of each batch of enriched
rows (a ``cage_graph`` column) with :func:`write_link_partition`, or :func:`link_chunks` into its
own index.

Beside the entries, every target gets the record of each document (chunks sharing a
``doc_id``, the one the entries get) read from its first chunk, with the chunk's title and
file (metadata ``title``; ``source``, ``file_path`` or ``file_name``): which chunk is first,
and when a record is replaced, is :mod:`cage_core.expansion.openings`'.

A document without a usable id (``None``, ``""``, longer than
:data:`~cage_core.expansion.index.MAX_ID_CHARS`, not writable as UTF-8) is not indexed: an expansion
retriever fetches linked passages from the vector store by id, so every document needs the id it is
stored under (LangChain: ``Document(id=...)``; LlamaIndex nodes always have one). One warning per
call gives their count.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cage_core.expansion.contract import LinkIndexSource
from cage_core.expansion.index import (
    FILE_MODE,
    MAX_ID_CHARS,
    LinkEntry,
    LinkIndex,
    entry_for,
    is_store_path,
)
from cage_core.expansion.openings import IngestChunk, ingest_chunk, put_chunks, titled_metadata
from cage_core.graphs.passage_graph import PassageGraph
from cage_core.metadata import GRAPH_KEY, passages_from_metadata
from cage_core.passage import Passage

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "extend_saved",
    "index_documents",
    "link_chunks",
    "link_entries",
    "row_id",
    "write_link_partition",
]

logger = logging.getLogger(__name__)

LOCK_SUFFIX = ".lock"


def index_documents(
    target: LinkIndexSource,
    items: Iterable[tuple[object, Passage, PassageGraph, Mapping[str, Any]]],
) -> int:
    """Add ``(id, passage, graph, metadata)`` items to ``target``, with the records of their
    documents (module docstring).

    Returns:
        How many entries were added (items without a usable id are not).
    """
    if not isinstance(target, (LinkIndex, str, os.PathLike)):
        raise TypeError(f"link_index must be a LinkIndex or a path, got {type(target).__name__}")
    chunks: list[IngestChunk] = []
    without_id = 0
    batch = list(items)
    titled = titled_metadata([p for _, p, _, _ in batch], [m for _, _, _, m in batch])
    for (passage_id, passage, graph, _), metadata in zip(batch, titled):
        try:
            entry = entry_for(passage_id, passage, graph, metadata)  # type: ignore[arg-type]
        except ValueError:  # entry_for's only ValueError: the id is not a usable passage id
            without_id += 1
            continue
        chunks.append(ingest_chunk(entry, passage, metadata))
    if without_id:
        logger.warning(
            "%d documents have no usable id (a string of 1 to %d characters) and are "
            "not in the link index; give them the ids the vector store keeps",
            without_id,
            MAX_ID_CHARS,
        )
    if isinstance(target, LinkIndex):
        put_chunks(target.storage, chunks)
    elif chunks:
        extend_saved(Path(target), chunks)
    return len(chunks)


def extend_saved(path: Path, entries: Iterable[LinkEntry | IngestChunk]) -> int:
    """Add ``entries`` (and the records of the documents of the :class:`IngestChunk` s among
    them) to the index stored at ``path`` (created if absent) as the module docstring says (a
    SQLite store: upserts; JSON Lines: a merge under the lock); returns the passages the
    stored index then holds."""
    if is_store_path(path):
        with LinkIndex.open(path, create=True) as store:
            put_chunks(store.storage, entries)
            return len(store)
    with _locked(path.with_name(path.name + LOCK_SUFFIX)):
        index = LinkIndex.load(path) if path.exists() else LinkIndex()
        put_chunks(index.storage, entries)
        index.save(path)
    return len(index)


@contextmanager
def _locked(lock_path: Path) -> Iterator[None]:
    fd = os.open(lock_path, os.O_CREAT | os.O_RDWR, FILE_MODE)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


ROW_ID_COLUMN = "id"


def _title(row: dict[str, Any]) -> str:
    title = row.get("title")
    return title if isinstance(title, str) else ""  # a missing Parquet/pandas cell is None or NaN


def row_id(row: dict[str, Any], position: int) -> str:
    """The passage id of an enriched row: its ``id`` column when that is a non-empty string,
    else its 0-based input ``position`` as a string."""
    value = row.get(ROW_ID_COLUMN)
    return value if isinstance(value, str) and value else str(position)


def link_entries(rows: Sequence[dict[str, Any]], start: int = 0) -> list[LinkEntry]:
    """The link entries of enriched rows (:func:`link_chunks`' entries)."""
    return [chunk.entry for chunk in link_chunks(rows, start)]


def link_chunks(rows: Sequence[dict[str, Any]], start: int = 0) -> list[IngestChunk]:
    """The chunks of enriched rows (``text``, optional ``title``, ``cage_graph``; the other
    columns are the metadata a subject and a file are read from), the first at input
    position ``start`` (:func:`row_id`): their link entries, and what their documents'
    records are read from."""
    metadatas = [{k: v for k, v in row.items() if k not in ("text", GRAPH_KEY)} for row in rows]
    structured = passages_from_metadata([row["text"] for row in rows], metadatas, "title")
    passages = [
        Passage(row["text"], title=_title(row), doc_id=found.doc_id, position=found.position)
        for row, found in zip(rows, structured)
    ]
    chunks = []
    titled = titled_metadata(passages, metadatas)
    for position, (row, passage, metadata) in enumerate(zip(rows, passages, titled), start):
        graph = PassageGraph.from_stored(row[GRAPH_KEY])
        entry = entry_for(row_id(row, position), passage, graph, metadata)
        chunks.append(ingest_chunk(entry, passage, metadata))
    return chunks


def write_link_partition(
    store: str | os.PathLike[str], rows: Sequence[dict[str, Any]], start: int = 0
) -> int:
    """Upsert the link entries of one partition of enriched rows (input positions from
    ``start``), and their documents' records, into the SQLite link store at ``store``
    (created if absent); returns how many entries. Idempotent: writing a partition again (a
    retried or resumed run) changes nothing."""
    chunks = link_chunks(rows, start)
    with LinkIndex.open(store, create=True) as index:
        return put_chunks(index.storage, chunks)
