"""How a document names itself: its title, its identifiers, and the folded form names are
compared in. Ingest reads a document's opening (its first chunks), query time a question, the
same way, so both meet in one form:

* :func:`document_title` — the title a document's opening writes: a ``Title:`` header field
  (an RFC 822-style block of ``Key: value`` lines at the top, as PEPs, RFCs and e-mail-like
  files open; Org-mode's ``#+TITLE:``), else its ``Subject:`` (an e-mail's title), the
  ``title`` of its front matter (YAML or TOML: :mod:`cage_core.names.front_matter`), HTML's
  ``<title>`` or ``<h1>`` (when the document is markup: its opening starts with a tag; a
  Markdown page's HTML sample is not its head), a manual page's name line, rendered
  (:mod:`cage_core.names.manual_pages`) or in its roff or POD source
  (:mod:`cage_core.names.manual_sources`), a Texinfo source's ``@settitle`` (the same
  module), a LaTeX source's ``\\title`` (:mod:`cage_core.names.latex`), else the first
  heading: Markdown ``#`` / setext, reStructuredText (a line over- or underlined with one
  punctuation character), AsciiDoc ``=`` (its inline code and roles read as they render,
  without their backticks), else, in plain text, its first centered line
  (:mod:`cage_core.names.centered_titles`: as RFCs, Internet-Drafts, licences and typed
  reports set their titles, and a splitter leaves them). A line that looks like code
  (ends in ``:``, ``;``, ``{`` or ``(``, or holds ``=``, ``()`` or ``->``) is never a
  heading;
* :func:`identifiers` — the identifiers a text writes: a word of letters and a number
  ("RFC 9110", "rfc-9110", "PEP 0634", "EIP-1559", "ISO 27001", "Form 10-K", "E0382"), in the form
  ``"rfc 9110"`` (letters folded, one space, the number without its zero padding), so every
  way of writing one identifier is one form, and no word of a text (a run of ``\\w``) is
  ever in it: a gene named "TNFAIP3" in an abstract is a word, "tnfaip3", not the identifier
  "tnfaip 3" a document may give itself; :func:`own_identifiers` — those a document gives
  *itself*: in its file name and in its header fields whose value is a number (``PEP: 634``,
  ``eip: 1559``); the numbers its text cites are other documents';
* :func:`file_names`, :func:`manual_pages` and :func:`dates` — the other names a document
  gives itself in a form no word of a text takes: its file name (``"compatibility.md"``, a
  versioned ``"MPL-2.0"``, folded), a manual page's name and section (``"git-rebase(1)"``, as
  its running head writes it and other pages cite it) and its date (``"2024-12-06"``, from
  "2024-12-06", "6 December 2024", "Dec 6, 2024"); :func:`references` — every identifier,
  file name, manual page and date a text writes, which :func:`own_identifiers` reads of a
  document itself (its header, its file name);
* :func:`fold` — the form every name is compared in: Unicode NFKC, case-folded, without
  combining marks ("Straße" → "strasse", "İstanbul" → "istanbul", a decomposed "é" → "e").
  ASCII text folds to its lower case, so ASCII names are read as before.
"""

from __future__ import annotations

import html as html_text
import re
import unicodedata
from dataclasses import dataclass

from cage_core.lang.en import MONTHS
from cage_core.names.centered_titles import (
    CENTER_TOLERANCE,
    CODE_LIKE,
    MAX_CENTER_WIDTH,
    MAX_TITLE_CHARS,
    MIN_CENTER_INDENT,
    MIN_CENTER_WIDTH,
    centered_title,
    clean_title,
)
from cage_core.names.forms import written_title
from cage_core.names.front_matter import (
    HEADER_LINES,
    front_matter,
    front_matter_block,
    header_fields,
)
from cage_core.names.latex import latex_title
from cage_core.names.manual_pages import manual_page_title, running_head
from cage_core.names.manual_sources import pod_title, roff_head, roff_title, texinfo_title
from cage_core.names.sources import file_stem

