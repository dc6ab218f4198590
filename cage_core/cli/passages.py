"""The passages file of ``cage rerank`` and ``cage explain``, read whole but bounded.

A file (or standard input, ``-``) of more than :data:`MAX_PASSAGES_BYTES` bytes is refused
before it is decoded, so ``-p /dev/zero`` or an endless pipe ends in a one-line error, not in
a :class:`MemoryError`; so is one that holds no passage (empty, or blank).
"""

from __future__ import annotations

import sys
from typing import Any, BinaryIO

from cage_core.jsonl import DatasetFormatError, json_lines
from cage_core.metadata import passages_from_metadata
from cage_core.passage import Passage

__all__ = ["MAX_PASSAGES_BYTES", "read_passages", "read_text"]

MAX_PASSAGES_BYTES = 64 * 2**20
"""The largest passages file the commands read (64 MiB: some 30,000 passages of 2,000
characters, far more than one query's pool)."""


def read_text(path: str, limit: int = MAX_PASSAGES_BYTES) -> str:
    """The UTF-8 text of ``path`` (``"-"``: standard input), newlines read as ``\\n``.

    Raises:
        ValueError: when it has more than ``limit`` bytes (no more than ``limit + 1`` are
            read) or is not UTF-8.
    """
    handle: BinaryIO = sys.stdin.buffer if path == "-" else open(path, "rb")
    with handle:
        data = handle.read(limit + 1)
    where = "standard input" if path == "-" else path
    if len(data) > limit:
        raise ValueError(f"{where}: more than {limit:,} bytes (the most a passages file may hold)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{where}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")  # as a file opened as text reads


def read_passages(path: str) -> list[Passage]:
    """JSON Lines (a string or {"text", "title", "id"} per line, optionally with the chunk's
    document structure: "doc_id" / "source" and "position" / "start_index", read as
    :func:`cage_core.metadata.passages_from_metadata` reads metadata) or text (blank-line
    separated), of at most :data:`MAX_PASSAGES_BYTES` bytes.

    Raises:
        ValueError: for a file too large, not UTF-8, or with no passage.
        DatasetFormatError: for a JSON Lines line that is not a passage.
    """
    content = read_text(path)
    if path.endswith((".jsonl", ".json")):
        items: list[dict[str, Any]] = []
        for number, item in json_lines(content.splitlines(), path):
            if isinstance(item, str):
                items.append({"text": item})
            elif (
                isinstance(item, dict)
                and isinstance(item.get("text"), str)
                and isinstance(item.get("title", ""), str)
            ):
                items.append(item)
            else:
                raise DatasetFormatError(
                    f"{path}:{number}: expected a string or an object with a string 'text'"
                )
        ids = [None if item.get("id") is None else str(item["id"]) for item in items]
        passages = passages_from_metadata([item["text"] for item in items], items, "title", ids)
    else:
        passages = [Passage(text=block.strip()) for block in content.split("\n\n") if block.strip()]
    if not passages:
        raise ValueError(f"{'standard input' if path == '-' else path}: no passages (it is empty)")
    return passages
