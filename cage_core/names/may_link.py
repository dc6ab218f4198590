"""Which strings may link passages: names, not code, markup, numbers or generic words.

Parsers label what they cannot read as entities too: in package documentation spaCy's
recogniser returns ``"str | None"`` or ``"= Annotated[str, Depends(get_username"``, in
finance reports ``"$"``, and a chunk's first-sentence subject can be a sentence opener
(``"To"``, ``"Through"``). Such a string shared by two passages says nothing about them, so
:func:`may_link` keeps it out of every link (shared entities, derived subjects, document
subjects). A string may link when, its qualifier dropped
(:func:`~cage_core.names.forms.written_title`), it

* has a letter and at least :data:`MIN_MAY_LINK_CHARS` characters (not a number, a symbol or
  an initial: ``"3M"`` and ``"U2"`` are names, ``"$"``, ``"40%"`` and ``"A"`` are not);
* holds none of :data:`CODE_CHARACTERS` (operators, brackets, markup and currency signs);
* is not one of :data:`GENERIC_WORDS` (function words and sentence openers), compared
  lower-cased.

:data:`MIN_MAY_LINK_CHARS` (2) is smaller than
:data:`~cage_core.names.forms.MIN_NAME_CHARS` (3) on purpose: it says whether a string is a
name at all, and a two-character name links where names are compared whole (two passages'
entity labels, "U2" and "U2"); where a name is looked for inside a text or keyed in the link
index, it needs :data:`~cage_core.names.forms.MIN_NAME_CHARS`.
"""

from __future__ import annotations

import re

from cage_core.lang.en import GENERIC_WORDS  # re-exported: the words that never link
from cage_core.names.forms import written_title

__all__ = [
    "CODE_CHARACTERS",
    "GENERIC_WORDS",
    "MIN_MAY_LINK_CHARS",
    "may_link",
]

MIN_MAY_LINK_CHARS = 2
"""Shorter than this (qualifier dropped, stripped): no name."""
CODE_CHARACTERS = frozenset("|=[]{}()<>$€£¥`_\\/#*@~^;")
"""Characters that occur in code, markup or amounts, never in a name as the link rules read
it (a name's parenthetical qualifier is dropped before this check:
:func:`~cage_core.names.forms.written_title`)."""

_LETTER = re.compile(r"[^\W\d_]")


def may_link(name: str) -> bool:
    """Whether ``name`` may link passages (module docstring)."""
    if not isinstance(name, str):
        return False
    bare = written_title(name)
    if len(bare) < MIN_MAY_LINK_CHARS or not _LETTER.search(bare):
        return False
    if any(c in CODE_CHARACTERS for c in bare):
        return False
    return bare.lower() not in GENERIC_WORDS
