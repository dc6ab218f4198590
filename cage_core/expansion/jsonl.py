"""The stored form of a link index: JSON Lines, written atomically, read as untrusted.

The export and import form of a store (:meth:`LinkIndex.save
<cage_core.expansion.index.LinkIndex.save>`): UTF-8, no pickle. The first line is the header
``{"format": "cage-link-index", "version": 1, "passages": N}`` (with ``"documents": M`` when
the index holds document records); each further line is one entry ``{"id": ..., "subject":
..., "keys": [...], "mentions": [...]}``, with ``"doc_id"`` and ``"position"`` when set, and
after the entries one line per document record (:mod:`~cage_core.expansion.documents`)
``{"document": {"doc_id": ..., "name": ..., "words": [...]}}``, by ``doc_id``. A file
written before records existed has none: it loads, and routing finds no documents.

:func:`read_items` treats the lines as untrusted: a bad header raises
:class:`~cage_core.expansion.record.LinkIndexFormatError`; an entry line that is not JSON,
too long, of the wrong types, over the count limits, with names not in normal form or with
an id seen before is skipped, and all skips are reported in one warning; so is a record
line (:meth:`DocumentRecord.from_stored
<cage_core.expansion.documents.DocumentRecord.from_stored>`, or a ``doc_id`` seen before),
in another.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from cage_core.expansion.documents import DocumentRecord
from cage_core.expansion.record import LinkEntry, LinkIndexFormatError
from cage_core.stores.files import FILE_MODE

__all__ = [
    "FILE_MODE",
    "FORMAT_TAG",
    "MAX_LINE_CHARS",
    "bounded_lines",
    "document_line",
    "entry_line",
    "header_line",
    "parse_line",
    "read_items",
    "write_lines",
]

logger = logging.getLogger("cage_core.expansion.index")  # the index's log, from any module

FORMAT_TAG = "cage-link-index"
LINK_INDEX_VERSION = 1
"""Bump when the stored layout or the meaning of keys/mentions changes."""
MAX_LINE_CHARS = 256_000
"""Stored lines longer than this are rejected before they are parsed."""


def header_line(count: int, documents: int = 0) -> str:
    """The header line of an index of ``count`` entries and ``documents`` document records
    (without its newline)."""
    header = {"format": FORMAT_TAG, "version": LINK_INDEX_VERSION, "passages": count}
    if documents:
        header["documents"] = documents
    return json.dumps(header)


def entry_line(entry: LinkEntry) -> str:
    """The stored line of one entry (without its newline)."""
    return json.dumps(entry.to_dict(), ensure_ascii=False, separators=(",", ":"))


def document_line(record: DocumentRecord) -> str:
    """The stored line of one document record (without its newline)."""
    return json.dumps({"document": record.to_stored()}, ensure_ascii=False, separators=(",", ":"))


def write_lines(path: str | os.PathLike[str], lines: Iterable[str]) -> int:
    """Write ``lines`` to ``path``, one per line (atomically, mode 0600); the bytes written."""
    target = Path(path)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, FILE_MODE)
    written = 0
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            for line in lines:
                written += handle.write(line + "\n")
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return written


def read_items(
    lines: Iterable[bytes | str | None], source: str
) -> Iterator[LinkEntry | DocumentRecord]:
    """The valid entries and document records of stored lines, in order (module docstring);
    a ``None`` line counts as one cut off by the reader (:func:`bounded_lines`). When the
    lines are exhausted, the skipped entries are reported in one warning, the skipped
    records in another, and a header count that does not match the lines read in a third.

    Raises:
        LinkIndexFormatError: when the header is missing, malformed or of another version.
    """
    iterator = iter(lines)
    first = next(iterator, b"")
    if first in (b"", ""):  # None: a header past the length bound, which header_count names
        raise LinkIndexFormatError(f"{source}: empty; not a cage link index")
    header = header_count(first, source)
    seen: set[str] = set()
    documents: set[str] = set()
    skipped: dict[str, int] = {}
    skipped_records: dict[str, int] = {}
    for line in iterator:
        data: Any = None
        try:
            data = parse_line(line)
            if isinstance(data, dict) and "document" in data:
                record = record_of_line(data, documents)
                documents.add(record.doc_id)
                yield record
                continue
            entry = LinkEntry.from_stored(data)
            if entry.id in seen:
                raise LinkIndexFormatError("repeated id")
        except LinkIndexFormatError as exc:
            tally = skipped_records if isinstance(data, dict) and "document" in data else skipped
            tally[str(exc)] = tally.get(str(exc), 0) + 1
            continue
        seen.add(entry.id)
        yield entry
    for tally, what in ((skipped, "entries"), (skipped_records, "document records")):
        if tally:
            summary = "; ".join(f"{count} × {reason}" for reason, count in sorted(tally.items()))
            logger.warning(
                "%s: skipped %d invalid %s (%s)", source, sum(tally.values()), what, summary
            )
    if header != len(seen) + sum(skipped.values()):
        logger.warning(
            "%s: the header announces %d entries but %d lines follow (truncated or appended to?)",
            source,
            header,
            len(seen) + sum(skipped.values()),
        )


def record_of_line(data: dict[str, Any], seen: set[str]) -> DocumentRecord:
    """The document record of a parsed record line ``{"document": {...}}``.

    Raises:
        LinkIndexFormatError: when it is not a valid record, or its ``doc_id`` is in ``seen``.
    """
    value = data["document"]
    if len(data) != 1 or not isinstance(value, dict):
        raise LinkIndexFormatError('invalid document record: not {"document": {...}}')
    record = DocumentRecord.from_stored(value)
    if record.doc_id in seen:
        raise LinkIndexFormatError("repeated document id")
    return record


def parse_line(line: bytes | str | None) -> Any:
    """The JSON value of one stored line.

    Raises:
        LinkIndexFormatError: when the line is ``None`` or over ``MAX_LINE_CHARS``, not
            UTF-8 or not JSON.
    """
    if line is None or len(line) > MAX_LINE_CHARS:
        raise LinkIndexFormatError(f"line longer than {MAX_LINE_CHARS} characters")
    try:
        text = line.decode("utf-8") if isinstance(line, bytes) else line
        return json.loads(text)
    except UnicodeDecodeError:
        raise LinkIndexFormatError("line is not UTF-8") from None
    except (ValueError, RecursionError):  # also a number past Python's int-string limit
        raise LinkIndexFormatError("line is not JSON") from None


def header_count(line: bytes | str | None, source: str) -> int:
    """The announced entry count of a valid header line.

    Raises:
        LinkIndexFormatError: when the line is no header of this format and version.
    """
    try:
        data = parse_line(line)
    except LinkIndexFormatError as exc:
        raise LinkIndexFormatError(f"{source}: not a cage link index ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT_TAG:
        raise LinkIndexFormatError(f"{source}: not a cage link index (missing format tag)")
    if data.get("version") != LINK_INDEX_VERSION:
        raise LinkIndexFormatError(
            f"{source}: link index version {data.get('version')!r} is not "
            f"{LINK_INDEX_VERSION}; rebuild it with this cage-rag"
        )
    count = data.get("passages")
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise LinkIndexFormatError(f"{source}: the header's passage count must be an int >= 0")
    return count


def bounded_lines(handle: Any) -> Iterator[bytes | None]:
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
