"""A PDF's title and sections for the example folders (``folder_docs.read_file``), read by pypdf.

    file.pdf
      → pypdf: each page's text (``extract_text``), the document's metadata and its outline
      → running heads and feet dropped: up to two lines at each end of a page that, their
        numbers aside, stand among the first or last two lines of another page too ("Chapter
        4: Function reference 12"), and a page number alone ("7", "iv", "Page 2 of 9")
      → title: the metadata's ``Title``, else the first line of the first page, that holds a
        letter and is no file name, address or identifier ("Microsoft Word - report.docx",
        "about:blank", an "arXiv:2412.01234v2 [cs.IR] 3 Dec 2024" stamp), read before the
        running heads are dropped (page 1 opens with the title a running head repeats)
      → sections: one per outline entry (bookmark), from the line of its page that writes the
        entry's title (its number aside, wrapped over up to three lines, spaces aside) up to
        the next entry's, headed as the page writes it (the outline's title where no line
        does); without an outline one per page, under no heading (""). A word broken
        across two lines by a hyphen is joined; a line that ends a sentence well short of
        the page's longest line ends a paragraph.

pypdf reads the text a PDF holds; a scanned page holds none, and a PDF with no text at all is
refused ("no text"), as an empty file is. An encrypted PDF that opens without a password (its
password guards only printing or editing) is read, AES included (``pypdf[crypto]``); one that
needs a password to open is refused, saying so. LangChain's ``PyPDFLoader`` and LlamaIndex's
``PDFReader`` read with pypdf too, but give one Document per page, with its running head and
foot, and no title or section: a chunk could not be named "handbook.pdf › Tides".
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from pathlib import Path
from typing import Any

from pypdf import PdfReader
from pypdf.errors import FileNotDecryptedError, PyPdfError

__all__ = [
    "FILE_TYPES",
    "HEADING_LINES",
    "MIN_RUNNING_PAGES",
    "SHORT_LINE",
    "paragraphs",
    "pdf_problem",
    "read_pdf",
]

MIN_RUNNING_PAGES = 2
"""A running head or foot stands at an end of at least this many pages."""
_PAGE_NUMBER = re.compile(
    r"(?:(?i:page)\s+)?(?:\d+|[ivxlc]{1,7}|[IVXLC]{1,7})(?:\s*(?:/|(?i:of))\s*\d+)?"
)
"""A page number alone: "7", "iv", "Page 2 of 9", "3/12"."""
FILE_TYPES = "doc docx dvi htm html indd md odt pdf ppt pptx ps rtf tex txt xls xlsx".split()
"""The extensions of the files a PDF is made from, whose names tools write as its title."""
_NO_TITLE = re.compile(
    rf"\.(?:{'|'.join(FILE_TYPES)})\s*$|^[A-Za-z][A-Za-z0-9+.-]*:\S", re.IGNORECASE
)
"""A title that is a file name ("Microsoft Word - report.docx") or an address or identifier
("about:blank", which a browser prints as the title of a page without one; a stamp such as
"arXiv:2412.01234v2 [cs.IR] 3 Dec 2024" or "doi:10.1000/182" above a paper's title)."""
_LETTER = re.compile(r"[^\W\d_]")
_BROKEN_WORD = re.compile(r"[^\W\d_]-$")
_PARAGRAPH_END = re.compile(r"[.!?:]['\")\]]?$")
_NUMBERING = re.compile(r"(?:(?:[a-z]\.)?\d+(?:\.\d+)*\.?|[a-z]\.)(?=[^\W\d_])")
"""A heading's number as a page writes it before the outline's title ("2.1", "A.", "A.1"),
read where spaces are removed (:func:`_plain`)."""
HEADING_LINES = 3
"""A heading is looked for over up to this many lines (a long one wraps)."""
SHORT_LINE = 0.8
"""A line shorter than this share of its page's longest line, ending a sentence, ends a
paragraph."""


def _key(line: str) -> str:
    """``line`` as running heads are compared: numbers as ``#``, spaces collapsed, casefolded."""
    return re.sub(r"\d+", "#", " ".join(line.split())).casefold()


def _plain(line: str) -> str:
    """``line`` without its spaces, casefolded: an outline's title and the page's lines that
    write it may space it differently ("policy"leadership-council#41)."""
    return "".join(line.split()).casefold()


def _heading_end(lines: list[str], heading: str) -> int | None:
    """How many of ``lines``, from the first, write ``heading`` (:func:`_plain`), its number
    aside: the first line alone, or the heading wrapped over up to :data:`HEADING_LINES`;
    ``None`` when they do not."""
    text = ""
    for count, line in enumerate(lines[:HEADING_LINES], 1):
        text += _plain(line)
        forms = (text, _NUMBERING.sub("", text, count=1))
        if any(form.startswith(heading) for form in forms):
            return count
        if not any(heading.startswith(form) for form in forms):
            return None  # not the heading's first words
    return None


def _running(pages: list[list[str]]) -> set[str]:
    """The keys (:func:`_key`) of the running heads and feet: lines among the first two or
    the last two of at least :data:`MIN_RUNNING_PAGES` pages (a header a browser prints can
    come last in the text, before the page's number)."""
    ends = Counter(key for p in pages for key in {_key(line) for line in p[:2] + p[-2:]})
    return {key for key, pages_held in ends.items() if pages_held >= MIN_RUNNING_PAGES}


def _furniture(line: str, running: set[str]) -> bool:
    """Whether ``line`` is a page number alone or a running head or foot."""
    return bool(_PAGE_NUMBER.fullmatch(line)) or _key(line) in running


def _body(lines: list[str], running: set[str]) -> list[str]:
    """A page's lines without its running heads and feet and its page number: up to two lines
    at each end."""
    start, end = 0, len(lines)
    for _ in range(2):
        if start < end and _furniture(lines[start], running):
            start += 1
        if start < end and _furniture(lines[end - 1], running):
            end -= 1
    return lines[start:end]


def _title(reader: PdfReader, pages: list[list[str]]) -> str:
    """The metadata's title, else the first page's first line, that holds a letter and is no
    file name, address or identifier (module docstring)."""
    metadata = reader.metadata
    first = next((p for p in pages if p), [])
    written = [str(metadata.title or "")] if metadata is not None else []
    for title in (" ".join(line.split()) for line in [*written, *first]):
        if _LETTER.search(title) and not _NO_TITLE.search(title):
            return title
    return ""


def _outline(reader: PdfReader) -> list[tuple[str, int]]:
    """The outline's entries in order, each ``(title, page index)``; an entry whose page is
    unknown or lies before the previous entry's is left out."""
    entries: list[tuple[str, int]] = []

    def walk(items: list[Any]) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item)
                continue
            try:
                page = reader.get_destination_page_number(item)
            except Exception:  # a broken destination: the entry cannot place a section
                continue
            title = " ".join(str(getattr(item, "title", "") or "").split())
            if title and page is not None and page >= 0:
                if not entries or page >= entries[-1][1]:
                    entries.append((title, page))

    walk(reader.outline)
    return entries


