"""A LaTeX source's title: the argument of its ``\\title{…}``, as it typesets.

A paper's source (``main.tex``) writes its title in its preamble, ``\\title[Short]{Attention Is
All You Need\\thanks{…}}``, and its headings as ``\\section{…}`` commands, which no Markdown or
reST rule reads. In a LaTeX source (its first line of text starts with a command:
``\\documentclass``, ``\\input``, ``\\section``; a ``%`` comment is no text),
:func:`latex_title` (tried by :func:`~cage_core.names.documents.document_title` before a first
heading) reads the braced argument of the first ``\\title`` at a line's start, else of the
first ``\\part``, ``\\chapter`` or ``\\section`` (a chapter's own file), as it typesets: a
``\\thanks``, ``\\footnote`` or ``\\label`` left out with its argument, a line break
(``\\\\``, ``\\newline``) and ``~`` as a space, another command's name dropped and its
argument kept (``\\textbf{Deep} Learning`` → "Deep Learning"), braces dropped.
"""

from __future__ import annotations

import re

from cage_core.names.centered_titles import clean_title, title_text

__all__ = ["latex_title"]

_TITLE = re.compile(r"^[ \t]*\\title[ \t]*(?:\[[^\]\n]*\][ \t]*)?\{", re.MULTILINE)
_HEADING = re.compile(
    r"^[ \t]*\\(?:part|chapter|section)\*?[ \t]*(?:\[[^\]\n]*\][ \t]*)?\{", re.MULTILINE
)
_COMMENT = re.compile(r"(?<!\\)%.*")
_DROPPED = re.compile(r"\\(?:thanks|footnote|label)[ \t]*\{")
_BREAK = re.compile(r"\\\\(?:\[[^\]]*\])?|\\newline\b|~")
_COMMAND = re.compile(r"\\[A-Za-z]+\*?[ \t]*|\\(?=[^A-Za-z])")


def latex_title(opening: str) -> str:
    """The title of a LaTeX source ``opening`` (module docstring), "" when it writes none or
    its argument is not closed within it."""
    text = "\n".join(_COMMENT.sub("", line) for line in opening.splitlines())
    if not text.lstrip().startswith("\\"):
        return ""  # not LaTeX source: a page about LaTeX may show a \title in a sample
    found = _TITLE.search(text) or _HEADING.search(text)
    if found is None:
        return ""
    argument = _braced(text, found.end())
    if argument is None:
        return ""
    while dropped := _DROPPED.search(argument):
        rest = _braced(argument, dropped.end())
        end = len(argument) if rest is None else dropped.end() + len(rest) + 1
        argument = argument[: dropped.start()] + argument[end:]
    title = clean_title(
        _COMMAND.sub("", _BREAK.sub(" ", argument)).replace("{", "").replace("}", "")
    )
    return title if title_text(title) else ""


def _braced(text: str, start: int) -> str | None:
    """What ``text`` holds from ``start`` (just after an opening brace) to the brace that
    closes it; ``None`` when none does."""
    depth = 1
    for i in range(start, len(text)):
        if text[i] == "{" and text[i - 1] != "\\":
            depth += 1
        elif text[i] == "}" and text[i - 1] != "\\":
            depth -= 1
            if depth == 0:
                return text[start:i]
    return None
