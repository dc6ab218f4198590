"""Which strings may link passages: names, not code, markup, numbers or generic words.

Parsers label what they cannot read as entities too: in package documentation spaCy's
recogniser returns ``"str | None"`` or ``"= Annotated[str, Depends(get_username"``, in
finance reports ``"$"``, and a chunk's first-sentence subject can be a sentence opener
(``"To"``, ``"Through"``). Such a string shared by two passages says nothing about them, so
:func:`is_link_name` keeps it out of every link (shared entities, derived subjects,
document subjects). A string is a link name when it

* has a letter and at least ``MIN_CHARS`` characters (not a number, a symbol or an
  initial: ``"3M"`` and ``"U2"`` are names, ``"$"``, ``"40%"`` and ``"A"`` are not);
* holds none of :data:`CODE_CHARACTERS` (operators, brackets, markup and currency signs);
* is not one of :data:`GENERIC_WORDS` (function words and sentence openers), compared
  lower-cased.
"""

from __future__ import annotations

import re

from cage_core.lang.en import GENERIC_WORDS  # re-exported: the words that never link

__all__ = [
    "CODE_CHARACTERS",
    "GENERIC_WORDS",
    "MIN_CHARS",
    "is_link_name",
]

MIN_CHARS = 2
"""Shorter than this (stripped): no name."""
CODE_CHARACTERS = frozenset("|=[]{}()<>$€£¥`_\\/#*@~^;")
"""Characters that occur in code, markup or amounts, never in a name as the link rules read
it (a name's parenthetical qualifier is dropped before this check: :func:`bare_title`)."""

_LETTER = re.compile(r"[^\W\d_]")
_PARENTHETICAL = re.compile(r"\s*\([^)]*\)\s*$")


def is_link_name(name: str) -> bool:
    """Whether ``name`` may link passages (module docstring)."""
    if not isinstance(name, str):
        return False
    bare = _PARENTHETICAL.sub("", name).strip()
    if len(bare) < MIN_CHARS or not _LETTER.search(bare):
        return False
    if any(c in CODE_CHARACTERS for c in bare):
        return False
    return bare.lower() not in GENERIC_WORDS
