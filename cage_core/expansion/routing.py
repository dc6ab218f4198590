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
   c. *Titles*, in any case (:func:`~cage_core.expansion.title_route.titles_written`):
      every word of a document's short name (or, when the question does not write them all,
      the name less the words at one or both of its ends that most documents' names hold: a
      site's name every page title repeats, "Thread Safety (libffi: the portable foreign
      function interface library)" read "thread safety"; or a run of it that holds every
      word no other name holds, "the board meeting substitutes policy" for "Rust Foundation
      Board Meeting Substitutes"), ``min_title_words`` or more, one of them, or all of them
      together, in at most ``MAX_TITLE_HOLDERS`` documents' names ("the ALTER TABLE page"),
      as consecutive words of the question ("in the structural pattern matching tutorial",
      or joined as code: "feature_test_macros"); a name of one word no other name holds,
      after "the" ("the FAQ"), or anywhere written as code ("find_package"). How many
      documents' *names* hold a word is read from the words their records mark as their
      name's (``title_word``): "observers" opens every set of minutes, one document is
      called "Meeting observers". The title's other forms, abbreviations and versions
      (:mod:`~cage_core.expansion.title_forms`, ``versions``).
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

import unicodedata
from collections.abc import Mapping

from cage_core.expansion import versions
from cage_core.expansion.document_names import DocumentNames
from cage_core.expansion.question_text import plain_words, without_words, written_names
from cage_core.expansion.routing_bounds import (
    MAX_NAMING_DOCUMENTS,
    MAX_OWNERS,
    OTHER_NAME_SHARE,
    RoutingSettings,
    held_by,
    idf,
)
from cage_core.expansion.title_route import titles_written
from cage_core.names.documents import references
from cage_core.names.routes import DocumentRoute, NamedDocument

__all__ = [
    "MAX_NAMING_DOCUMENTS",
    "OTHER_NAME_SHARE",
    "RoutingSettings",
    "route_question",
    "titles_written",
]


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

    unit = idf(1, total)
    owned = [w for w in cited if 0 < frequencies.get(w, 0) <= MAX_OWNERS]
    weights = {w: settings.identifier_weight * idf(frequencies[w], total) / unit for w in owned}
    by_identifier = held_by(names, weights)
    route = _confident_route(question, by_identifier, owned, names, settings)
    most = settings.max_documents
    route = route or versions.named_by_version(question, written, names, most, frequencies)
    if route is not None:
        return _and_titles(route, names, frequencies, total, settings)
    read = [w for w in asked if w not in outside and naming(w)]
    by_name = held_by(names, {w: idf(frequencies[w], total) / unit for w in read})
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