__all__ = [
    "CENTER_TOLERANCE",
    "IDENTIFIER_WORD",
    "MAX_CENTER_WIDTH",
    "MAX_TITLE_CHARS",
    "MIN_CENTER_INDENT",
    "MIN_CENTER_WIDTH",
    "Identifier",
    "dates",
    "document_title",
    "file_names",
    "fold",
    "identifiers",
    "manual_pages",
    "own_identifiers",
    "references",
    "text_lines",
    "without_spans",
]

IDENTIFIER_WORD = re.compile(
    r"[a-z]{1,12} [0-9]{1,7}(?:-[0-9]{1,7})?|[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"|[^\s/\\]+\.[a-z][a-z0-9]{0,7}|[a-z][\w-]*[0-9](?:\.[0-9]+)+|[^\s()/\\]+\([1-9][a-z]{0,6}\)"
)
"""The forms of :attr:`Identifier.word`: a series number (``"rfc 9110"``, ``"cve 2022-46908"``),
a date (``"2024-12-06"``), a file name (``"compatibility.md"``, or a versioned one without an
extension: ``"mpl-2.0"``), a manual page (``"git-rebase(1)"``); none is a run of ``\\w``."""
MAX_FILE_NAME_CHARS = 40
"""A longer file name is no identifier."""


@dataclass(frozen=True)
class Identifier:
    """A name a document gives itself, as a text writes it: a series number, a file name or a
    date (module docstring).

    word: its form (:data:`IDENTIFIER_WORD`): ``"rfc 9110"`` (letters folded, the number
        without zero padding), ``"compatibility.md"``, ``"2024-12-06"``.
    shown: its display form (``"RFC 9110"``, the number as written; the file name or date as
        written).
    start, end: where it stands in the text read (``text[start:end]``).
    """

    word: str
    shown: str
    start: int = 0
    end: int = 0


_IDENTIFIER = re.compile(
    r"(?<![\w.])(?:([A-Za-z]{2,12})[ \t]*[-_:#]?[ \t]*|([A-Za-z])(?=\d{3}))"
    r"(0*)(\d{1,7}(?:-\d{1,7})?)(?:-[A-Za-z])?(?![\w]|\.\d)"  # "CVE-2022-46908": one
)
_ROLE = re.compile(
    r"(?::([A-Za-z]{2,12}):|\{([A-Za-z]{2,12})\})`(?:[^`<>]*<)?(0*)(\d{1,7})(?:#[^`<>]*)?>?`"
)
_FILE_NAME = re.compile(
    r"(?<![\w.-])((?:[\w.-]+[/\\])*)"  # a path before it
    r"(\w[\w.-]*\.[A-Za-z][A-Za-z0-9]{0,7}|[A-Za-z][\w-]*\d(?:\.\d+)+)(?![\w-]|\.\d)"
)
_MANUAL_PAGE = re.compile(r"(?<![\w.+-])([A-Za-z_][\w.+-]{0,38})\(([1-9][a-z]{0,6})\)(?![\w(])")
_ISO_DATE = re.compile(r"(?<![\w-])(\d{4})-(\d{2})-(\d{2})(?![\w-])")
_DAY_MONTH = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?[ \t]+([A-Za-z]{3,9})\.?,?[ \t]+(\d{4})\b")
_MONTH_DAY = re.compile(r"\b([A-Za-z]{3,9})\.?[ \t]+(\d{1,2})(?:st|nd|rd|th)?,?[ \t]+(\d{4})\b")
_NUMBER = re.compile(r"^(0*)(\d{1,7})$")
_SERIES = re.compile(r"[A-Za-z]{2,12}")
_HTML_TITLE = re.compile(r"<(title|h1)\b[^>]*>(.*?)</\1\s*>", re.DOTALL | re.IGNORECASE)
_TAG = re.compile(r"<[^>]+>")
_MARKUP_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_ATX = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$")
_ASCIIDOC = re.compile(r"^=[ \t]+(\S.*)$")
_ADORNMENT = re.compile(r"^([=\-~^*#+`'\".:_])\1+[ \t]*$")
_INLINE_CODE = re.compile(r"(?::[\w.:+-]+:|\{[\w.:+-]+\})?(`+)[!~]?(.+?)(?:\s*<[^<>`]*>)?\1")
"""Inline code in a heading, as it renders: a code span (`` `setup.py` ``), a reST / MyST role
(``:mod:`!asyncio` ``, ``{ref}`caching```; its target, ``text <target>``, left out)."""


