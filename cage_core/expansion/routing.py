"""Routing: the documents a question names, and the question without the words that name them.

On a collection of similar documents the retriever's top ``k`` holds the right *kind* of
passage from the wrong documents; the question says which document it means, the passage
that answers does not. Routing reads the question (:mod:`cage_core.expansion.question_text`)
against every document's :class:`~cage_core.expansion.documents.DocumentRecord` (its name,
its own identifiers and the words of its opening), with the specificity of each word over all
documents, ``idf(n) = ln(1 + (N − n + 0.5) / (n + 0.5))`` (BM25's, ``N`` documents, ``n`` of
them holding the word) counted in units of ``idf(1)``: a word as specific as one a single
document holds counts 1, so the bounds mean the same for 40 documents or 5,000. Three ways of
naming, tried in this order; the first that names a document confidently (step 2) routes (a
title the rest writes after "the" adds a second document: "the travel spending policy"):

1. **Score.**

   a. *Identifiers* — the identifiers, file names and dates the question writes, in any case
      and form (:func:`~cage_core.names.documents.references`: "pep 634", "compatibility.md",
      "6 December 2024") that a document gives itself (held by at most :data:`MAX_OWNERS`
      documents): ``identifier_weight`` units each, one names its document alone; else a name
      written with its version ("TLS 1.3", "HTTP/2") or a number beside a series' name ("the
      3.2 release notes" of "CMake 3.2 Release Notes": :mod:`cage_core.expansion.versions`).
   b. *Names* — ``score(d) = Σ idf(w) / idf(1)`` over the distinct question words written as
      names (:func:`~cage_core.expansion.question_text.written_names`: "Birch", "CONTENT",
      "ConvergTV"; not "renewal") that ``d``'s words hold. Only words that can name a document
      are read: those held by at most ``naming_share`` of the documents (or one document), and
      never by more than :data:`MAX_NAMING_DOCUMENTS` ("Birch", "Mount", "Knowledge"; not
      "Agreement"), so a question reads a bounded number of postings whatever ``N``. Nor are
      the words of a name the question writes (``written_names``, "Acme Government
      Solutions") of which one word no document holds: that name is of something outside the
      collection, and its other words would name a document it does not mean.
   c. *Titles*, in any case (:func:`titles_written`): every word of a document's short name
      (or, when the question does not write them all, the name less the words at one or both
      of its ends that most documents' names hold: a site's name every page title repeats,
      "Thread Safety (libffi: the portable foreign function interface library)" read "thread
      safety"; or a run of it that holds every word no other name holds, "the board meeting
      substitutes policy" for "Rust Foundation Board Meeting Substitutes"),
      ``min_title_words`` or more, one of them in at most ``MAX_TITLE_HOLDERS`` documents'
      names, as consecutive words of the question ("in the structural pattern matching
      tutorial"); a name of one word no other name holds, after "the" ("the FAQ"), or
      anywhere written as code ("find_package"). How many documents' *names* hold a word is
      read from the words their records mark as their name's (``title_word``): "observers"
      opens every set of minutes, one document is called "Meeting observers". The title's other
      forms, abbreviations and versions (:mod:`~cage_core.expansion.title_forms`, ``versions``).
2. **Confidently named.** Documents by score, best first (ties by id): the first
   ``m ≤ max_documents`` of them are named when the ``m``-th scores at least ``min_score``
   and at least ``min_gap`` times the next one. Otherwise the question names no document
   (none, or ambiguously: a name several documents share does not route), and nothing
   changes downstream. A named document must hold ``min_naming_words`` naming words (step
   3); of two named documents, one whose naming words are all the other's and fewer is
   dropped (the question named the other, more fully), and two named by the same words make
   the name ambiguous: nothing is routed. Nor is a question whose other words (outside the
   named documents' naming words) still score :data:`OTHER_NAME_SHARE` of ``min_score`` for
   another document: it names that one too ("Compare Grand Adventures Tourism and InnovaTech
   Solutions"), and putting one of them first would push the other's passages down.
3. **The question less its naming words.** The words read in step 1 that a named document
   holds name it; the question without them where they stand as its name, and without the
   identifiers that named it (``question_text.without_words``), is what the named document's
   chunks are searched and ranked with: the name says which document, not which passage.

The documents' side is a :class:`DocumentNames` (the link index keeps one,
:meth:`LinkIndex.documents <cage_core.expansion.index.LinkIndex.documents>`); what joins the
pool, and how the ranking reads a route, is said where they use it
(:mod:`cage_core.expansion.contract`, :mod:`cage_core.eval.open_retrieval`).
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from cage_core.config import UNIT, Int, Ranges, Real, Validated
from cage_core.expansion import versions
from cage_core.expansion.document_names import DocumentNames, words_held
from cage_core.expansion.documents import (
    DocumentRecord,
    marks_its_name,
    name_words,
    title_word,
)
from cage_core.expansion.question_text import (
    plain_words,
    title_tokens,
    within,
    without_words,
    written_names,
)
from cage_core.expansion.title_forms import names_alone, spelled_out, title_forms, written_acronyms
from cage_core.expansion.title_parts import (
    COMMON_TITLE_SHARE,
    MAX_TITLE_HOLDERS,
    Match,
    longest_matches,
    named_at,
    position,
)
from cage_core.names.documents import references
from cage_core.names.forms import MAX_NAME_WORDS
from cage_core.names.routes import DocumentRoute, NamedDocument

__all__ = [
    "MAX_NAMING_DOCUMENTS",
    "OTHER_NAME_SHARE",
    "RoutingSettings",
    "route_question",
    "titles_written",
]

MAX_OWNERS = 2
"""An identifier that more documents give themselves names none of them (step 1)."""
MAX_TITLE_CANDIDATES = 32
"""The most documents whose name is compared with a question's words (step 1)."""
OTHER_NAME_SHARE = 0.5
"""Other words scoring this share of ``min_score`` for another document: unrouted (step 2)."""
MAX_NAMING_DOCUMENTS = 64
"""A word more documents hold names none, whatever ``naming_share`` says: it bounds postings."""


