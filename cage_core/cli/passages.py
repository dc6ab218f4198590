"""The passages file of ``cage rerank`` and ``cage explain``, read whole but bounded.

A file (or standard input, ``-``) of more than :data:`MAX_PASSAGES_BYTES` bytes is refused
before it is decoded, so ``-p /dev/zero`` or an endless pipe ends in a one-line error, not in
a :class:`MemoryError`; so is one that holds no passage (empty, or blank).

One passage longer than ``max_chars`` (the commands pass the configuration's
``max_parse_chars``, 20,000 characters by default: the most the reranker parses of a passage)
is cut to it as it is read, with one warning, before a passage of it is made: a text block is
sliced from the file's text, never copied whole. The reranker reads such a passage's head
anyway (parsing and the embedder stop there); what it would read past it, scanning the whole
text for names and words, cost a 59 MiB passage 80 s and 2 GiB (issue 46).
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Iterator
from typing import Any, BinaryIO

from cage_core.jsonl import DatasetFormatError, json_lines
from cage_core.metadata import passages_from_metadata
from cage_core.passage import Passage

__all__ = ["MAX_PASSAGES_BYTES", "read_passages", "read_text"]

logger = logging.getLogger(__name__)

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


def read_passages(path: str, max_chars: int | None = None) -> list[Passage]:
    """JSON Lines (a string or {"text", "title", "id"} per line, optionally with the chunk's
    document structure: "doc_id" / "source" and "position" / "start_index", read as
    :func:`cage_core.metadata.passages_from_metadata` reads metadata) or text (blank-line
    separated), of at most :data:`MAX_PASSAGES_BYTES` bytes; each passage's text cut to its
    first ``max_chars`` characters (module docstring; ``None``: whole).

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
        texts = [_cut(item["text"], max_chars) for item in items]
        passages = passages_from_metadata(texts, items, "title", ids)
        cut = sum(len(t) < len(item["text"]) for t, item in zip(texts, items))
    else:
        blocks = list(_blocks(content, max_chars))
        passages = [Passage(text=text) for text, _ in blocks if text]
        cut = sum(was_cut for _, was_cut in blocks)
    where = "standard input" if path == "-" else path
    if not passages:
        raise ValueError(f"{where}: no passages (it is empty)")
    if cut:
        logger.warning(
            "%s: %d passages longer than %d characters cut to that length (max_parse_chars: "
            "the most the reranker parses of a passage)",
            where,
            cut,
            max_chars,
        )
    return passages


_NOT_SPACE = re.compile(r"\S")


def _cut(text: str, max_chars: int | None) -> str:
    return text if max_chars is None or len(text) <= max_chars else text[:max_chars]


def _blocks(content: str, max_chars: int | None) -> Iterator[tuple[str, bool]]:
    """``(text, cut)`` of each blank-line separated block of ``content``: its text stripped
    and, past ``max_chars`` characters, cut to them, sliced from ``content`` (a block is never
    copied whole); whether it was cut."""
    start = 0
    while start <= len(content):
        end = content.find("\n\n", start)
        end = len(content) if end < 0 else end
        first = _NOT_SPACE.search(content, start, end)
        if first is not None:
            head = first.start()
            if max_chars is None or end - head <= max_chars:
                yield content[head:end].rstrip(), False
            else:
                text = content[head : head + max_chars]
                rest = _NOT_SPACE.search(content, head + max_chars, end)
                yield (text, True) if rest is not None else (text.rstrip(), False)
        start = end + 2
