"""Versions: which of several documents of one title a question means, by the number it writes.

Documents of one family often share their title and differ by a version: "GNU Free
Documentation License Version 1.2" and "… Version 1.3", "HTTP/1.1" and "HTTP/2". A question
that writes the title and the version ("In version 1.3 of the GNU Free Documentation
License, …") names one of them. Routing's step 1c
(:func:`~cage_core.expansion.title_route.titles_written`) reads such a title three ways:

* without its version (:mod:`cage_core.expansion.title_forms`): the words of the document's
  name before its first number (:func:`first_number`), with and without the word just before
  it ("GNU Free Documentation License Version" and "GNU Free Documentation License"), as a
  question writes the family's name and the version apart;
* as a name the question writes ("the GNU Free Documentation License" in Title Case), which
  step 1b reads and 1c leaves to it, except for a document whose name holds a number the
  question writes (:func:`holds_a_version`): one word of such a family's name names it no
  better than it names the others, so step 1b cannot tell them apart;
* on one span of the question for each document of the family, which names none
  (``title_parts.longest_matches``), unless exactly one of them holds a number the question
  writes (:func:`told_apart`).

A name the question writes with a version right after it ("In TLS 1.3, …", "the HTTP/2
specification", "Python 3.12") names a document by itself (:func:`named_by_version`, step
1a of routing, after the identifiers): of the documents whose names hold the name's last word
(at most ``MAX_TITLE_HOLDERS`` of them, marked as their name's words), the one whose name
holds the number, when exactly one does. The name must be written as one (a capital past the
sentence's first word, or inside the word: "TLS", "HTTP"), so "the 3 steps" names nothing.

Documents of one *series* share their whole name but for its number: "CMake 3.7 Release Notes",
"CMake 3.13 Release Notes", "Annual Report 2022". A question names one by its number written
next to a word of the series' name ("the 3.2 release notes", "CMake 3.0", "the release notes
for 3.25", "the 3.2 and 3.7 release notes", in any case), when exactly one document whose name
holds that word holds the number too and more than ``MAX_TITLE_HOLDERS`` documents' names are
the same less their numbers (:func:`named_by_version`, with the names written with a version):
step 1c reads the words every member's name holds as a kind of document, no name, and tells
apart only a smaller family.

A number (:func:`version_numbers`) is a run of digits with optional dotted parts ("1.3", "2",
"2.0"), after an optional "v" ("v2"), standing as a word of its own (not "x86-64"); identifiers
and dates are read first and left out (:func:`~cage_core.names.documents.references`: "RFC
9113" and "3 November 2008" are not versions), but beside a series' name an identifier no
document holds is a name and its number ("the Node 4 changelog" of "Node.js 4 ChangeLog"). A
question that writes no number, or one that no document's name or two of them hold, changes
nothing: the family's title still names none of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache

from cage_core.expansion.document_names import DocumentNames, held_by_all
from cage_core.expansion.documents import (
    MIN_WORD_CHARS,
    DocumentRecord,
    name_words,
    number_word,
    title_word,
)
from cage_core.expansion.question_text import without_words
from cage_core.expansion.title_parts import MAX_TITLE_HOLDERS, Match
from cage_core.lang.en import CLAUSE_JOINERS
from cage_core.names.documents import fold, identifiers, references, without_spans
from cage_core.names.forms import words
from cage_core.names.numbers import VERSION_NUMBER, plain_text, version_numbers
from cage_core.names.routes import DocumentRoute, NamedDocument

__all__ = [
    "first_number",
    "holds_a_version",
    "named_by_version",
    "told_apart",
    "version_numbers",
]

MAX_SERIES_DOCUMENTS = 64
"""The most documents whose names are read for one number a question writes
(:func:`named_by_version`): a word more documents' names hold is read for no series."""
SERIES_REACH = 2
"""How many words before and after a number are read as a series' name words."""

