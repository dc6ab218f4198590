"""The numbers a name or a question writes: a release's version, a chapter's number.

A number (:func:`version_numbers`) is a run of digits with optional dotted parts ("1.3", "2",
"2.0"), after an optional "v" ("v2", "v1.7.0"), standing as a word of its own (not "x86-64");
the identifiers and dates of the text are read first and left out
(:func:`~cage_core.names.documents.references`: "RFC 9113" and "3 November 2008" are not
versions). Ingest holds a document name's numbers among its words
(:func:`~cage_core.expansion.documents.document_words`), and routing reads a question's to
tell the documents of one series apart (:mod:`cage_core.expansion.versions`).
"""

from __future__ import annotations

import re

from cage_core.names.documents import fold, references, without_spans

__all__ = ["VERSION_NUMBER", "plain_text", "version_numbers"]

VERSION_NUMBER = re.compile(r"(?<![\w.])(?<!\w-)v?(\d+(?:\.\d+)*)(?![\w]|\.\d)", re.IGNORECASE)
"""One number (module docstring); group 1 is the number without its "v"."""


def version_numbers(text: str) -> frozenset[str]:
    """The numbers ``text`` writes outside its identifiers and dates (module docstring):
    ``"Version 1.3, 3 November 2008"`` → ``{"1.3"}``, ``"HTTP/2"`` → ``{"2"}``,
    ``"Git v1.7.0 Release Notes"`` → ``{"1.7.0"}``."""
    return frozenset(VERSION_NUMBER.findall(plain_text(text)))


def plain_text(text: str) -> str:
    """``text`` folded, its identifiers and dates left out (a file name's words kept:
    "Node.js 4")."""
    return fold(without_spans(text, references(text, files=False)))
