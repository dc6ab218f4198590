"""Import a JSON Lines link index into the SQLite link store, streaming (``cage links``)."""

from __future__ import annotations

import logging
import os

from cage_core.expansion.documents import DocumentRecord
from cage_core.expansion.jsonl import bounded_lines, read_items
from cage_core.expansion.record import LinkEntry
from cage_core.expansion.store import WRITE_BATCH_ENTRIES, SqliteLinkStorage

__all__ = ["import_jsonl"]

logger = logging.getLogger("cage_core.expansion.store")  # the store's log, as before the move


def import_jsonl(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> int:
    """Copy the JSON Lines link index at ``source`` into the SQLite store at ``target``
    (created if absent; an entry replaces the one with its id, a document record the one with
    its ``doc_id``), streaming: the file is validated line by line as :meth:`LinkIndex.load
    <cage_core.expansion.index.LinkIndex.load>` does (:func:`~cage_core.expansion.jsonl.read_items`:
    a bad header raises; bad lines and repeated ids — the first one stays — are skipped, in
    one warning), never held whole. Returns the entries imported.

    Raises:
        LinkIndexFormatError: when the file's header is missing, malformed or of another
            version, or the target is not a link store.
    """
    storage = SqliteLinkStorage(target, create=True)
    entries: list[LinkEntry] = []
    records: list[DocumentRecord] = []
    imported = 0
    try:
        with open(source, "rb") as handle:
            for item in read_items(bounded_lines(handle), str(source)):
                if isinstance(item, LinkEntry):
                    entries.append(item)
                else:
                    records.append(item)
                if len(entries) == WRITE_BATCH_ENTRIES:
                    storage.put(entries)
                    imported, entries = imported + len(entries), []
                if len(records) == WRITE_BATCH_ENTRIES:
                    storage.put_documents(records)
                    records = []
        storage.put(entries)
        storage.put_documents(records)
        imported += len(entries)
    finally:
        storage.close()
    logger.info("imported %d link entries from %s into %s", imported, source, target)
    return imported