_NAMED_VERSION = re.compile(
    r"(?<![\w.])([^\W\d_]\w*)[ \t]*[/_-]?[ \t]*v?(\d+(?:\.\d+)*)(?![\w]|\.\d)"
)


def holds_a_version(record: DocumentRecord | None, numbers: frozenset[str]) -> bool:
    """Whether ``record``'s name holds one of ``numbers`` (the :func:`version_numbers` of a
    question; module docstring)."""
    return bool(numbers) and record is not None and bool(_name_numbers(record.name) & numbers)


def first_number(text: str) -> int | None:
    """Where the first number of ``text`` (as :func:`version_numbers` reads one) begins, or
    ``None``."""
    match = VERSION_NUMBER.search(text)
    return None if match is None else match.start()


_name_numbers = lru_cache(maxsize=4096)(version_numbers)
""":func:`version_numbers` of a document's name (at most ``MAX_DOCUMENT_NAME_CHARS``), kept for
the last 4,096 names read: routing reads the same candidates' names for every question."""


def told_apart(
    found: Sequence[Match],
    numbers: frozenset[str],
    records: Mapping[str, DocumentRecord | None],
) -> list[Match]:
    """``found`` with each span that several documents' titles stand on reduced to the one
    document whose name holds one of ``numbers`` (the :func:`version_numbers` of the
    question; module docstring); a span no number tells apart keeps all its matches. Order
    kept. ``records``: each matched document's record, as the caller read it."""
    spans: dict[tuple[int, int], list[Match]] = {}
    for match in found:
        spans.setdefault(match[:2], []).append(match)
    shared = {span: matches for span, matches in spans.items() if len(matches) > 1}
    if not shared or not numbers:
        return list(found)
    dropped: set[tuple[int, int, str]] = set()
    for span, matches in shared.items():
        holding = [m[2] for m in matches if holds_a_version(records[m[2]], numbers)]
        if len(holding) == 1:
            dropped.update((*span, m[2]) for m in matches if m[2] != holding[0])
    return [m for m in found if (m[0], m[1], m[2]) not in dropped]


def named_by_version(
    question: str,
    written: Sequence[tuple[str, ...]],
    names: DocumentNames,
    most: int,
    held: Mapping[str, int],
) -> DocumentRoute | None:
    """The documents ``question`` names by a name and its version, or by a number beside a
    series' name (module docstring): ``written`` its names
    (:func:`~cage_core.expansion.question_text.written_names`), ``held`` how many documents
    hold each identifier it writes (one none holds is a name and its number: "Node 4"); each
    document's score is how many names name it. ``None`` unless they name at least one and at
    most ``most`` documents."""
    found_in = references(question, files=False)
    plain = fold(without_spans(question, found_in))
    unheld = {i.word for i in identifiers(question) if not held.get(i.word)}  # "node 4"
    kept = [r for r in found_in if r.word not in unheld]
    series_text = fold(without_spans(question, kept)) if len(kept) < len(found_in) else plain
    found: dict[str, tuple[DocumentRecord, list[str]]] = {}  # doc_id -> it, the names naming it
    for record, naming in [*_with_version(plain, written, names), *_in_series(series_text, names)]:
        found.setdefault(record.doc_id, (record, []))[1].extend(naming)
    if not 0 < len(found) <= most:
        return None
    documents = tuple(
        NamedDocument(doc_id, record.name, float(len(naming)), tuple(dict.fromkeys(naming)))
        for doc_id, (record, naming) in found.items()
    )
    dropped = {word for document in documents for word in document.naming_words}
    return DocumentRoute(documents, without_words(question, dropped))


