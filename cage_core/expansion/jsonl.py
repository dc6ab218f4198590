"""The stored form of a link index: JSON Lines, written atomically, read as untrusted.

The export and import form of a store (:meth:`LinkIndex.save
<cage_core.expansion.index.LinkIndex.save>`): UTF-8, no pickle. The first line is the header
``{"format": "cage-link-index", "version": 1, "passages": N}``; each further line is one
entry ``{"id": ..., "subject": ..., "keys": [...], "mentions": [...]}``, with ``"doc_id"`` and
``"position"`` when set.

:func:`read_entries` treats the lines as untrusted: a bad header raises
:class:`~cage_core.expansion.record.LinkIndexFormatError`; an entry line that is not JSON,
too long, of the wrong types, over the count limits, with names not in normal form or with
an id seen before is skipped, and all skips are reported in one warning.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from cage_core.expansion.record import LinkEntry, LinkIndexFormatError

__all__ = [
    "FILE_MODE",
    "FORMAT_TAG",
    "LINK_INDEX_VERSION",
    "MAX_LINE_CHARS",
    "bounded_lines",
    "entry_line",
    "header_count",
    "header_line",
    "parse_line",
    "read_entries",
    "write_lines",
]

logger = logging.getLogger("cage_core.expansion.index")
"""The index's logger: what loading reports is the index's (users filter by that name)."""

FORMAT_TAG = "cage-link-index"
LINK_INDEX_VERSION = 1
"""Bump when the stored layout or the meaning of keys/mentions changes."""
MAX_LINE_CHARS = 256_000
"""Stored lines longer than this are rejected before they are parsed."""
FILE_MODE = 0o600


def header_line(count: int) -> str:
    """The header line of an index of ``count`` entries (without its newline)."""
    return json.dumps({"format": FORMAT_TAG, "version": LINK_INDEX_VERSION, "passages": count})


def entry_line(entry: LinkEntry) -> str:
    """The stored line of one entry (without its newline)."""
    return json.dumps(entry.to_dict(), ensure_ascii=False, separators=(",", ":"))


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


def read_entries(lines: Iterable[bytes | str | None], source: str) -> Iterator[LinkEntry]:
    """The valid entries of stored lines, in order (module docstring); a ``None`` line counts
    as one cut off by the reader (:func:`bounded_lines`). When the lines are exhausted, the
    skipped ones are reported in one warning, and a header count that does not match the
    lines read in another.

    Raises:
        LinkIndexFormatError: when the header is missing, malformed or of another version.
    """
    iterator = iter(lines)
    first = next(iterator, b"")
    if first in (b"", ""):  # None: a header past the length bound, which header_count names
        raise LinkIndexFormatError(f"{source}: empty; not a cage link index")
    header = header_count(first, source)
    seen: set[str] = set()
    skipped: dict[str, int] = {}
    for line in iterator:
        try:
            data = parse_line(line)
            entry = LinkEntry.from_stored(data)
            if entry.id in seen:
                raise LinkIndexFormatError("repeated id")
        except LinkIndexFormatError as exc:
            reason = str(exc)
            skipped[reason] = skipped.get(reason, 0) + 1
            continue
        seen.add(entry.id)
        yield entry
    if skipped:
        summary = "; ".join(f"{count} × {reason}" for reason, count in sorted(skipped.items()))
        logger.warning(
            "%s: skipped %d invalid entries (%s)", source, sum(skipped.values()), summary
        )
    if header != len(seen) + sum(skipped.values()):
        logger.warning(
            "%s: the header announces %d entries but %d lines follow (truncated or appended to?)",
            source,
            header,
            len(seen) + sum(skipped.values()),
        )


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
