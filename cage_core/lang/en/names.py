"""How an English name is also written: the articles, titles, suffixes and post-nominal
letters it also goes without, its short forms (:func:`shortened_names`, one
:class:`AliasStyle` for ranking and one for the link index) and the words that are never a
name on their own."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from cage_core.lang.en.string_rules import STRING_RULES

__all__ = [
    "CLERGY_TITLES",
    "EXPANSION_ALIASES",
    "GENERIC_WORDS",
    "HONORIFICS",
    "LEADING_DETERMINERS",
    "NAME_SUFFIXES",
    "POST_NOMINAL",
    "RANKING_ALIASES",
    "SAINT_TITLES",
    "DEFINITE_ARTICLE",
    "AliasStyle",
    "shortened_names",
]

LEADING_DETERMINERS = frozenset({"the", "a", "an"})
"""Articles an entity span is also known without ("the Beatles";
:mod:`cage_core.graphs.builder`)."""
DEFINITE_ARTICLE = "the"
"""Writes a one-word title as a reference to the document ("the FAQ", "the encryption
chapter"; :func:`cage_core.expansion.title_route.titles_written`)."""
HONORIFICS = frozenset({"sir", "dame", "lord", "lady", "dr"})
"""Leading titles a full name also goes without ("Sir Arthur Conan Doyle")."""
CLERGY_TITLES = frozenset({"rev", "reverend"})
"""Leading clergy titles; dropped from subjects for ranking only (:data:`RANKING_ALIASES`)."""
SAINT_TITLES = frozenset({"saint", "st"})
"""Leading "Saint"; dropped from names for the link index only (:data:`EXPANSION_ALIASES`):
"St Louis Cardinals" is no "Louis Cardinals" to the ranking."""
NAME_SUFFIXES = frozenset({"jr", "sr", "inc", "ltd", "llc", "corp", "plc"})
"""Trailing words a full name also goes without ("Paul Manafort Jr", "Acme Group Inc")."""
POST_NOMINAL = re.compile(r"[A-Z][A-Za-z]*[A-Z]")
"""Post-nominal letters ("MBE", "FRSL", "KStJ"), dropped from the end of a full name."""


@dataclass(frozen=True)
class AliasStyle:
    """How :func:`shortened_names` shortens a name (one style for ranking, one for expansion).

    Attributes:
        titles: leading words the name also goes without (lower case, compared without a
            trailing ".").
        every_title: drop every leading title while more than two words remain (else at most
            one).
        suffixes: drop trailing :data:`NAME_SUFFIXES` and :data:`POST_NOMINAL` letters while
            more than two words remain.
        min_words, max_words: the shortened name makes short forms when it has this many
            words (``max_words`` 0: no upper bound).
        letters_only: the short forms need every word alphabetic and capitalised (else only
            capitalised).
        partial: the short forms are the first and last word, the first two, the last two and,
            with four or more words, the first and last two (else the first and last word only).
    """

    titles: frozenset[str]
    every_title: bool
    suffixes: bool
    min_words: int
    max_words: int
    letters_only: bool
    partial: bool


RANKING_ALIASES = AliasStyle(
    HONORIFICS | CLERGY_TITLES,
    every_title=True,
    suffixes=True,
    min_words=3,
    max_words=0,
    letters_only=True,
    partial=True,
)
"""How subjects are shortened for ranking (:func:`~cage_core.names.subjects.subject_aliases`)."""
EXPANSION_ALIASES = AliasStyle(
    HONORIFICS | SAINT_TITLES,
    every_title=False,
    suffixes=False,
    min_words=3,
    max_words=5,
    letters_only=False,
    partial=False,
)
"""How names are shortened for the link index (:func:`~cage_core.expansion.index.name_aliases`)."""


def shortened_names(
    words: Sequence[str], style: AliasStyle, rules: frozenset[str] = STRING_RULES
) -> tuple[list[str], list[str]]:
    """``(core, short)`` of a name given as its ``words``: ``core`` the words left without
    leading titles (rule ``honorifics``) and trailing suffixes (rule ``name_suffixes``) by
    ``style``, ``short`` its short forms (rule ``short_forms``; see :class:`AliasStyle`), each
    a string of words joined by spaces, in the case given."""
    core = list(words)
    if "honorifics" in rules:
        while len(core) > 2 and core[0].lower().rstrip(".") in style.titles:
            core = core[1:]
            if not style.every_title:
                break
    if style.suffixes and "name_suffixes" in rules:
        while len(core) > 2 and (
            core[-1].rstrip(".").lower() in NAME_SUFFIXES or POST_NOMINAL.fullmatch(core[-1])
        ):
            core = core[:-1]
    n = len(core)
    short: list[str] = []
    sized = n >= style.min_words and (not style.max_words or n <= style.max_words)
    if (
        "short_forms" in rules
        and sized
        and all(
            (w.isalpha() and w[0].isupper()) if style.letters_only else w[0].isupper() for w in core
        )
    ):
        short.append(f"{core[0]} {core[-1]}")
        if style.partial:
            short += [" ".join(core[:2]), " ".join(core[-2:])]
            if n >= 4:
                short.append(f"{core[0]} {core[-2]} {core[-1]}")
    return core, short


GENERIC_WORDS = frozenset(
    """
a about above after again also although an and another any as at because before below
besides between both but by despite during each either first for from further furthermore
hence here however if in including into it its moreover nevertheless next no nor not of on
once only or other otherwise over overall since so some such than that the their then there
thereby therefore these they this those though through throughout thus to together under
unlike until upon we what when where whereas whether which while who with within without
yet additionally finally meanwhile similarly consequently specifically notably
""".split()
)
"""Lower-cased words that are never a name on their own (:mod:`cage_core.names.may_link`)."""
