"""Prose from marked-up text: the paragraphs of a Markdown, reStructuredText or HTML text with
its markup removed, so that what is quoted or embedded is never markup.

:func:`prose_paragraphs` states the rules: which blocks are dropped, which inline markup keeps
its text, and how paragraphs are separated. :func:`heading_text` reads one title or heading
(a Markdown header a splitter kept in the metadata) by the same inline rules.
"""

from __future__ import annotations

import html
import re

__all__ = ["heading_text", "prose_paragraphs"]

_FENCE = re.compile(r"^\s*(```|~~~)")
_EXPLICIT_MARKUP = re.compile(r"^(\s*)\.\.(\s|$)")
"""A reStructuredText directive, comment, target or substitution definition (``.. x::``)."""
_ADMONITION = re.compile(
    r"^\s*\.\.\s+(note|tip|hint|important|warning|caution|attention|danger|error|seealso)::\s*(.*)$",
    re.IGNORECASE,
)
_RULE = re.compile(r"^\s*([=\-~^\"'`#*+_:.<>])\1{2,}\s*$")
"""A line of one repeated punctuation mark: a heading's under/overline or a horizontal rule."""
_ATX_HEADING = re.compile(r"^\s{0,3}#{1,6}(\s|$)")
_TABLE_ROW = re.compile(r"^\s*(\|.*\|.*\|\s*$|\+[-=+]+)")
_DOCTEST = re.compile(r"^\s*(>>>|\.\.\.)(\s|$)")
_HIDDEN = re.compile(r"<(script|style)\b.*?</\1\s*>|<!--.*?-->", re.IGNORECASE | re.DOTALL)
_LINK_DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s")
_FIELD = re.compile(r"^\s*:[\w -]+:(\s|$)")
_LIST_MARKER = re.compile(r"^\s*(?:[-*+•]|\d+[.)]|#\.)\s+")
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_MARKUP_TAG = re.compile(r"</[A-Za-z][\w-]*\s*>|<[A-Za-z][\w-]*(?:\s+[\w:-]+\s*=|\s*/>)")
"""A tag only markup writes: a closing tag, a tag with an attribute, a self-closing tag.
A text without one writes no tags: its ``<major>.<minor>`` are placeholders, kept."""
_INLINE: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\[!\[[^\]]*\]\([^)]*\)\]\([^)]*\)"), " "),  # a linked image: a badge
    (re.compile(r"!\[[^\]]*\](\([^)]*\)|\[[^\]]*\])"), " "),  # an image
    (re.compile(r"\[([^\]]+)\]\([^)]*\)"), r"\1"),  # [text](url)
    (re.compile(r"\[([^\]]+)\]\[[^\]]*\]"), r"\1"),  # [text][ref]
    (re.compile(r"`([^`<]+?)\s*<[^>]+>`__?"), r"\1"),  # `text <url>`_
    (re.compile(r":[\w:+-]+:`([^`<]+?)\s*(<[^>]+>)?`"), r"\1"),  # :role:`text <target>`
    (re.compile(r"`([^`]+)`__?"), r"\1"),  # `text`_
    (re.compile(r"\|[^|\s][^|]*\|_{0,2}"), " "),  # |substitution|
    (_HTML_TAG, " "),  # an HTML tag
    (re.compile(r"<https?://[^>\s]+>"), " "),  # an autolink
    (re.compile(r"``(.+?)``"), r"\1"),
    (re.compile(r"`([^`]+)`"), r"\1"),
    (re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1"), r"\2"),
    (re.compile(r"(?<![\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?![\w*])"), r"\1"),
    (re.compile(r"(?<!\w)_(?=\S)([^_]+?)(?<=\S)_(?!\w)"), r"\1"),
    (re.compile(r"~~(.+?)~~"), r"\1"),
]
"""Inline markup, in order: what it is replaced by (its text, or nothing)."""
_HEADING_MARKS = re.compile(r"^\s{0,3}#{1,6}(?:\s+|$)|\s+#+\s*$")
_BARE_URL = re.compile(r"(?<![\w/])(?:[a-z][a-z0-9+.-]*://|www\.)\S*", re.IGNORECASE)
_LETTER = re.compile(r"[^\W\d_]")
_EDGE_PUNCTUATION = " \t-–—:;,|"


