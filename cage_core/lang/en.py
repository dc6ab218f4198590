"""English language data: the word lists, the named string rules and the name shortening
that subjects (:mod:`cage_core.ranking.subjects`), the link index
(:mod:`cage_core.expansion.index`), pronoun resolution (:mod:`cage_core.graphs.pronouns`), the
graph builder (:mod:`cage_core.graphs.parse`) and pool BM25 (:mod:`cage_core.ranking.pool_bm25`) read.

One list per concept. Where two consumers read *different* lists for what looks like one
concept, each list is named for what it is and the difference is stated (the rankings and
expansions of cage-rag 0.3 are kept bit for bit):

* leading titles a name also goes without: :data:`HONORIFICS` for both, plus
  :data:`CLERGY_TITLES` ("Rev") when a subject is shortened for ranking and
  :data:`SAINT_TITLES` ("St", "Saint") when a name is shortened for the link index
  (:data:`RANKING_ALIASES`, :data:`EXPANSION_ALIASES`).
* pronouns: :data:`SUBJECT_PRONOUNS` (a first-sentence subject never starts with one) are
  the subject and possessive forms of every person; :data:`PRONOUNS` (what pronoun
  resolution links to an entity) the third-person forms only.

String rules (:data:`STRING_RULES`) are named so a run can switch each one off and measure
it (``CageConfig(string_rules=...)``, ``cage eval --ablate-rule NAME``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "MONTHS",
    "GENERIC_WORDS",
    "CLERGY_TITLES",
    "COPULAS",
    "EXPANSION_ALIASES",
    "GROUP_PRONOUNS",
    "HONORIFICS",
    "LEADING_DETERMINERS",
    "NAME_SUFFIXES",
    "NEVER_FIRST_WORDS",
    "PERSON_PRONOUNS",
    "POST_NOMINAL",
    "PRONOUNS",
    "RANKING_ALIASES",
    "SAINT_TITLES",
    "STOP_WORDS",
    "STRING_RULES",
    "SUBJECT_END_VERBS",
    "SUBJECT_PRONOUNS",
    "THING_PRONOUNS",
    "TITLE_FUNCTION_WORDS",
    "AliasStyle",
    "check_rules",
    "shortened_names",
]

# -- pronouns ----------------------------------------------------------------------------------
PERSON_PRONOUNS = frozenset({"he", "him", "his", "himself", "she", "her", "hers", "herself"})
THING_PRONOUNS = frozenset({"it", "its", "itself"})
GROUP_PRONOUNS = frozenset({"they", "them", "their", "theirs", "themselves"})
PRONOUNS = PERSON_PRONOUNS | THING_PRONOUNS | GROUP_PRONOUNS
"""Every pronoun pronoun resolution links to an entity; an entity span made only of these is
no node (:mod:`cage_core.graphs.pronouns`, :mod:`cage_core.graphs.parse`)."""
SUBJECT_PRONOUNS = frozenset(
    {
        "he",
        "she",
        "it",
        "they",
        "we",
        "i",
        "you",
        "his",
        "her",
        "its",
        "their",
        "our",
    }
)
"""Subject and possessive pronouns of every person: a first-sentence subject never starts
with one, not even a title-cased one (:mod:`cage_core.ranking.subjects`)."""

# -- first-sentence subjects -------------------------------------------------------------------
NEVER_FIRST_WORDS = SUBJECT_PRONOUNS | frozenset(
    {
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "in",
        "on",
        "at",
        "for",
        "from",
        "by",
        "with",
        "during",
        "after",
        "before",
        "since",
        "while",
        "when",
        "where",
        "as",
        "if",
        "unlike",
        "however",
        "although",
        "though",
        "also",
        "then",
        "thus",
        "today",
        "later",
        "early",
        "born",
        "according",
        "one",
        "some",
        "many",
        "most",
        "all",
        "each",
        "every",
        "both",
        "several",
        "other",
        "another",
        "such",
        "no",
        "not",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "first",
        "second",
        "third",
        "late",
    }
)
"""Words a subject never starts with (pronouns, prepositions, sentence adverbs, ...), unless
the subject is a title-cased name followed by a copula ("For Against is ...")."""
COPULAS = frozenset({"is", "was", "are", "were"})
TITLE_FUNCTION_WORDS = frozenset(
    {
        "of",
        "the",
        "a",
        "an",
        "and",
        "or",
        "in",
        "on",
        "for",
        "to",
        "at",
        "by",
        "with",
        "from",
        "de",
        "la",
        "le",
        "von",
        "van",
        "du",
        "del",
    }
)
"""Lower-case words a title-cased name may hold ("In the Realm *of the* Hackers")."""
SUBJECT_END_VERBS = frozenset(
    {
        "is",
        "was",
        "are",
        "were",
        "has",
        "had",
        "have",
        "refers",
        "may",
        "can",
        "will",
        "became",
        "becomes",
        "served",
        "serves",
        "won",
        "plays",
        "played",
        "married",
        "died",
        "lived",
        "wrote",
        "founded",
        "began",
        "represents",
        "represented",
        "competes",
        "consists",
        "includes",
        "contains",
        "describes",
        "covers",
        "lies",
        "stands",
        "runs",
        "operates",
        "features",
        "premiered",
        "aired",
        "airs",
        "follows",
        "tells",
        "stars",
        "starred",
        "centers",
        "centres",
    }
)
"""Words that end a first-sentence subject ("Marie Curie *was* ...")."""
LEADING_DETERMINERS = frozenset({"the", "a", "an"})
"""Articles an entity span is also known without ("the Beatles"; :mod:`cage_core.graphs.parse`)."""

# -- names -------------------------------------------------------------------------------------
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

# -- BM25 --------------------------------------------------------------------------------------
STOP_WORDS = frozenset(
    (
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
    )
)
"""The English stop words of ``bm25s`` (Lucene's list; :mod:`cage_core.ranking.pool_bm25`)."""

# -- named string rules ------------------------------------------------------------------------
STRING_RULES: frozenset[str] = frozenset(
    {
        "quoted_subject",
        "first_sentence_subject",
        "entity_subject",
        "honorifics",
        "name_suffixes",
        "short_forms",
        "also_known_as",
    }
)
"""The string rules of the untitled-pool ranking that a run can switch off, by name:

* ``first_sentence_subject``: a passage without title or metadata is about the leading name
  of its first sentence (:func:`~cage_core.ranking.subjects.first_sentence_subject`);
* ``quoted_subject``: ... or about the quoted name it opens with ("On My Mind" is a song);
* ``entity_subject``: failing those, about its most central named entity;
* ``honorifics``: a subject also goes without a leading title (:data:`HONORIFICS`, ...);
* ``name_suffixes``: ... and without trailing suffixes and post-nominal letters;
* ``short_forms``: a full name of three or more capitalised words also goes by shorter forms;
* ``also_known_as``: a passage also goes by the names its opening gives it ("known
  professionally as ...").
"""


def check_rules(rules: object, name: str = "string_rules") -> frozenset[str]:
    """``rules`` as a frozenset of :data:`STRING_RULES` names; TypeError/ValueError otherwise."""
    if not isinstance(rules, (frozenset, set)) or not all(isinstance(r, str) for r in rules):
        raise TypeError(f"{name} must be a frozenset of rule names, got {type(rules).__name__}")
    unknown = sorted(set(rules) - STRING_RULES)
    if unknown:
        raise ValueError(
            f"{name} has unknown rules {unknown}; the rules are {sorted(STRING_RULES)}"
        )
    return frozenset(rules)


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
"""How subjects are shortened for ranking (:func:`~cage_core.ranking.subjects.subject_aliases`)."""
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


# -- link names (cage_core.ranking.link_names) ----------------------------------------
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
"""Lower-cased words that are never a name on their own (:mod:`cage_core.ranking.link_names`)."""


MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
"""Month names and their abbreviations, folded, to their number (the dates a question writes
to name a document: :func:`cage_core.names.documents.dates`)."""
