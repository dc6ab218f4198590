"""Reading JSON Lines safely: bounded lines, and errors that name the file and the line.

Shared by everything that reads records from JSON Lines (the evaluation files, ``cage
enrich``'s input, ``cage rerank --passages``), so that none of them depends on another's
module: a malformed line raises :class:`DatasetFormatError` as ``"<source>:<line>: ..."``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["MAX_LINE_CHARS", "DatasetFormatError", "json_lines"]

MAX_LINE_CHARS = 50_000_000
"""Lines longer than this are rejected (bounds memory on hostile files)."""


class DatasetFormatError(ValueError):
    """A line of a JSON Lines data file is not a valid record; says which file and line."""


def json_lines(lines: Iterable[str], source: str) -> Iterator[tuple[int, Any]]:
    """``(line number, decoded value)`` of each non-blank line; errors name ``source:line``."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if len(line) > MAX_LINE_CHARS:
            raise DatasetFormatError(
                f"{source}:{number}: line longer than {MAX_LINE_CHARS} characters"
            )
        try:
            yield number, json.loads(line)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise DatasetFormatError(f"{source}:{number}: not valid JSON ({exc})") from None