@dataclass(frozen=True)
class RoutingSettings(Validated):
    """The bounds of routing (module docstring); provenance in ``docs/provenance.md``.

    min_score: a named document's least score (the words it holds, each counted as its idf
        over the idf of a word one document alone holds: step 1).
    min_gap: how many times the next document's score a named one must reach.
    max_documents: at most this many documents are named by one question.
    naming_share: a word names a document only when at most this share of documents hold it.
    min_naming_words: a document is named only by at least this many naming words (a name is
        rarely one word; one rare word is more often a thing the document mentions).
    chunks: how many of each named document's chunks join the pool (best first).
    identifier_weight: what an identifier the question writes ("PEP 634") counts, in units of
        a word one document alone holds (step 1).
    min_title_words: a document's name (its title, its file name) is read in the question's
        lower-case words only when at least this many of them are words of one document's
        name ("the structural pattern matching tutorial"; step 1).
    """

    min_score: float = 2.0
    min_gap: float = 1.25
    max_documents: int = 2
    naming_share: float = 0.2
    min_naming_words: int = 1
    chunks: int = 10
    identifier_weight: float = 2.0
    min_title_words: int = 2

    PREFIX: ClassVar[str] = "RoutingSettings."
    RANGES: ClassVar[Ranges] = {
        "min_score": Real(0.0, 1e6),
        "min_gap": Real(1.0, 1e6),
        "max_documents": Int(1, 64),
        "naming_share": UNIT,
        "min_naming_words": Int(1, 64),
        "chunks": Int(1, 10_000),
        "identifier_weight": Real(0.0, 1e6),
        "min_title_words": Int(1, 64),
    }


def route_question(
    question: str, names: DocumentNames, settings: RoutingSettings | None = None
) -> DocumentRoute:
    """The documents ``question`` names and the question without their naming words
    (module docstring). Costs one lookup of the question's words, whatever ``N``, and the
    records of the documents whose names hold two of its plain words."""
    settings = settings or RoutingSettings()
    unrouted = DocumentRoute((), question)
    question = unicodedata.normalize("NFKC", question)  # one form of "Ü", "ﬁ", full width
    total = names.document_count()
    written = written_names(question)
    asked = list(dict.fromkeys(word for name in written for word in name))
    cited = list(dict.fromkeys(found.word for found in references(question)))
    plain = [w for w in plain_words(question) if w not in asked]
    if total < 2 or not (asked or cited or plain):
        return unrouted
    frequencies = names.document_frequencies(asked + cited + plain)
    outside = {
        word for name in written if any(not frequencies.get(w) for w in name) for word in name
    }
    naming_limit = max(1.0, min(settings.naming_share * total, MAX_NAMING_DOCUMENTS))

    def naming(word: str) -> bool:
        return 0 < frequencies.get(word, 0) <= naming_limit

    unit = _idf(1, total)
    owned = [w for w in cited if 0 < frequencies.get(w, 0) <= MAX_OWNERS]
    weights = {w: settings.identifier_weight * _idf(frequencies[w], total) / unit for w in owned}
    by_identifier = _held_by(names, weights)
    route = _confident_route(question, by_identifier, owned, names, settings)
    route = route or versions.named_by_version(question, written, names, settings.max_documents)
    if route is not None:
        return _and_titles(route, names, frequencies, total, settings)
    read = [w for w in asked if w not in outside and naming(w)]
    by_name = _held_by(names, {w: _idf(frequencies[w], total) / unit for w in read})
    route = _confident_route(question, by_name, read, names, settings)
    if route is not None:
        return _and_titles(route, names, frequencies, total, settings)
    titled = titles_written(question, names, frequencies, total, settings)
    return titled or unrouted


