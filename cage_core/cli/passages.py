"""The passages file of ``cage rerank`` and ``cage explain``."""

from __future__ import annotations

import sys
from typing import Any

from cage_core.jsonl import DatasetFormatError, json_lines
from cage_core.metadata import passages_from_metadata
from cage_core.passage import Passage

__all__ = ["read_passages"]


def read_passages(path: str) -> list[Passage]:
    """JSON Lines (a string or {"text", "title", "id"} per line, optionally with the chunk's
    document structure: "doc_id" / "source" and "position" / "start_index", read as
    :func:`cage_core.metadata.passages_from_metadata` reads metadata) or text (blank-line
    separated)."""
    handle = sys.stdin if path == "-" else open(path, encoding="utf-8")
    with handle:
        content = handle.read()
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
        return passages_from_metadata([item["text"] for item in items], items, "title", ids)
    return [Passage(text=block.strip()) for block in content.split("\n\n") if block.strip()]
