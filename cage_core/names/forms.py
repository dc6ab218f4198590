"""The forms of a name: its words, its title without a qualifier, and its normal form.

* :func:`words` — the maximal runs of ``\\w`` of a text;
* :func:`written_title` — a title without its trailing parenthetical qualifier, as written
  (``"Kiss and Tell (1945 film)"`` → ``"Kiss and Tell"``); :func:`bare_title` is its
  lower-cased form (``"kiss and tell"``), the form titles are looked for in texts in;
* :func:`normal_name` — the form names are compared in by the link index and the document
  links: the words of the bare title joined by one space (``"Lincoln's Inn"`` →
  ``"lincoln s inn"``), or "" when the name is shorter than :data:`MIN_NAME_CHARS`
  characters, has more than :data:`MAX_NAME_WORDS` words or more than
  :data:`MAX_NAME_CHARS` characters; :func:`is_normal_name` says whether a stored name is
  already in it, and :func:`normal_text` is a whole text in that form (no bounds), where
  normal forms are looked for as ``f" {name} "``.

A name shorter than :data:`MIN_NAME_CHARS` (3) characters, in the form it is compared in,
makes no link by being named: a bare title is not looked for in texts, a normal form is ""
(:mod:`cage_core.names.may_link` has a smaller minimum for another question: whether a
string is a name at all).
"""

from __future__ import annotations

import functools
import re

__all__ = [
    "MAX_NAME_CHARS",
    "MAX_NAME_WORDS",
    "MIN_NAME_CHARS",
    "NAME_CHECK_CACHE",
    "bare_title",
    "is_normal_name",
    "normal_name",
    "normal_text",
    "words",
    "written_title",
]

MIN_NAME_CHARS = 3
"""Names shorter than this, in the form they are compared in (a bare title looked for in a
text, a normal form), never link."""
MAX_NAME_WORDS = 12
"""Names of more words than this are no names (a sentence, not an entity)."""
MAX_NAME_CHARS = 200
"""Names longer than this have no normal form (and stored names longer are rejected)."""
NAME_CHECK_CACHE = 1 << 16
"""Names whose :func:`is_normal_name` answer is remembered per process."""

_WORD = re.compile(r"\w+")
_WORD_CHAR = re.compile(r"\w")
_ASCII_NON_WORD_TO_SPACE = str.maketrans(
    {c: " " for c in map(chr, range(128)) if not _WORD_CHAR.match(c)}
)
_PARENTHETICAL = re.compile(r"\s*\([^)]*\)\s*$")
_ASCII_NORMAL_NAME = re.compile(r"[a-z0-9_]+(?: [a-z0-9_]+)*")
"""ASCII text in :func:`normal_name` form, but for its length bounds: lower-case ``\\w`` runs
joined by one space (no parenthetical, nothing to lower-case or split)."""


def words(text: str) -> list[str]:
    """The words of ``text``: its maximal runs of ``\\w``, i.e. ``re.findall(r"\\w+", text)``.

    ASCII text is split by ``str.translate`` + ``str.split`` (a third faster, same result).
    """
    if text.isascii():
        return text.translate(_ASCII_NON_WORD_TO_SPACE).split()
    return _WORD.findall(text)


def written_title(title: str) -> str:
    """``"Kiss and Tell (1945 film)"`` → ``"Kiss and Tell"``: the title as written, qualifier
    dropped (:func:`bare_title` is its lower-cased form)."""
    return _PARENTHETICAL.sub("", title).strip()


def bare_title(title: str) -> str:
    """``"Kiss and Tell (1945 film)"`` → ``"kiss and tell"``."""
    return written_title(title).lower()


def normal_name(name: str) -> str:
    """``name`` in the form names are compared in by the link index and the document links
    (:mod:`cage_core.expansion.index`): lower-cased words (``\\w+`` runs) joined by one space, a
    trailing parenthetical dropped; "" if it cannot link (fewer than ``MIN_NAME_CHARS``
    characters, more than ``MAX_NAME_WORDS`` words or ``MAX_NAME_CHARS`` characters)."""
    if not isinstance(name, str):
        return ""
    tokens = words(bare_title(name))
    normal = " ".join(tokens)
    if len(normal) < MIN_NAME_CHARS or len(tokens) > MAX_NAME_WORDS or len(normal) > MAX_NAME_CHARS:
        return ""
    return normal


def normal_text(text: str) -> str:
    """``text`` lower-cased, as its ``\\w+`` words joined by one space: the form a text is
    searched in for names in :func:`normal_name` form."""
    return " ".join(words(text.lower()))


@functools.lru_cache(maxsize=NAME_CHECK_CACHE)
def is_normal_name(name: str) -> bool:
    """``normal_name(name) == name``, remembered: stored names repeat (a few are very common).
    An ASCII name is checked by a pattern and the bounds (the same answer, without normalising
    it: most names of a store are read once; "" is its own form)."""
    if name.isascii():
        return not name or (
            MIN_NAME_CHARS <= len(name) <= MAX_NAME_CHARS
            and name.count(" ") < MAX_NAME_WORDS
            and _ASCII_NORMAL_NAME.fullmatch(name) is not None
        )
    return normal_name(name) == name
