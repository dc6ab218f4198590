"""What a passage is *about*, when it has a title and when it has none.

Linking passages (bridge coherence, the link index) needs each passage's subject: the name
other passages use when they refer to it. Benchmark passages carry their Wikipedia title;
most users' chunks do not. :func:`derive_subject` returns the first of these that exists:

1. ``"title"`` — the passage's title (``Passage.title``);
2. ``"metadata"`` — the first name among the metadata keys of :data:`SUBJECT_METADATA_KEYS`,
   in that order: document titles (``title``, ``document_title``, ``doc_title``), then the
   top Markdown heading (``Header 1``, ``h1``, as LangChain's ``MarkdownHeaderTextSplitter``
   writes it), each with its markup removed and none when only markup or debris is left
   (:func:`~cage_core.names.sources.heading_name`: a heading that is a row of badges is no
   heading); then what the path of ``source``, ``file_name``, ``filename`` or ``file_path``
   names (:func:`~cage_core.names.sources.path_name`: the file name's stem,
   ``"docs/marie_curie.pdf"`` → ``"marie curie"``, but never a generic file name such as
   ``README`` or ``CHANGELOG``: then its folder or package, ``"site-packages/fastapi/README.md"``
   → ``"fastapi"``); then a section heading (``section``, ``heading``, ``Header 2``), read as
   the titles are;
3. ``"first_sentence"`` — the subject of the first sentence, Wikipedia style. A text that
   opens with a quoted name followed by a listed verb, a parenthesis or a comma
   (``"On My Mind" is a song``) has that name. Otherwise, the leading run of words (quotes
   dropped; a word may hold hyphens and en dashes, "2016–17") up to where the sentence goes
   on with a verb (a listed copula or verb such as "is", "was", "represents", or a
   lower-case past form in "-ed") or a parenthesis ("(born", "(1862–1918)"), comma,
   semicolon or dash; trailing lower-case words ("... football team") are dropped, unless
   that would leave one word of a two-word name ("Silene menziesii"), and so is a leading
   "The". It must then start with a capital letter or digit, have at most
   :data:`MAX_SUBJECT_WORDS` words, not be only numbers, and not start with a pronoun,
   preposition or sentence adverb ("He", "In 1990", "However") — except a title-cased name
   followed by a copula ("For Against is", "This Is Elvis was"). A subject that is debris
   (:func:`~cage_core.names.may_link.is_debris`: a literal, code, a path or a URL) is none;
4. ``"entity"`` — the most central named entity of the passage's light graph: the
   non-numeric entity whose label may link (:func:`~cage_core.names.may_link.may_link`) and
   occurs most often in the text (whole words, case-insensitive), ties by the earliest
   occurrence, then by graph order;
5. ``""`` — nothing found (an empty subject).

A derived subject is often a fuller name than other passages use ("Sela Ann Ward" for
"Sela Ward", "Barton Lee Hazlewood" for "Lee Hazlewood"): :func:`subject_aliases` gives the
shorter forms a name of three or more capitalised words also goes by, and
:func:`also_known_as` the other names the opening gives ("known professionally as Daryl
Hall").

Deterministic and cheap: string operations on the text and the labels of a graph that
was built anyway (no extra parse at query time).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from cage_core.graphs.passage_graph import PassageGraph
from cage_core.graphs.pronouns import NUMERIC_ENTITY_TYPES
from cage_core.lang.en import (
    COPULAS,
    NEVER_FIRST_WORDS,
    RANKING_ALIASES,
    STRING_RULES,
    SUBJECT_END_VERBS,
    SUBJECT_PRONOUNS,
    TITLE_FUNCTION_WORDS,
    shortened_names,
)
from cage_core.names.may_link import is_debris, may_link
from cage_core.names.sources import heading_name, path_name
from cage_core.passage import Passage

__all__ = [
    "HEADING_METADATA_KEYS",
    "MAX_SUBJECT_CHARS",
    "MAX_SUBJECT_WORDS",
    "MIN_ALIAS_SOURCE_WORDS",
    "OPENING_CHARS",
    "SECTION_METADATA_KEYS",
    "SOURCE_METADATA_KEYS",
    "SUBJECT_CACHE_SIZE",
    "SUBJECT_METADATA_KEYS",
    "TITLE_METADATA_KEYS",
    "Subject",
    "SubjectOrigin",
    "also_known_as",
    "central_entity",
    "derive_subject",
    "first_sentence_subject",
    "passage_subject",
    "subject_aliases",
]

SubjectOrigin = Literal["title", "metadata", "first_sentence", "entity", ""]

TITLE_METADATA_KEYS: tuple[str, ...] = ("title", "document_title", "doc_title")
HEADING_METADATA_KEYS: tuple[str, ...] = ("Header 1", "h1")
SOURCE_METADATA_KEYS: tuple[str, ...] = ("source", "file_name", "filename", "file_path")
SECTION_METADATA_KEYS: tuple[str, ...] = ("section", "heading", "Header 2")
SUBJECT_METADATA_KEYS: tuple[str, ...] = (
    TITLE_METADATA_KEYS + HEADING_METADATA_KEYS + SOURCE_METADATA_KEYS + SECTION_METADATA_KEYS
)
"""Metadata keys read for a subject, in order of preference (see the module docstring)."""

MAX_SUBJECT_WORDS = 8
"""A first-sentence subject has at most this many words (longer spans are no name)."""
MAX_SUBJECT_CHARS = 120
"""Subjects (from any origin) longer than this are cut to this many characters."""
MIN_ALIAS_SOURCE_WORDS = RANKING_ALIASES.min_words
"""A subject of at least this many capitalised words also goes by shorter forms
(:func:`subject_aliases`)."""
OPENING_CHARS = 400
"""Only the first this many characters of the text are read for the first sentence."""
SUBJECT_CACHE_SIZE = 8192
"""How many texts' first-sentence subject and central entity are kept per process (LRU,
thread-safe): a warm query over known untitled passages derives none again."""

_PUNCTUATION_BOUNDARIES = "([,;:–—"
"""Characters that end a first-sentence subject ("Marie Curie *(* born ...")."""
_RUN = re.compile(r"[^\W_][\w'’.\-&–]*(?:[ \t]+[^\W_][\w'’.\-&–]*)*")
"""The opening run of words, up to the first punctuation that is not inside a word."""
_QUOTED_OPENING = re.compile(r'\s*["“]([^"“”\n]{1,120})["”]\s*([(,]|\w+)')
_ALSO_KNOWN_AS = re.compile(
    r"(?:known|referred to|abbreviated|called)(?: professionally| simply| mononymously)?"
    r" (?:as|by (?:the|his|her|its) (?:stage |ring |pen )?name) [\"“]?"
    r"([A-Z0-9][\w'’.\-&]*(?:[ \t]+(?:[A-Z0-9][\w'’.\-&]*|of|the|and|de|von|van))*)"
)
_QUOTES = re.compile('["“”«»]')
_NUMBER = re.compile(r"[\d.,–\-]+")


@dataclass(frozen=True)
class Subject:
    """A passage's subject and where it came from.

    Attributes:
        name: the subject ("" when none was found), at most ``MAX_SUBJECT_CHARS`` long.
        origin: which rule of the module docstring gave it ("" when none did).
        key: the metadata key it was read from (``origin == "metadata"`` only, else "").
    """

    name: str
    origin: SubjectOrigin
    key: str = ""


def derive_subject(
    passage: Passage,
    graph: PassageGraph | None = None,
    metadata: Mapping[str, Any] | None = None,
    rules: frozenset[str] = STRING_RULES,
) -> Subject:
    """The subject of ``passage`` by the rules of the module docstring, with its origin.

    Args:
        passage: the passage; its title wins when not blank.
        graph: its passage graph (light or full), for the entity fallback; optional.
        metadata: the chunk's metadata (e.g. a LangChain document's), read for the keys of
            :data:`SUBJECT_METADATA_KEYS`; optional. Non-string values are ignored.
        rules: the :data:`~cage_core.lang.en.STRING_RULES` applied (default all):
            ``first_sentence_subject`` (rule 3), ``quoted_subject`` (its quoted-name case),
            ``entity_subject`` (rule 4).
    """
    title = _clean(passage.title)
    if title:
        return Subject(title, "title")
    for key in SUBJECT_METADATA_KEYS:
        value = metadata.get(key) if metadata is not None else None
        name = _clean(path_name(value) if key in SOURCE_METADATA_KEYS else heading_name(value))
        if name:
            return Subject(name, "metadata", key)
    name = _clean(
        first_sentence_subject(passage.text, "quoted_subject" in rules)
        if "first_sentence_subject" in rules
        else ""
    )
    if name and not is_debris(name):
        return Subject(name, "first_sentence")
    if graph is not None and "entity_subject" in rules:
        name = _clean(central_entity(graph, passage.text))
        if name:
            return Subject(name, "entity")
    return Subject("", "")


def passage_subject(
    passage: Passage,
    graph: PassageGraph | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> str:
    """The subject's name alone (see :func:`derive_subject`); "" when none was found."""
    return derive_subject(passage, graph, metadata).name


