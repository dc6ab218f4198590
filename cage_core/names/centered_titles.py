"""A plain-text document's title: its first centered line, as RFCs, Internet-Drafts,
licences and typed reports set it (:func:`centered_title`, the last resort of
:func:`~cage_core.names.documents.document_title`).

In a text laid out in fixed columns (its width, the length its :data:`WIDTH_LINES` longest
lines reach, so that a few longer lines, a URL, a page's running head and footer, set none:
:data:`MIN_CENTER_WIDTH` to :data:`MAX_CENTER_WIDTH` characters), the title is a line of
words set off by blank lines whose left margin is at least :data:`MIN_CENTER_INDENT` spaces
and within :data:`CENTER_TOLERANCE` of the width of its right margin (the text's width, or a
header's above it), or a long one centered to :data:`TIGHT_TOLERANCE` spaces from a margin of
:data:`MIN_TIGHT_INDENT` that ends in no period (RFC 7230 sets its 66-character title in by
3); with the centered lines right under it, up to a blank line or a URL (Apache's
"http://www.apache.org/licenses/" under "Apache License" / "Version 2.0, January 2004");
above the body (two lines of running text in a row end the search: a manual page's indented
paragraph is no title). A text splitter strips a chunk's leading spaces, so a first line that
lost its margin is a title above lines set in, or one blank line above a heading set in
(:func:`centered_title`'s first rule). A line that looks like code is never a title
(:data:`CODE_LIKE`).
"""

from __future__ import annotations

import heapq
import re

__all__ = [
    "CENTER_TOLERANCE",
    "CODE_LIKE",
    "MAX_CENTER_WIDTH",
    "MAX_TITLE_CHARS",
    "MIN_CENTER_INDENT",
    "MIN_CENTER_WIDTH",
    "MIN_PROSE_WORDS",
    "MIN_TIGHT_INDENT",
    "TIGHT_TOLERANCE",
    "WIDTH_LINES",
    "centered_title",
    "clean_title",
    "title_text",
]

MAX_TITLE_CHARS = 200
"""A title read from a document is cut to this many characters."""
MIN_CENTER_INDENT = 8
"""The least left margin, in spaces, of a centered title line of plain text; 3 for a line
centered to 2 spaces that ends in no period (RFC 7230 sets its long title in by 3)."""
MIN_TIGHT_INDENT = 3
"""The least left margin of a long title line centered to :data:`TIGHT_TOLERANCE`."""
TIGHT_TOLERANCE = 2
"""How many spaces a tightly centered line's two margins may differ by."""
CENTER_TOLERANCE = 0.15
"""How far a centered line's two margins may differ, as a share of the text's width
(:data:`WIDTH_LINES`) or of the header's above it."""
MIN_CENTER_WIDTH = 40
"""A text narrower than this (its width: :data:`WIDTH_LINES`) has no centered lines."""
MAX_CENTER_WIDTH = 100
"""Nor has a wider one: its lines are paragraphs, not a page's columns."""
WIDTH_LINES = 4
"""How many of a plain text's longest lines its width is read from (the length the last of
them reaches), at most a quarter of its lines that hold text and at least 2: one more than
the lines wider than the text a page's opening may hold, a running head, a footer and a
copyright line. The DEV licences paginated with a wider head and footer (a scratch check)
keep 13 of 13 titles at 4, 12 at 3, 7 at 2 (the value before); 4 and 5 change none of 5,583
real openings (the DEV folders' files, CUAD, DragonBall, SciFact chunks), 8 changes two
CUAD titles."""
MIN_PROSE_WORDS = 5
"""The fewest words of a line of running text (:func:`_prose`)."""


CODE_LIKE = re.compile(r"[=;{]|\(\)|->|[:(,]\s*$|^\s*(?:def|class|import|from|return)\b")
"""A line that holds ``=``, ``()`` or ``->``, ends in ``:``, ``;``, ``{`` or ``(``, or opens
with a Python keyword: code, never a title or heading."""
_URL = re.compile(r"(?:https?://|www\.)\S+")


