"""Which strings may link passages: names, not code, markup, literals, paths, URLs, numbers or
generic words.

Parsers label what they cannot read as entities too: in package documentation spaCy's
recogniser returns ``"str | None"``, ``"= Annotated[str, Depends(get_username"``, ``"None"``,
``"io import StringIO"`` or ``"maxRedirects"``, in finance reports ``"$"``, and a chunk's
first-sentence subject can be a sentence opener (``"To"``, ``"Through"``). Such a string shared
by two passages says nothing about them, so :func:`may_link` keeps it out of every link
(shared entities, derived subjects, document subjects, the link index's names and so the
``via`` that names a link).

A string is *debris* (:func:`is_debris`) when it is

* a program literal: one of :data:`PROGRAM_LITERALS` (``None``, ``True``, ``null``, …,
  compared lower-cased), a number literal (``1e-9``, ``0xFFFFFFFF``, ``2j``) or one of the
  Python built-in names of :data:`BUILTIN_NAMES` as written (``str``, ``dict``, ``Ellipsis``;
  ``Set``, ``List`` and ``list`` are names);
* a code fragment: it holds one of :data:`CODE_CHARACTERS` (operators, brackets, markup and
  currency signs: ``x | None``, ``snake_case``, ``**kwargs``, ``[link]``), an operator of
  :data:`CODE_OPERATORS` (``::``, ``&&``), a call (``Depends(get_db)``: a word right
  before ``(``), a dotted identifier (``io.StringIO``, ``setup.py``, ``README.md``), an
  import statement (``io import StringIO``), or it is one lower camel-case word (``maxRedirects``,
  ``responseUrl``: two lower-case letters or more, then a capital followed by a lower-case letter);
* a user handle (``@tiangolo``: ``@`` is a code character);
* a path (``/usr/lib``, ``C:\\temp``, ``~/data``: slashes and ``~`` are code characters) or a
  command-line flag or attribute (``--persistent``, ``.write``: a leading ``-`` before a
  letter, a leading ``.`` before a lower-case letter; ``.NET`` is a name);
* a URL or address (``https://…``, ``www.python.org``, ``mailto:ada``: a lower-case scheme
  right before ``:``, or a dotted identifier).

Not debris, although dotted: initials and abbreviations, whose dotted parts have at most two
characters (``U.S.``, ``J.R.R. Tolkien``, ``Ph.D.``), and a capitalised name with a two- or
three-letter lower-case suffix (``Amazon.com``, ``Node.js``, ``Last.fm``). Upper camel case
(``FastAPI``, ``YouTube``, ``McDonald``), camel case inside a longer name (``Neil deGrasse
Tyson``) and a single lower-case letter before a capital (``iPhone``, ``eBay``, ``mRNA``) are
names.

A title or heading is judged as a whole (:func:`is_debris_title`): a file name, an address, a
path, a name in its namespace, an identifier or a formula among its words is what it is about
("Publishing on crates.io", "UDP/datagram sockets", "Stdin in std::io - Rust", "Limit account
nonce to 2^64-1"), not debris, and so is one slash between two words ("HTTP/2"); a bar between
spaces parts a page's title from its site's, each part judged alone.

A string may link (:func:`may_link`) when it is no debris and, its qualifier dropped
(:func:`~cage_core.names.forms.written_title`), it

* has a letter and at least :data:`MIN_MAY_LINK_CHARS` characters (not a number, a symbol or
  an initial: ``"3M"`` and ``"U2"`` are names, ``"$"``, ``"40%"`` and ``"A"`` are not);
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
    "BUILTIN_NAMES",
    "CODE_OPERATORS",
    "GENERIC_WORDS",
    "MIN_MAY_LINK_CHARS",
    "PROGRAM_LITERALS",
    "is_debris",
    "is_debris_title",
    "may_link",
]

MIN_MAY_LINK_CHARS = 2
"""Shorter than this (qualifier dropped, stripped): no name."""
CODE_CHARACTERS = frozenset("|=[]{}()<>$€£¥`_\\/#*@~^;")
"""Characters that occur in code, markup, paths, handles or amounts, never in a name as the
link rules read it (a name's parenthetical qualifier is dropped before this check:
:func:`~cage_core.names.forms.written_title`)."""
CODE_OPERATORS: tuple[str, ...] = ("::", "&&")
"""Operators made of characters a name may hold one of (``:``, ``&``); the other operators
hold a code character."""
PROGRAM_LITERALS = frozenset({"none", "true", "false", "null", "nil", "undefined", "nan"})
"""Literals of Python, JSON and JavaScript, lower-cased: never a name on their own."""
BUILTIN_NAMES = frozenset(
    "str int float bool bytes bytearray dict tuple frozenset self cls args kwargs "
    "Ellipsis NotImplemented".split()
)
"""Python's built-in types and constants and its usual parameter names, compared as written
(not ``list``, ``set``, ``object``: English words, and a folder may be named so)."""

_LETTER = re.compile(r"[^\W\d_]")
_NUMBER_LITERAL = re.compile(
    r"[-+]?(?:0[xob][0-9a-f_]+|(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?j?)", re.IGNORECASE
)
_CALL = re.compile(r"\w\(")
_IMPORT = re.compile(r"(?:from\s+)?(?:[\w.]+\s+)?import\s+[\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+)*")
"""An import statement or its tail: ``io import StringIO``, ``from x import y, z``."""
_SCHEME = re.compile(r"(?<![\w.-])[a-z][a-z0-9+.-]*:(?=[^\s:])")
"""A lower-case URL scheme or ``key:`` right before a non-space (``https://``, ``mailto:x``)."""
_DOTTED = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_SHORT_PARTS = re.compile(r"\w{1,2}(?:\.\w{1,2})+")
"""Initials and abbreviations: ``U.S``, ``J.R.R``, ``Ph.D``."""
_NAME_DOT_SUFFIX = re.compile(r"[A-Z][a-z]+\w*\.[a-z]{2,3}")
"""A capitalised name with a short lower-case suffix: ``Amazon.com``, ``Node.js``."""
_LOWER_CAMEL = re.compile(r"[a-z]{2,}[a-z\d]*[A-Z][A-Za-z\d]*")
_CAMEL_HUMP = re.compile(r"[A-Z][a-z]")
_FLAG = re.compile(r"-{1,2}[A-Za-z]|\.[a-z_]")
_NAMED_THING = re.compile(
    r"(?<!\S)\S*(?:[/\\]|(?<=\w)(?:\.|::)(?=[A-Za-z_])|(?<=[^\W_])_(?=[^\W_])|(?<=\d)\^(?=\d))\S*"
)
"""A word of a title that names a thing as it is written: a file name, an address or a path (it
holds a slash, or a dot between a letter or digit and a letter: ``crates.io``,
``UDP/datagram``, ``/etc/hosts``), a name in its namespace or an identifier (``std::io``,
``URI::Escape``, ``take_alloc_error_hook``), or a number written as a formula (``2^64-1``)."""
_TITLE_SEPARATOR = re.compile(r"\s+\|\s+")
"""A bar between spaces, which parts a web page's title from its site's name."""
_SLASHED_NAME = re.compile(r"[^\W_]+/[^\W_]+")
"""One slash between two words: a name (``HTTP/2``, ``TCP/IP``, ``I/O``), not a path."""


def is_debris(name: str) -> bool:
    """Whether ``name`` is debris: a literal, code fragment, handle, path, flag or URL (module
    docstring). Not a string: debris."""
    if not isinstance(name, str):
        return True
    text = name.strip()
    if text.lower() in PROGRAM_LITERALS or text in BUILTIN_NAMES or _NUMBER_LITERAL.fullmatch(text):
        return True
    if any(c in CODE_CHARACTERS for c in written_title(text)) or _FLAG.match(text):
        return True
    if any(op in text for op in CODE_OPERATORS):
        return True
    if _CALL.search(text) or _IMPORT.fullmatch(text) or _SCHEME.search(text):
        return True
    if _LOWER_CAMEL.fullmatch(text) and _CAMEL_HUMP.search(text):
        return True
    return any(
        not _SHORT_PARTS.fullmatch(dotted) and not _NAME_DOT_SUFFIX.fullmatch(dotted)
        for dotted in _DOTTED.findall(text)
    )


def is_debris_title(title: str) -> bool:
    """Whether a title or heading is debris as a whole. A title names what it is about among
    its words, as it is written (:data:`_NAMED_THING`: "Publishing on crates.io", "Cargo.toml
    vs Cargo.lock", "UDP/datagram sockets", "Stdin in std::io - Rust", "Limit account nonce
    to 2^64-1"): where it holds other words (its qualifier dropped), those words are judged
    by :func:`is_debris`, and the whole by the rules that read code around them (a call, an
    import: ``import io.StringIO``). A title that is such a word alone is judged as a name
    (``setup.py``, ``/usr/lib``: debris), but for one slash between two words (``HTTP/2``). A
    bar between spaces parts a page's title from its site's ("Test runner | Node.js
    Documentation"): each part is judged so, and one part debris makes the whole (``x |
    None``, a type)."""
    if not isinstance(title, str):
        return True
    text = title.strip()
    if len(parts := _TITLE_SEPARATOR.split(text)) > 1:  # "Test runner | Node.js Documentation"
        return any(is_debris_title(part) for part in parts)
    rest = _NAMED_THING.sub(" ", text)
    if rest == text or not _LETTER.search(written_title(rest)):
        return not _SLASHED_NAME.fullmatch(text) and is_debris(text)
    if _CALL.search(text) or _IMPORT.fullmatch(text):
        return True
    return is_debris(rest)


def may_link(name: str) -> bool:
    """Whether ``name`` may link passages (module docstring)."""
    if not isinstance(name, str) or is_debris(name):
        return False
    bare = written_title(name)
    if len(bare) < MIN_MAY_LINK_CHARS or not _LETTER.search(bare):
        return False
    return bare.lower() not in GENERIC_WORDS
