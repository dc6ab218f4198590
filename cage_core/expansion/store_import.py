"""Import a JSON Lines link index into the SQLite link store, streaming (``cage links``)."""

from __future__ import annotations

import logging
import os

from cage_core.expansion.jsonl import bounded_lines, header_count, parse_line
from cage_core.expansion.record import LinkEntry, LinkIndexFormatError
from cage_core.expansion.store import WRITE_BATCH_ENTRIES, SqliteLinkStorage

__all__ = ["import_jsonl"]

logger = logging.getLogger("cage_core.expansion.store")  # the store's log, as before the move


def import_jsonl(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> int:
    """Copy the JSON Lines link index at ``source`` into the SQLite store at ``target``
    (created if absent; an entry replaces the one with its id), streaming: the file is
    validated line by line as :meth:`LinkIndex.load <cage_core.expansion.index.LinkIndex.load>`
    does (a bad header raises; bad lines and repeated ids — the first one stays — are
    skipped, in one warning), never held whole. Returns the entries imported.

    Raises:
        LinkIndexFormatError: when the file's header is missing, malformed or of another
            version, or the target is not a link store.
    """
    storage = SqliteLinkStorage(target, create=True)
    seen: set[str] = set()
    skipped: dict[str, int] = {}
    pending: list[LinkEntry] = []
    imported = 0
    try:
        with open(source, "rb") as handle:
            lines = bounded_lines(handle)
            first = next(lines, b"")
            if first == b"":  # None: a first line past the length bound, which header_count names
                raise LinkIndexFormatError(f"{source}: empty; not a cage link index")
            header_count(first, str(source))
            for line in lines:
                try:
                    entry = LinkEntry.from_stored(parse_line(line))
                    if entry.id in seen:
                        raise LinkIndexFormatError("repeated id")
                except LinkIndexFormatError as exc:
                    skipped[str(exc)] = skipped.get(str(exc), 0) + 1
                    continue
                seen.add(entry.id)
                pending.append(entry)
                if len(pending) == WRITE_BATCH_ENTRIES:
                    storage.put(pending)
                    imported, pending = imported + len(pending), []
            storage.put(pending)
            imported += len(pending)
    finally:
        storage.close()
    if skipped:
        summary = "; ".join(f"{n} × {reason}" for reason, n in sorted(skipped.items()))
        logger.warning(
            "%s: skipped %d invalid entries (%s)", source, sum(skipped.values()), summary
        )
    logger.info("imported %d link entries from %s into %s", imported, source, target)
    return imported