@functools.lru_cache(maxsize=SUBJECT_CACHE_SIZE)
def first_sentence_subject(text: str, quoted: bool = True) -> str:
    """The subject of the first sentence of ``text`` (rule 3 of the module docstring), or "";
    ``quoted=False`` skips its quoted-name case (rule ``quoted_subject``).

    >>> first_sentence_subject("Marie Curie (born Maria Skłodowska; 1867–1934) was a physicist.")
    'Marie Curie'
    >>> first_sentence_subject("The 1953 Georgia Tech football team represented the institute.")
    '1953 Georgia Tech'
    >>> first_sentence_subject("He was born in Warsaw.")
    ''
    """
    opened = _QUOTED_OPENING.match(text[:OPENING_CHARS]) if quoted else None
    if opened is not None:
        name = opened.group(1).strip().rstrip(".,")
        if name[:4].lower() == "the ":
            name = name[4:].lstrip()
        after = opened.group(2)
        words = name.split()
        if (
            words
            and len(words) <= MAX_SUBJECT_WORDS
            and _capitalised(words[0])
            and (after in ("(", ",") or _is_verb(after))
        ):
            return name
    opening = _QUOTES.sub("", text[:OPENING_CHARS]).lstrip()
    run = _RUN.match(opening)
    if run is None:
        return ""
    words = run.group().split()[: MAX_SUBJECT_WORDS + 2]
    n = next((i for i, w in enumerate(words) if i and _is_verb(w)), len(words))
    if n == len(words):  # no verb: the run must end at punctuation that closes a subject
        rest = opening[run.end() :].lstrip(" \t")
        if n < len(run.group().split()) or not (
            rest[:1] in _PUNCTUATION_BOUNDARIES or rest.startswith("- ")
        ):
            return ""
    subject = words[:n]
    titled = n < len(words) and words[n] in COPULAS and _title_cased(subject)
    kept = list(subject)
    while subject and not _capitalised(subject[-1]):  # "... football team", "... of"
        subject.pop()
    if len(subject) == 1 and len(kept) == 2 and kept[1].isalpha():  # "Silene menziesii"
        subject = kept
    if subject and subject[0].lower() == "the":
        subject.pop(0)
    if not subject or len(subject) > MAX_SUBJECT_WORDS or not _capitalised(subject[0]):
        return ""
    if subject[0].lower() in NEVER_FIRST_WORDS and not titled:
        return ""
    if all(_NUMBER.fullmatch(w) for w in subject):
        return ""
    return " ".join(subject).rstrip(".")