def fold(text: str) -> str:
    """``text`` in the form names are compared in (module docstring)."""
    if text.isascii():
        return text.lower()
    folded = unicodedata.normalize("NFKC", text).casefold()
    bare = "".join(c for c in unicodedata.normalize("NFD", folded) if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", bare).lower()


def identifiers(text: str) -> list[Identifier]:
    """The identifiers ``text`` writes, in order, each once by its word form (module
    docstring). A word of letters with a number after it, within one word's reach (a space,
    a hyphen, an underscore, ``:`` or ``#``): ``"RFC 9110"``, ``"XEP-0045"``, ``"pep_0634"``,
    and a second number after a hyphen with it (``"CVE-2022-46908"``, ``"SP 800-53"``);
    one letter right before three digits or more: ``"E0382"`` (a compiler's error code);
    or a reStructuredText / MyST role of a number (``:pep:`634```, ``{rfc}`9110#section-3```,
    ``:pep:`the tutorial <636>```), as Sphinx pages cite. A version ("Python 3.11"), a decimal
    or a number glued inside a longer word is none."""
    found: list[tuple[int, int, str, str, str]] = [
        (m.start(), m.end(), m.group(1) or m.group(2), m.group(3), m.group(4))
        for m in _ROLE.finditer(text)
    ]
    roles = [(start, end) for start, end, *_ in found]
    for m in _IDENTIFIER.finditer(text):
        if not any(start <= m.start() < end for start, end in roles):  # its "#section-3"
            letters = m.group(1) or m.group(2)
            found.append((m.start(), m.end(), letters, m.group(3), m.group(4)))
    out: dict[str, Identifier] = {}
    for start, end, letters, zeros, number in sorted(found):
        word = f"{fold(letters)} {number}"
        if word not in out:
            space = " " if len(letters) > 1 else ""  # "E0382" as a compiler writes it
            out[word] = Identifier(word, f"{letters.upper()}{space}{zeros}{number}", start, end)
    return list(out.values())


def file_names(text: str) -> list[Identifier]:
    """The file names ``text`` writes (a name with an extension: ``"compatibility.md"``,
    ``"2025-03-28.md"``, ``"Primitive-Types.html"``; or a name of letters ending in a dotted
    version, with no extension: ``"MPL-2.0"``, ``"LGPL-2.1"``), folded, each once; a path's
    last part (a link's ``"../api/fs.html#x"``: ``"fs.html"``, standing where its path does)."""
    out: dict[str, Identifier] = {}
    for match in _FILE_NAME.finditer(text):
        name = match.group(2)
        if len(name) <= MAX_FILE_NAME_CHARS and fold(name) not in out:
            out[fold(name)] = Identifier(fold(name), name, match.start(), match.end(2))
    return list(out.values())


def dates(text: str) -> list[Identifier]:
    """The calendar dates ``text`` writes — ISO ("2024-12-06"), day month year ("6 December
    2024", "6th Dec. 2024") or month day year ("December 6, 2024") in English month names —
    in ISO form, each once."""
    found: list[tuple[int, int, int, int, int]] = []
    for match in _ISO_DATE.finditer(text):
        y, m, d = (int(g) for g in match.groups())
        found.append((match.start(), match.end(), y, m, d))
    for pattern, order in ((_DAY_MONTH, (2, 1, 0)), (_MONTH_DAY, (2, 0, 1))):
        for match in pattern.finditer(text):
            groups = match.groups()
            month = MONTHS.get(fold(groups[order[1]]))
            if month is not None:
                found.append(
                    (
                        match.start(),
                        match.end(),
                        int(groups[order[0]]),
                        month,
                        int(groups[order[2]]),
                    )
                )
    out: dict[str, Identifier] = {}
    for start, end, y, m, d in sorted(found):
        if 1 <= m <= 12 and 1 <= d <= 31 and 1000 <= y <= 9999:
            word = f"{y:04d}-{m:02d}-{d:02d}"
            out.setdefault(word, Identifier(word, word, start, end))
    return list(out.values())


def manual_pages(text: str) -> list[Identifier]:
    """The manual pages ``text`` names as Unix manuals cite them, a name and its section in
    parentheses ("git-rebase(1)", "apt.conf(5)"), folded, each once."""
    out: dict[str, Identifier] = {}
    for match in _MANUAL_PAGE.finditer(text):
        word = fold(match.group(0))
        if len(word) <= MAX_FILE_NAME_CHARS:
            out.setdefault(word, Identifier(word, match.group(0), match.start(), match.end()))
    return list(out.values())


def references(text: str, *, files: bool = True) -> list[Identifier]:
    """Every identifier, file name (``files``: a name's or a question's words keep one no
    document holds, "Node.js 12"), manual page and date ``text`` writes, in order."""
    found = identifiers(text) + (file_names(text) if files else []) + manual_pages(text)
    return sorted(found + dates(text), key=lambda i: (i.start, -i.end, i.word))


def own_identifiers(opening: str, file_name: str = "", title: str = "") -> list[Identifier]:
    """The identifiers a document gives itself (module docstring): the first field of its
    header block or front matter, when its value is a number (``"PEP: 634"`` → ``"pep 634"``;
    the field's name, one word, is the series; later ones, ``Replaces: 622``, name others, and
    ``section: 1`` or ``weight: 10`` under a ``title:`` orders pages), its
    ``Date:`` / ``date:`` field's date; then those of its ``file_name`` (``"rfc-9110.txt"``:
    the identifier, the date in it, the file name itself; ``"MPL-2.0.txt"``: the versioned
    name ``"mpl-2.0"`` and the file name; :func:`file_stem`), and the file names it starts
    with (``"sources.list.5.txt"``: ``"sources.list"``); a manual page's, from its running
    head (``"git-rebase(1)"``, :mod:`cage_core.names.manual_pages`); the file name its
    ``title`` is, less its qualifier (:func:`~cage_core.names.forms.written_title`: a page
    titled "setup.py (legacy)" owns ``"setup.py"``)."""
    out: dict[str, Identifier] = {}
    blocks = [header_fields(opening), front_matter(opening)]
    fields = [field for block in blocks for field in block]
    for key, value in (block[0] for block in blocks if block):  # not "weight: 10" after a title
        number = _NUMBER.match(value.strip())
        if number and _SERIES.fullmatch(key):
            word = f"{fold(key)} {number.group(2)}"
            out[word] = Identifier(word, f"{key.upper()} {value.strip()}")
            break
    for key, value in fields:
        if fold(key) == "date":
            for found in dates(value)[:1]:
                out.setdefault(found.word, found)
    for found in manual_pages(running_head(opening) or roff_head(opening)):
        if found.start == 0:  # the head's name, not a word of it: "CREATE TABLE AS(7)"
            out.setdefault(found.word, found)
    written = written_title(title)
    named = file_names(written)
    if len(named) == 1 and named[0].shown == written:
        out.setdefault(named[0].word, named[0])
    stem = file_stem(file_name)
    found_in_name = identifiers(stem) + dates(stem) + file_names(stem) + file_names(file_name)
    for found in found_in_name + _named_prefixes(file_name):
        out.setdefault(found.word, found)
    return list(out.values())


def _named_prefixes(file_name: str) -> list[Identifier]:
    """The file names ``file_name`` starts with, up to one of its later dots: a page of the
    file ``sources.list`` kept as ``"sources.list.5.txt"`` is asked about as "sources.list"."""
    out = []
    for end in (i for i, c in enumerate(file_name) if c == "." and i):
        prefix = file_name[:end]
        if [f.shown for f in file_names(prefix)] == [prefix]:
            out.append(Identifier(fold(prefix), prefix))
    return out


def document_title(opening: str) -> str:
    """The title ``opening`` (a document's first chunks) writes, or "" (module docstring),
    spaces collapsed, cut to :data:`MAX_TITLE_CHARS` characters."""
    fields = {fold(key): value for key, value in reversed(header_fields(opening))}  # the first
    if title := fields.get("title") or fields.get("subject"):  # an e-mail's is its Subject
        return clean_title(title)
    quoted = front_matter_block(opening).startswith("---")  # YAML, read line by line
    for key, value in front_matter(opening):
        if fold(key) == "title" and value:  # a TOML value is parsed, its quotes its own
            return clean_title(value.strip("\"'") if quoted else value)
    found = _HTML_TITLE.search(opening) if opening.lstrip("\ufeff \t\r\n").startswith("<") else None
    if found:
        title = clean_title(html_text.unescape(_TAG.sub(" ", found.group(2))))
        if title:
            return title
    lines = opening.splitlines()
    return (
        manual_page_title(lines[:HEADER_LINES])
        or roff_title(lines)
        or pod_title(lines)
        or texinfo_title(lines)
        or latex_title(opening)
        or _first_heading(lines)
        or centered_title(lines[: 2 * HEADER_LINES])
    )


def text_lines(opening: str) -> list[str]:
    """The lines of ``opening`` that hold text: without HTML / XML markup (tags, comments, a
    doctype) and reStructuredText comments."""
    bare = _TAG.sub(" ", _MARKUP_COMMENT.sub(" ", opening))
    return _without_comments(html_text.unescape(bare).splitlines())


def _first_heading(lines: list[str]) -> str:
    """The first heading of ``lines`` in Markdown, reStructuredText or AsciiDoc markup, its
    inline code as it renders (:data:`_INLINE_CODE`, then read for code: :data:`CODE_LIKE`); a
    reStructuredText comment (``..`` and the lines indented under it) is no text."""
    lines = _without_comments(lines[: 2 * HEADER_LINES])
    for i, line in enumerate(lines[:HEADER_LINES]):
        text = line.strip()
        if not text:
            continue
        for pattern in (_ATX, _ASCIIDOC):
            found = pattern.match(line.rstrip()) if not line[:1].isspace() else None
            shown = _INLINE_CODE.sub(r"\2", found.group(1)) if found else ""
            if found and not CODE_LIKE.search(shown):
                return clean_title(shown)
        below = lines[i + 1].strip() if i + 1 < len(lines) else ""
        shown = _INLINE_CODE.sub(r"\2", text)
        if (
            _ADORNMENT.match(below)
            and not _ADORNMENT.match(text)
            and len(below) >= len(text)
            and not CODE_LIKE.search(shown)
        ):
            return clean_title(shown)
    return ""


def _without_comments(lines: list[str]) -> list[str]:
    """``lines`` less reStructuredText comments: a line ``..`` (or ``.. text`` that is no
    directive, ``.. name::``, and no target, ``.. _name:``) and the indented lines under it."""
    out: list[str] = []
    in_comment = False
    for line in lines:
        if in_comment and (not line.strip() or line[:1].isspace()):
            continue
        in_comment = line.rstrip() == ".." or (
            line.startswith(".. ") and "::" not in line and not line.startswith(".. _")
        )
        if not in_comment:
            out.append(line)
    return out


def without_spans(text: str, found: list[Identifier]) -> str:
    """``text`` with a space where each of ``found`` stands (overlapping ones merged)."""
    out, end = [], 0
    for item in sorted(found, key=lambda i: i.start):
        if item.start >= end:
            out.append(text[end : item.start] + " ")
        end = max(end, item.end)
    return "".join(out) + text[end:]
