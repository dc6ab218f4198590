"""A Jupyter notebook as the Markdown its cells make, for the example folders
(``folder_docs.read_file`` reads it then as a Markdown file: its title and sections).

    file.ipynb  (nbformat 4: JSON, ``{"cells": [...]}``)
      → each Markdown cell's source as written, and each code cell's source as a fenced code
        block in the notebook's language (the reader drops code blocks, as it drops a
        Markdown file's); outputs and raw cells left out
      → the cells joined by blank lines: a heading in a Markdown cell opens a section

A tutorial kept as notebooks is read by its headings and prose, as its rendered page shows
them. LangChain's ``NotebookLoader`` and LlamaIndex's ``IPYNBReader`` give the cells as one
Document (or one per cell) with no title or section.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["notebook_markdown"]

_BACKTICKS = re.compile(r"`{3,}")
"""A run of backticks in a code cell: its fence is one longer."""


def notebook_markdown(text: str) -> str:
    """The Markdown of the notebook whose JSON is ``text`` (module docstring).

    Raises:
        ValueError: ``text`` is not a notebook of nbformat 4 (not JSON, or no list of
            cells), its reason.
    """
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not a Jupyter notebook: {exc}") from exc
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        raise ValueError("not a Jupyter notebook of nbformat 4: no list of cells")
    metadata = notebook.get("metadata")
    language = _language(metadata if isinstance(metadata, dict) else {})
    parts = []
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        source = _source(cell.get("source"))
        if not source.strip():
            continue
        if cell.get("cell_type") == "markdown":
            parts.append(source)
        elif cell.get("cell_type") == "code":
            fence = "`" * max(3, 1 + max(map(len, _BACKTICKS.findall(source)), default=0))
            parts.append(f"{fence}{language}\n{source}\n{fence}")
    return "\n\n".join(parts) + "\n"


def _source(value: Any) -> str:
    """A cell's source: a string, or the list of lines nbformat writes."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(line for line in value if isinstance(line, str))
    return ""


def _language(metadata: dict[str, Any]) -> str:
    """The notebook's language for its code blocks ("" when it names none)."""
    info = metadata.get("language_info")
    name = info.get("name") if isinstance(info, dict) else None
    return name if isinstance(name, str) and name.isidentifier() else ""