def subject_aliases(name: str, rules: frozenset[str] = STRING_RULES) -> tuple[str, ...]:
    """The lower-cased forms under which other passages may name a subject: the whole name;
    the name without a leading title ("Sir", "Dame", "Rev", ...) or trailing suffixes ("Jr",
    "Inc", post-nominal letters such as "MBE") while more than two words remain; and — when
    that name has at least :data:`MIN_ALIAS_SOURCE_WORDS` words, each alphabetic and
    capitalised (a person's or a place's full name) — its first and last word, its first two
    and its last two words, and with four or more words its first word and last two. Sorted,
    without duplicates; empty for a blank name. (:func:`~cage_core.lang.en.shortened_names`
    in the style :data:`~cage_core.lang.en.RANKING_ALIASES`; ``rules`` may switch off
    ``honorifics``, ``name_suffixes`` and ``short_forms``.)

    >>> subject_aliases("Sela Ann Ward")
    ('ann ward', 'sela ann', 'sela ann ward', 'sela ward')
    >>> subject_aliases("2009 Big 12 Conference")
    ('2009 big 12 conference',)
    """
    words = name.split()
    if not words:
        return ()
    core, short = shortened_names(words, RANKING_ALIASES, rules)
    forms = {" ".join(words).lower(), " ".join(core).lower(), *(form.lower() for form in short)}
    return tuple(sorted(forms))


