"""Writing a link index at ingest, from the graphs the ingest components build anyway.

:class:`cage_langchain.CageGraphTransformer` and :class:`cage_llamaindex.CageGraphExtractor`
parse every document into its graph; given a ``link_index`` target they also add each
document's :func:`~cage_core.link_index.entry_for` entry (its subject, from the title, the
metadata of :data:`~cage_core.passage_subject.SUBJECT_METADATA_KEYS` or the text, and the
entities of its graph) to a :class:`~cage_core.link_index.LinkIndex`: no extra parse.

The target is either

* a :class:`~cage_core.link_index.LinkIndex`, extended in memory (an entry replaces the one
  with the same id). It lives in one process: where the component is copied into worker
  processes (``IngestionPipeline(num_workers=...)``) each worker extends its own copy, so
  use a path there; or
* a path: the entries are merged into the index saved there (created if absent) under an
  exclusive lock of ``<path>.lock`` (``fcntl.flock``; unlocked where there is no
  ``fcntl``): read with :meth:`LinkIndex.load <cage_core.link_index.LinkIndex.load>`
  (validated; a file with a bad header raises and is left as it is), extended, saved
  atomically. Safe with several processes; each call reads and writes the whole file once,
  so hand the component large batches.

A document without a usable id (``None``, ``""``, longer than
:data:`~cage_core.link_index.MAX_ID_CHARS`, not writable as UTF-8) is not indexed: an expansion retriever fetches
linked passages from the vector store by id, so every document needs the id it is stored
under (LangChain: ``Document(id=...)``; LlamaIndex nodes always have one). One warning per
call gives their count.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cage_core.graph.passage_graph import PassageGraph
from cage_core.link_expansion import LinkIndexSource
from cage_core.link_index import FILE_MODE, MAX_ID_CHARS, LinkEntry, LinkIndex, entry_for
from cage_core.passage import Passage

__all__ = [
    "LOCK_SUFFIX",
    "extend_saved",
    "index_documents",
]

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

logger = logging.getLogger(__name__)

LOCK_SUFFIX = ".lock"


def index_documents(
    target: LinkIndexSource,
    items: Iterable[tuple[object, Passage, PassageGraph, Mapping[str, Any]]],
) -> int:
    """Add ``(id, passage, graph, metadata)`` items to ``target`` (module docstring).

    Returns:
        How many entries were added (items without a usable id are not).
    """
    if not isinstance(target, (LinkIndex, str, os.PathLike)):
        raise TypeError(f"link_index must be a LinkIndex or a path, got {type(target).__name__}")
    entries: list[LinkEntry] = []
    without_id = 0
    for passage_id, passage, graph, metadata in items:
        try:
            entries.append(entry_for(passage_id, passage, graph, metadata))
        except ValueError:  # entry_for's only ValueError: the id is not a usable passage id
            without_id += 1
    if without_id:
        logger.warning("%d documents have no usable id (a string of 1 to %d characters) and are "
                       "not in the link index; give them the ids the vector store keeps",
                       without_id, MAX_ID_CHARS)  # fmt: skip
    if isinstance(target, LinkIndex):
        for entry in entries:
            target.add_entry(entry)
    elif entries:
        extend_saved(Path(target), entries)
    return len(entries)


def extend_saved(path: Path, entries: Iterable[LinkEntry]) -> int:
    """Merge ``entries`` into the index saved at ``path`` (created if absent) under the lock
    of the module docstring; returns the passages the saved index then holds."""
    with _locked(path.with_name(path.name + LOCK_SUFFIX)):
        index = LinkIndex.load(path) if path.exists() else LinkIndex()
        for entry in entries:
            index.add_entry(entry)
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
