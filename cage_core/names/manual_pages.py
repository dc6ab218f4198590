"""A manual page's title: the line its first section holds, as ``man`` renders it.

A rendered manual page opens with a running head that names the page at both ends
(``"APT.CONF(5)          APT          APT.CONF(5)"``: the name and its section in parentheses),
then its first section, a heading at the margin (``NAME``, or its translation) over an indented
line that names the page and says what it is (``"apt.conf - Configuration file for APT"``). That
line is the page's title (:func:`manual_page_title`, tried by
:func:`~cage_core.names.documents.document_title` before a heading or a centered line), and the
head is how the page is known: no heading word is read, so a page in any language is read
alike.
"""

from __future__ import annotations

import re

from cage_core.names.centered_titles import clean_title, title_text

__all__ = ["MAX_HEAD_CHARS", "RUNNING_HEAD", "manual_page_title", "running_head"]

RUNNING_HEAD = re.compile(r"^(\S(?:[^()]*?\S)?\([0-9][\w]{0,8}\))[ \t]+\S.*?[ \t]+\1$")
"""A manual page's first line: the same ``name(section)`` at both ends, columns apart (one
space apart where a long name fills the line: "feature_test_macros(7) Miscellaneous
Information Manual feature_test_macros(7)"); the name may be words ("CREATE TABLE AS(7)")."""


_SECTION_AT_END = re.compile(r"\([0-9][\w]{0,8}\)$")
MAX_HEAD_CHARS = 160
"""A longer first line is no running head whose middle was cut (:func:`_cut_head`)."""


def running_head(opening: str) -> str:
    """The first line of ``opening`` that holds text when it is a manual page's running head
    (:data:`RUNNING_HEAD`), stripped; else ""."""
    rows = opening.splitlines()
    start = _head_at(rows)
    return "" if start is None else rows[start].strip()


def manual_page_title(lines: list[str]) -> str:
    """The title of a rendered manual page (module docstring): the indented lines right under
    the first heading after its running head, up to a blank line, joined; "" when the first
    line that holds text is no running head, or no indented line follows the heading."""
    rows = [line.rstrip() for line in lines]
    start = _head_at(rows)
    if start is None:
        return ""
    heading = next((i for i in range(start + 1, len(rows)) if rows[i].strip()), len(rows))
    if heading == len(rows) or rows[heading][:1].isspace():
        return ""
    title = []
    for line in rows[heading + 1 :]:
        if not line[:1].isspace() or not line.strip():
            break
        title.append(line.strip())
    joined = " ".join(title)
    return clean_title(joined) if title and title_text(joined) else ""


def _head_at(rows: list[str]) -> int | None:
    """Where the first line of ``rows`` that holds text stands, when it is a running head."""
    start = next((i for i, line in enumerate(rows) if line.strip()), None)
    if start is None:
        return None
    line = rows[start].strip()
    return start if RUNNING_HEAD.match(line) or _cut_head(line) else None


def _cut_head(line: str) -> bool:
    """Whether ``line`` is a running head whose middle ``man`` cut where the name is long,
    the name at its end glued to what is left: it opens with the name that ends it before
    the section ("HTTP::Request::Common(User Contributed Perl DocumentHTTP::Request::
    Common(3pm)")."""
    end = _SECTION_AT_END.search(line)
    if end is None or len(line) > MAX_HEAD_CHARS:
        return False
    before = line[: end.start()]
    return any(before.endswith(line[:k]) for k in range(len(before) // 2, 2, -1))