def centered_title(lines: list[str]) -> str:
    """The first centered line of plain text ``lines`` and the centered lines right under it,
    joined (module docstring); "" when there is none. ``lines``: the opening's first
    lines (the caller bounds how many)."""
    head = [line.expandtabs().rstrip() for line in lines]
    lengths = [len(line) for line in head if line.strip()]
    longest = heapq.nlargest(max(2, min(WIDTH_LINES, len(lengths) // 4)), lengths)
    width = longest[-1] if longest else 0  # what the longest few reach: a footer sets none
    if not MIN_CENTER_WIDTH <= width <= MAX_CENTER_WIDTH or (
        head and head[0].lstrip("\ufeff ").startswith("<")
    ):
        return ""

    def centered(line: str, widths: tuple[int, ...]) -> bool:
        left = len(line) - len(line.lstrip())
        off = [abs(left - (w - len(line))) for w in widths]  # how far from centered
        wide = left >= MIN_CENTER_INDENT and any(
            o <= CENTER_TOLERANCE * w for o, w in zip(off, widths)
        )
        tight = left >= MIN_TIGHT_INDENT and min(off) <= TIGHT_TOLERANCE and line[-1] != "."
        return (wide or tight) and title_text(line.strip())

    if stripped := _stripped_title(head):
        return stripped
    above = 0  # the longest line above: a header's columns, when wide
    for i, line in enumerate(head):
        widths = (width, above) if above >= MIN_CENTER_WIDTH else (width,)
        above = max(above, len(line))
        if i and _prose(head[i - 1]) and _prose(line) and not centered(line, widths):
            return ""  # the body has begun: a title stands above it
        if not centered(line, widths) or (i and head[i - 1].strip()):
            continue
        title = [line.strip()]
        for below in head[i + 1 :]:
            if not below.strip() or _URL.fullmatch(below.strip()):
                return clean_title(" ".join(title))  # a URL under it is no part of it
            if not centered(below, widths):
                break
            title.append(below.strip())
    return ""


def _stripped_title(head: list[str]) -> str:
    """The title of an opening whose first line lost its margin (a text splitter strips a
    chunk's leading spaces): that line, when short, with the lines under it up to a blank one
    when each is set in by :data:`MIN_CENTER_INDENT` or more ("Apache License" / "Version
    2.0, January 2004"), a URL left out; that line alone when one blank line parts it from
    such lines (a heading set in under the title: 'The "Artistic License"' / "Preamble");
    "" otherwise."""
    first = head[0].strip() if head else ""
    if len(head) < 2 or head[0][:1].isspace() or len(first) > MIN_CENTER_WIDTH:
        return ""
    if _URL.fullmatch(first) or not title_text(first):
        return ""
    apart = not head[1]  # one blank line between the first line and the lines set in
    start = 2 if apart else 1
    lines = head[start : head.index("", start)] if "" in head[start:] else []
    set_in = [x.strip() for x in lines if x[:MIN_CENTER_INDENT].isspace()]
    if not lines or len(set_in) < len(lines):
        return ""
    if not all(title_text(x) or _URL.fullmatch(x) for x in set_in):
        return ""
    if apart:
        return clean_title(first)
    return clean_title(" ".join([first, *(x for x in set_in if not _URL.fullmatch(x))]))


def _prose(line: str) -> bool:
    """Whether ``line`` reads as running text: :data:`MIN_PROSE_WORDS` words or more, spaced
    singly (a header's columns are parted by runs of spaces). Two such lines in a row are a
    paragraph of the body, which no centered title follows."""
    text = line.strip()
    return len(text.split()) >= MIN_PROSE_WORDS and "   " not in text


def title_text(text: str) -> bool:
    """Whether a line's ``text`` may be a title's: three letters or more, no code."""
    return sum(c.isalpha() for c in text) >= 3 and not CODE_LIKE.search(text)


def clean_title(title: str) -> str:
    """``title`` with its spaces collapsed, cut to :data:`MAX_TITLE_CHARS` characters."""
    return " ".join(title.split())[:MAX_TITLE_CHARS]