def _and_titles(
    route: DocumentRoute,
    names: DocumentNames,
    frequencies: Mapping[str, int],
    total: int,
    settings: RoutingSettings,
) -> DocumentRoute:
    """``route`` and, within ``max_documents``, the documents whose title the rest of its
    question writes after "the" (step 1c, ``definite``: "what allows backing up" is none)."""
    room = settings.max_documents - len(route.documents)
    if room < 1:
        return route
    titled = titles_written(route.question, names, frequencies, total, settings, definite=True)
    if titled is None:
        return route
    more = tuple(d for d in titled.documents if d.doc_id not in route.doc_ids)
    if not more or len(more) > room:
        return route
    return DocumentRoute(route.documents + more, titled.question)


def _confident_route(
    question: str,
    held_by: Mapping[str, Mapping[str, float]],
    order: list[str],
    names: DocumentNames,
    settings: RoutingSettings,
) -> DocumentRoute | None:
    """Steps 2 and 3 over the documents' naming words and their weights (``held_by``; the
    words in question ``order``): the route; ``None`` if no document is named confidently."""
    best = sorted(
        ((doc_id, sum(held.values())) for doc_id, held in held_by.items()),
        key=lambda item: (-item[1], item[0]),
    )
    named = _confidently_named([score for _, score in best], settings)
    if not named:
        return None
    documents: list[NamedDocument] = []
    for doc_id, score in best[:named]:
        record = names.document(doc_id)
        naming_words = tuple(w for w in order if w in held_by[doc_id])
        if record is None or len(naming_words) < settings.min_naming_words:
            return None  # named by too few words of its own: not confidently
        documents.append(NamedDocument(doc_id, record.name, score, naming_words))
    documents = _most_specific(documents)
    if not documents:
        return None
    dropped = {word for document in documents for word in document.naming_words}
    named_ids = {document.doc_id for document in documents}
    others = [
        sum(w for word, w in held.items() if word not in dropped)
        for doc_id, held in held_by.items()
        if doc_id not in named_ids
    ]
    if others and max(others) >= OTHER_NAME_SHARE * settings.min_score:
        return None  # the question also names a document it was not routed to
    return DocumentRoute(tuple(documents), without_words(question, dropped))


