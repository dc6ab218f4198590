"""Reading stored JSON safely: one decoder for untrusted text, bounded lines, errors that
name the file and the line.

:func:`decode_json` is ``json.loads`` for text someone else may have written (a store's
row, a vector store's metadata, a line of a file): every way decoding can fail — not UTF-8,
not JSON, nested deeper than Python's recursion limit, a number of more digits than
Python's int-string limit (4,300 by default, ``sys.set_int_max_str_digits``) — raises one
:class:`StoredJsonError`, so a reader can treat the value as one invalid row.

:func:`json_lines` serves everything that reads records from JSON Lines (the evaluation
files, ``cage enrich``'s input, ``cage rerank --passages``), so that none of them depends on
another's module: a malformed line raises :class:`DatasetFormatError` as
``"<source>:<line>: ..."``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["MAX_LINE_CHARS", "DatasetFormatError", "StoredJsonError", "decode_json", "json_lines"]

MAX_LINE_CHARS = 50_000_000
"""Lines longer than this are rejected (bounds memory on hostile files)."""


class DatasetFormatError(ValueError):
    """A line of a JSON Lines data file is not a valid record; says which file and line."""


class StoredJsonError(ValueError):
    """Stored text is not decodable JSON (module docstring); the message says why."""


def decode_json(text: str | bytes) -> Any:
    """``json.loads(text)`` for untrusted text (bytes must be UTF-8).

    Raises:
        StoredJsonError: for every decoding failure (module docstring), never another error.
    """
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        return json.loads(text)
    except UnicodeError:
        raise StoredJsonError("not UTF-8") from None
    except json.JSONDecodeError as exc:
        raise StoredJsonError(f"not JSON ({exc})") from None
    except RecursionError:
        raise StoredJsonError("nested too deeply") from None
    except ValueError as exc:  # the int-string limit: "Exceeds the limit (4300 digits) ..."
        raise StoredJsonError(f"a number is too long ({exc})") from None


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
            value = decode_json(line)
        except StoredJsonError as exc:
            raise DatasetFormatError(f"{source}:{number}: not valid JSON ({exc})") from None
        yield number, value