@functools.lru_cache(maxsize=SUBJECT_CACHE_SIZE)
def also_known_as(text: str) -> tuple[str, ...]:
    """Other names the opening of ``text`` gives its subject ("... known professionally as
    Daryl Hall", "... often referred to as KU"): the capitalised names after such a phrase
    in the first ``OPENING_CHARS`` characters, in order of appearance, without duplicates.

    >>> also_known_as("Damon Gough (born 1969), known by the stage name Badly Drawn Boy, is ...")
    ('Badly Drawn Boy',)
    """
    names: list[str] = []
    for match in _ALSO_KNOWN_AS.finditer(text[:OPENING_CHARS]):
        words = match.group(1).split()
        while words and not _capitalised(words[-1]):
            words.pop()
        name = " ".join(words).rstrip(".")
        if name and name not in names:
            names.append(name)
    return tuple(names)


def _title_cased(words: list[str]) -> bool:
    """A name in title case that may start with a function word ("For Against", "In the
    Realm of the Hackers", "This Is Elvis"): at least two words, the second a capitalised word
    of letters, the last capitalised, the rest capitalised or short lower-case words, and the
    first no pronoun."""
    return (
        len(words) >= 2
        and words[1][:1].isupper()
        and words[1].isalpha()
        and _capitalised(words[-1])
        and words[0].lower() not in SUBJECT_PRONOUNS
        and all(_capitalised(w) or w in TITLE_FUNCTION_WORDS for w in words)
    )


def _is_verb(word: str) -> bool:
    """A lower-case word that goes on from a subject: a listed verb, or a past form ("-ed")."""
    return word.islower() and (word in SUBJECT_END_VERBS or (word.endswith("ed") and len(word) > 4))


def central_entity(graph: PassageGraph, text: str) -> str:
    """The graph's most central non-numeric entity label (rule 4 of the module docstring)."""
    return _central_label(graph.labels, graph.entity_types, text)


@functools.lru_cache(maxsize=SUBJECT_CACHE_SIZE)
def _central_label(labels: tuple[str, ...], entity_types: tuple[str, ...], text: str) -> str:
    lowered = text.lower()
    best: tuple[int, int, int] | None = None
    best_label = ""
    for order, (label, ent) in enumerate(zip(labels, entity_types)):
        if not ent or ent in NUMERIC_ENTITY_TYPES or not label.strip() or not may_link(label):
            continue
        positions = [
            m.start() for m in re.finditer(rf"(?<!\w){re.escape(label.lower())}(?!\w)", lowered)
        ]
        first = positions[0] if positions else len(lowered)
        rank = (-len(positions), first, order)
        if best is None or rank < best:
            best, best_label = rank, label
    return best_label


def _capitalised(word: str) -> bool:
    return word[0].isupper() or word[0].isdigit()


def _clean(value: Any) -> str:
    """A usable subject: a stripped string of at most ``MAX_SUBJECT_CHARS``, else ""."""
    if not isinstance(value, str):
        return ""
    return " ".join(value.split())[:MAX_SUBJECT_CHARS].strip()