def titles_written(
    question: str,
    names: DocumentNames,
    frequencies: Mapping[str, int],
    total: int,
    settings: RoutingSettings,
    *,
    definite: bool = False,
) -> DocumentRoute | None:
    """The documents whose title the question writes, in any case (step 1c): a part
    (:func:`~cage_core.expansion.title_forms.title_forms`) of a document's short name (at
    most ``MAX_NAME_WORDS``) but its identifiers, of at least ``min_title_words`` words, one
    of them in at most ``MAX_TITLE_HOLDERS`` documents' names (a one-word name: in no other
    name, after "the"), as consecutive words of the question (an acronym read as the words it
    spells: :func:`~cage_core.expansion.title_forms.spelled_out`), not within a name the
    question writes (step 1b reads names: "Domain Name and Content License Agreement" is not
    "Content License Agreement"; but the title of a version it writes, and a title it writes
    as a name after "the": "the Configuration File Handling page"), and not when the
    names the question writes beside it, less the words the document holds, score
    ``OTHER_NAME_SHARE`` of ``min_score`` and the title's own score for another document
    ("the franchise agreement between Pretzel Time" names Pretzel Time's). Of overlapping
    titles the longer names the document; two with one title name neither, unless a version
    tells them apart (:mod:`~cage_core.expansion.versions`). Reads the records of the
    :data:`MAX_TITLE_CANDIDATES` documents whose titles hold most of the question's words,
    then holding most of them;
    ``definite``: every title stands after "the" (a second document's, :func:`_and_titles`)."""
    tokens = title_tokens(question, frequencies)  # "Node.js 12": words, where no file is it
    asked = [w for w in dict.fromkeys(tokens) if 0 < frequencies.get(w, 0) <= MAX_NAMING_DOCUMENTS]
    count = words_held(names, asked)  # below: a short page's title, not a long page's words
    in_title = words_held(names, [title_word(w) for w in asked])
    least = settings.min_title_words
    candidates = sorted(count, key=lambda d: (-in_title[d], -count[d], d))
    titles: dict[str, list[str]] = {}
    records: dict[str, DocumentRecord] = {}
    marked: set[str] = set()  # records that mark their name's words (title_word)
    stored = names.documents(leading := candidates[:MAX_TITLE_CANDIDATES])  # one read for all
    for doc_id, record in ((d, stored[d]) for d in leading if d in stored):
        title = name_words(record.name)
        if 0 < len(title) <= MAX_NAME_WORDS:
            titles[doc_id], records[doc_id] = title, record
            if marks_its_name(record, title):
                marked.add(doc_id)
    unknown = {w for title in titles.values() for w in title if w not in frequencies}
    known = {**frequencies, **names.document_frequencies(unknown)}
    in_titles = names.document_frequencies({title_word(w) for t in titles.values() for w in t})
    titled = {w: in_titles.get(title_word(w), 0) for t in titles.values() for w in t}
    common = {w for w in tokens if known.get(w, 0) > COMMON_TITLE_SHARE * total}  # its site
    written, numbers = written_names(question), versions.version_numbers(question)
    capitals = written_acronyms(question)
    found: list[Match] = []
    for doc_id, title in titles.items():
        read, origin = spelled_out(tokens, capitals, title)  # "GPL": general public license
        counts = titled if doc_id in marked else known  # a store written before title marks
        for phrase in title_forms(record := records[doc_id], title, counts, total):
            if min(counts.get(w, 0) for w in phrase) > MAX_TITLE_HOLDERS:
                continue  # every word of it in many documents: a kind of document, no name
            one_word = doc_id in marked and names_alone(phrase, title, counts, record)
            exact = one_word or versions.holds_a_version(record, numbers)
            within_names = [n for n in written if within(phrase, n)]
            if any(n != phrase for n in within_names):
                continue  # within a name the question writes: step 1b reads names
            as_a_name = bool(within_names) and not exact  # the title, written as a name
            if len(phrase) >= least and not (definite or as_a_name):
                start = position(read, phrase)
            elif len(phrase) >= least or one_word:
                start = named_at(read, phrase, common)  # "the FAQ", "does find_package accept"
            else:
                continue
            if start is not None:  # the span of the question's words, acronyms one each
                first, last = origin[start], origin[start + len(phrase) - 1]
                found.append((first - last - 1, first, doc_id, phrase))
                break
    chosen, shared = longest_matches(versions.told_apart(found, numbers, records))
    if shared:
        return None  # two documents with one title, no version told apart: ambiguous
    if not 0 < len(chosen) <= settings.max_documents:
        return None
    unit = _idf(1, total)
    naming_limit = max(1.0, min(settings.naming_share * total, MAX_NAMING_DOCUMENTS))
    documents = []
    for _, _, doc_id, phrase in sorted(chosen, key=lambda c: c[1]):
        record = records[doc_id]
        held = set(record.words) if record is not None else set()
        beside = (w for name in written for w in name if w not in held and w not in phrase)
        other = {w for w in beside if 0 < known.get(w, 0) <= naming_limit}
        held_by = _held_by(names, {w: _idf(known[w], total) / unit for w in sorted(other)})
        others = [sum(weights.values()) for weights in held_by.values()]
        score = sum(_idf(max(known.get(w, 1), 1), total) / unit for w in phrase)
        if others and max(others) >= max(OTHER_NAME_SHARE * settings.min_score, score):
            return None  # the question also names another document, as fully
        documents.append(NamedDocument(doc_id, record.name if record else "", score, phrase))
    dropped = {w for document in documents for w in document.naming_words}
    return DocumentRoute(tuple(documents), without_words(question, dropped))


def _held_by(names: DocumentNames, weights: Mapping[str, float]) -> dict[str, dict[str, float]]:
    """Each document holding any of the words ``weights`` gives: those words, their weights."""
    out: dict[str, dict[str, float]] = {}
    for word, holders in names.documents_with(list(weights)).items():
        for doc_id in holders:
            out.setdefault(doc_id, {})[word] = weights[word]
    return out


def _idf(held: int, total: int) -> float:
    """BM25's idf of a word ``held`` by that many of ``total`` documents (step 1)."""
    return math.log(1 + (total - held + 0.5) / (held + 0.5))


def _most_specific(documents: list[NamedDocument]) -> list[NamedDocument]:
    """The named documents less those whose naming words are all another's and fewer ("Green
    Fields Agriculture" beside "Green Fields Agriculture Ltd": the question named the second);
    none when two are named by the same words (ambiguous)."""
    names = [set(document.naming_words) for document in documents]
    for i, mine in enumerate(names):
        if any(mine == other for j, other in enumerate(names) if j != i):
            return []
    return [
        document
        for document, mine in zip(documents, names)
        if not any(mine < other for other in names)
    ]


def _confidently_named(scores: list[float], settings: RoutingSettings) -> int:
    """How many of the best documents (``scores``, best first) the question names: step 2."""
    for m in range(1, min(settings.max_documents, len(scores)) + 1):
        following = scores[m] if m < len(scores) else 0.0
        if scores[m - 1] < settings.min_score:
            return 0
        if scores[m - 1] >= settings.min_gap * following:
            return m
    return 0
