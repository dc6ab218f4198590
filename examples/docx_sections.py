"""A Word file's title and sections for the example folders (``folder_docs.read_file``), read by
python-docx.

    file.docx
      → python-docx: the body's paragraphs and tables in document order, its core properties
      → title: the core properties' ``title`` when it holds a letter, else the first paragraph
        styled "Title", else the first heading ("" for none)
      → sections: a heading (a paragraph whose style is a heading style, "Heading 1"–"Heading
        9", or is based on one) opens one, with the paragraphs under it and each row of its
        tables (the row's cells joined by " | "); a paragraph styled "Title" is the title,
        not a section's text. Empty paragraphs are dropped.

Only ``.docx`` (Office Open XML) is read; the older binary ``.doc`` is not. LangChain's
``Docx2txtLoader`` and LlamaIndex's ``DocxReader`` give the whole text as one Document, its
headings as plain lines: no section could be named.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import docx
from docx.opc.exceptions import PackageNotFoundError
from docx.styles.style import BaseStyle
from docx.table import Table

__all__ = ["docx_problem", "read_docx"]

_HEADING_STYLE = re.compile(r"heading ?[1-9]", re.IGNORECASE)
_TITLE_STYLE = re.compile(r"title", re.IGNORECASE)
_LETTER = re.compile(r"[^\W\d_]")
_CELLS = " | "
"""Between a table row's cells."""


def _style_is(style: BaseStyle | None, pattern: re.Pattern[str]) -> bool:
    """Whether ``style`` or a style it is based on is named by ``pattern`` (by name or id)."""
    while style is not None:
        if any(pattern.fullmatch(n or "") for n in (style.name, style.style_id)):
            return True
        style = style.base_style
    return False


def _row_text(row: list[str]) -> str:
    """A table row's text: its cells' texts, a cell merged across columns once."""
    cells = [" ".join(c.split()) for c in dict.fromkeys(row)]  # merged cells repeat
    return _CELLS.join(c for c in cells if c)


def docx_problem(path: Path) -> str | None:
    """Why the file at ``path`` is no Word file: it is no ZIP archive (read on the bytes, not
    the name); ``None`` when it is one."""
    return None if zipfile.is_zipfile(path) else "not a Word file"


def read_docx(path: Path) -> tuple[str, list[tuple[str, str]]]:
    """The Word file's title ("" when it has none) and its sections, ``(heading, text)`` with
    text (module docstring).

    Raises:
        ValueError: a file python-docx cannot read (damaged, not a Word file), its reason.
    """
    try:
        document = docx.Document(str(path))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise ValueError(f"a Word file python-docx cannot read: {exc}") from exc
    title = " ".join((document.core_properties.title or "").split())
    title = title if _LETTER.search(title) else ""
    styled_title = first_heading = ""
    sections: list[tuple[str, list[str]]] = [("", [])]
    for block in document.iter_inner_content():
        if isinstance(block, Table):
            rows = (_row_text([cell.text for cell in row.cells]) for row in block.rows)
            sections[-1][1].extend(r for r in rows if r)
            continue
        text = " ".join(block.text.split())
        if not text:
            continue
        if _style_is(block.style, _TITLE_STYLE):
            styled_title = styled_title or text
        elif _style_is(block.style, _HEADING_STYLE):
            first_heading = first_heading or text
            sections.append((text, []))
        else:
            sections[-1][1].append(text)
    return title or styled_title or first_heading, [
        (heading, "\n\n".join(body)) for heading, body in sections if body
    ]