def _with_version(
    plain: str, written: Sequence[tuple[str, ...]], names: DocumentNames
) -> Iterator[tuple[DocumentRecord, list[str]]]:
    """Each document a name written with its version names in ``plain`` (the question
    folded, without identifiers and dates), with that name's last word: of the documents
    whose names hold the word (at most ``MAX_TITLE_HOLDERS``), the one holding the number."""
    last = {name[-1] for name in written if name}
    pairs = [(m.group(1), m.group(2)) for m in _NAMED_VERSION.finditer(plain)]
    pairs = [(word, number) for word, number in pairs if word in last]
    holders = names.documents_with([title_word(word) for word, _ in pairs]) if pairs else {}
    for word, number in pairs:
        family = sorted(holders.get(title_word(word), ()))
        if len(family) > MAX_TITLE_HOLDERS:
            continue  # a word of many documents' names: a kind of document, no name
        records = names.documents(family).values()
        named = [r for r in records if number in _name_numbers(r.name)]
        if len(named) == 1:
            yield named[0], [word]


def _in_series(plain: str, names: DocumentNames) -> Iterator[tuple[DocumentRecord, list[str]]]:
    """Each document a number names in ``plain`` as a member of its series, with the words
    of the series' name beside the number: of the documents whose names hold one of the
    :data:`SERIES_REACH` words before or after it (at most :data:`MAX_SERIES_DOCUMENTS`),
    the one whose name holds the number, when exactly one does and more than
    ``MAX_TITLE_HOLDERS`` of them have its name less its numbers (a smaller family's title
    tells its members apart: :func:`told_apart`); of a larger family, those whose names hold
    the number (:func:`_narrowed`)."""
    for match in VERSION_NUMBER.finditer(plain):
        before, after = words(plain[: match.start()]), words(plain[match.end() :])
        while after and (after[0].isdigit() or after[0] in CLAUSE_JOINERS):
            after = after[1:]  # "the 2.36 and 2.37 release notes": the words after both
        near = [w for w in before[-SERIES_REACH:] + after[:SERIES_REACH] if not w.isdigit()]
        holders = names.documents_with([title_word(w) for w in near])
        family = sorted({d for w in near for d in holders.get(title_word(w), ())})
        if len(family) > MAX_SERIES_DOCUMENTS:
            family = _narrowed(family, match.group(1), names)
        if not family:
            continue
        records = list(names.documents(family).values())
        holding = [r for r in records if match.group(1) in _name_numbers(r.name)]
        if len(holding) != 1:
            continue
        series = _unnumbered(holding[0].name)
        if sum(_unnumbered(r.name) == series for r in records) > MAX_TITLE_HOLDERS:
            yield holding[0], [w for w in near if w in series]


def _narrowed(family: list[str], number: str, names: DocumentNames) -> list[str]:
    """Of a ``family`` of more than :data:`MAX_SERIES_DOCUMENTS` documents (git's 485 "Git
    v2.39 Release Notes"), those whose names hold ``number`` (a marked word:
    :func:`~cage_core.expansion.documents.number_word`), and the first of the others,
    :data:`MAX_SERIES_DOCUMENTS` in all, to count the series by; none when too many hold it.
    A record written before names' numbers were held holds none: then those whose names
    hold every part of ``number`` that is a word ("39" of "2.39"; none for "1.7.0")."""
    held = held_by_all(names, [title_word(number_word(number))]) & set(family)
    parts = [title_word(p) for p in dict.fromkeys(number.split(".")) if len(p) >= MIN_WORD_CHARS]
    holding = held or held_by_all(names, parts) & set(family)
    if not holding or len(holding) > MAX_SERIES_DOCUMENTS // 2:
        return []
    others = [d for d in family if d not in holding][: MAX_SERIES_DOCUMENTS - len(holding)]
    return sorted(holding | set(others))


@lru_cache(maxsize=4096)
def _unnumbered(name: str) -> tuple[str, ...]:
    """The words of a document's ``name`` less its numbers (:func:`version_numbers`), folded:
    what the documents of one series share."""
    return tuple(name_words(VERSION_NUMBER.sub(" ", plain_text(name))))