def paragraphs(lines: list[str], widest: int) -> str:
    """``lines`` of a PDF as paragraphs joined by blank lines: a word broken by a hyphen at a
    line's end joined ("manip-" "ulation"), a paragraph ended by a line that ends a sentence
    shorter than :data:`SHORT_LINE` of ``widest`` (the longest line's length)."""
    paragraphs: list[str] = []
    current = ""
    for line in lines:
        text = " ".join(line.split())
        if _BROKEN_WORD.search(current) and text[:1].islower():
            current = current[:-1] + text  # "manip-" "ulation"
        else:
            current = f"{current} {text}" if current else text
        if _PARAGRAPH_END.search(text) and len(line) < SHORT_LINE * widest:
            paragraphs.append(current)
            current = ""
    return "\n\n".join([*paragraphs, current] if current else paragraphs)


def pdf_problem(path: Path) -> str | None:
    """Why the file at ``path`` is no PDF: no PDF header in its first kilobyte (read on the
    bytes, not the name); ``None`` when it has one."""
    with path.open("rb") as file:
        return None if b"%PDF-" in file.read(1024) else "not a PDF"


def read_pdf(path: Path) -> tuple[str, list[tuple[str, str]]]:
    """The PDF's title ("" when it has none) and its sections, ``(heading, text)`` with text
    (module docstring).

    Raises:
        ValueError: a PDF that opens only with a password, or one pypdf cannot read (damaged,
            not a PDF), its reason.
    """
    try:
        return _read(path)
    except FileNotDecryptedError as exc:
        raise ValueError("a PDF that opens only with a password") from exc
    except PyPdfError as exc:
        raise ValueError(f"a PDF pypdf cannot read: {exc}") from exc


def _read(path: Path) -> tuple[str, list[tuple[str, str]]]:
    """:func:`read_pdf`, pypdf's errors raised as they are."""
    reader = PdfReader(path)
    pages = [
        [line.strip() for line in (page.extract_text() or "").splitlines()] for page in reader.pages
    ]
    pages = [[line for line in p if line] for p in pages]
    title = _title(reader, pages)
    running = _running(pages)
    bodies = [_body(p, running) for p in pages]
    widest = max((len(line) for p in bodies for line in p), default=0)
    entries = _outline(reader)
    if not entries:
        sections = [("", body) for body in bodies]
    else:
        lines = [(n, line) for n, body in enumerate(bodies) for line in body]
        page_of = [n for n, _ in lines]
        texts = [line for _, line in lines]
        starts: list[tuple[str, int, int]] = [("", 0, 0)]  # heading, its line, its text's start
        for heading, page in entries:
            at = max(bisect_left(page_of, page), starts[-1][2])
            wanted = _plain(heading)
            found = (
                (i, n)
                for i in range(at, bisect_right(page_of, page))  # the page's lines from ``at``
                if (n := _heading_end(texts[i : i + HEADING_LINES], wanted)) is not None
            )
            written, count = next(found, (None, 0))
            if written is None:
                starts.append((heading, at, at))
            else:  # as the page writes it: "… in fog or in a swell", not the outline's "fogor"
                shown = " ".join(
                    " ".join(line.split()) for _, line in lines[written : written + count]
                )
                starts.append((shown, written, written + count))
        ends = [line for _, line, _ in starts[1:]] + [len(lines)]
        sections = [
            (heading, [line for _, line in lines[begin:end]])
            for (heading, _, begin), end in zip(starts, ends)
        ]
    read = [(heading, paragraphs(body, widest)) for heading, body in sections]
    return title, [(heading, text) for heading, text in read if text]