def prose_paragraphs(text: str) -> list[str]:
    """The paragraphs of prose in ``text``, one line each, with Markdown, reStructuredText and
    HTML markup removed.

    Dropped: fenced code blocks, literal blocks (the indented block after a line ending in
    ``::``), reStructuredText explicit markup (``.. image::``, ``.. |badge| image::``,
    ``.. _target:``, comments) with its indented options, except the body of admonitions
    (``.. note::``), which is kept; headings (``#`` lines and lines over an under/overline),
    rules, tables, link definitions and field lists. Inline: images and badges are removed,
    links and roles keep their text, substitutions (``|name|``) and HTML tags are removed
    (where the text writes a tag only markup writes: a closing tag, an attribute, ``<br/>``;
    elsewhere ``<major>.<minor>`` is a placeholder, kept),
    emphasis and literals keep their text, HTML entities are decoded. Paragraphs are separated
    by blank lines; each list item and block quote line is its own. Plain text comes back as
    its paragraphs, whitespace collapsed.
    """
    text = _HIDDEN.sub(" ", text.replace("\r\n", "\n").replace("\r", "\n"))
    lines = text.split("\n")
    paragraphs: list[list[str]] = [[]]

    def end_paragraph() -> None:
        if paragraphs[-1]:
            paragraphs.append([])

    skip_indent: int | None = None  # inside a block dropped up to its indentation
    fence: str | None = None
    for n, line in enumerate(lines):
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
            continue
        if skip_indent is not None:
            if not stripped or indent > skip_indent:
                continue
            skip_indent = None
            end_paragraph()
        following = lines[n + 1] if n + 1 < len(lines) else ""
        if match := _FENCE.match(line):
            end_paragraph()
            fence = match.group(1)
            continue
        if admonition := _ADMONITION.match(line):
            end_paragraph()
            if admonition.group(2):
                paragraphs[-1].append(admonition.group(2))
            continue
        if _EXPLICIT_MARKUP.match(line):
            end_paragraph()
            skip_indent = indent
            continue
        if not stripped:
            end_paragraph()
            continue
        if (
            _RULE.match(line)
            or _ATX_HEADING.match(line)
            or (_RULE.match(following) and not _RULE.match(line) and len(stripped) <= 80)
            or _TABLE_ROW.match(line)
            or _LINK_DEFINITION.match(line)
            or _FIELD.match(line)
            or _DOCTEST.match(line)
        ):
            end_paragraph()
            continue
        if stripped.startswith(">"):
            end_paragraph()
            stripped = stripped.lstrip("> ")
        if _LIST_MARKER.match(line):
            end_paragraph()
            stripped = _LIST_MARKER.sub("", stripped)
        if stripped.endswith("::"):
            stripped = stripped[:-1].rstrip(":").rstrip() + ("" if stripped == "::" else ":")
            skip_indent = indent
        paragraphs[-1].append(stripped)
    tags = _MARKUP_TAG.search(text) is not None
    joined = (" ".join(words) for words in paragraphs if words)
    return [p for p in (_inline_plain(line, tags=tags) for line in joined) if p]


def heading_text(text: str) -> str:
    """A title or heading as plain text: its ATX marks (``# Title #``) removed, inline markup
    removed as in :func:`prose_paragraphs` (badges and images removed, links, code and emphasis
    keep their text, HTML tags removed), bare URLs removed, whitespace collapsed and dashes,
    colons and bars at either end stripped; "" when no letter remains (a heading that is only
    a badge, an image or a URL is no heading).

    >>> heading_text("[![PyPI](https://img.shields.io/pypi/v/x.svg)](https://pypi.org/x)")
    ''
    >>> heading_text("## _Follow Redirects_ is in need of `funding`")
    'Follow Redirects is in need of funding'
    """
    plain = _BARE_URL.sub(" ", _inline_plain(_HEADING_MARKS.sub(" ", text)))
    plain = " ".join(plain.split()).strip(_EDGE_PUNCTUATION)
    return plain if _LETTER.search(plain) else ""


def _inline_plain(text: str, *, tags: bool = True) -> str:
    """``text`` without inline markup (:data:`_INLINE`; without ``tags``, its ``<word>``
    kept), whitespace collapsed; where markup was removed, no space is left before
    punctuation."""
    plain = text
    for pattern, replacement in _INLINE:
        if tags or pattern is not _HTML_TAG:
            plain = pattern.sub(replacement, plain)
    plain = re.sub(r"\s+", " ", html.unescape(plain)).strip()
    return plain if plain == " ".join(text.split()) else re.sub(r"\s+([.,;:!?])", r"\1", plain)
