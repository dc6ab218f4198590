"""Routing: the documents a question names, and the question without the words that name them.

On a collection of similar documents the retriever's top ``k`` holds the right *kind* of
passage from the wrong documents; the question says which document it means, the passage
that answers does not. Routing reads the question against every document's
:class:`~cage_core.expansion.documents.DocumentRecord` (its name and the words of its
opening), with the specificity of each word over all documents:

1. **Score.** ``score(d) = Σ idf(w) / idf(1)`` over the distinct question words written as
   names (:func:`question_words`: "Birch", "CONTENT", "ConvergTV"; not "renewal") that
   ``d``'s words hold, ``idf(n) = ln(1 + (N − n + 0.5) / (n + 0.5))`` (BM25's, ``N``
   documents, ``n_w`` of them holding ``w``): a score counts words as specific as a word one
   document alone holds, so its bounds mean the same in a collection of 40 documents or of
   5,000 (where one rare word, by idf alone, would outweigh two names of a small collection,
   and a chance match is likelier). Only words that can name a document are read: those held by
   at most ``naming_share`` of the documents (or one document), and never by more than
   :data:`MAX_NAMING_DOCUMENTS` ("Birch", "Mount", "Knowledge"; not "Agreement"), so a
   question reads a bounded number of postings whatever ``N``. Nor are the words of a name
   the question writes (:func:`written_names`, "Acme Government Solutions") of which one word
   no document holds: that name is of something outside the collection, and its other words
   ("Government", "Solutions") would name a document it does not mean.
2. **Confidently named.** Documents by score, best first (ties by id): the first
   ``m ≤ max_documents`` of them are named when the ``m``-th scores at least ``min_score``
   and at least ``min_gap`` times the next one. Otherwise the question names no document
   (none, or ambiguously: a name several documents share does not route), and nothing
   changes downstream. A named document must hold ``min_naming_words`` naming words (step
   3); of two named
   documents, one whose naming words are all the other's and fewer is dropped (the question
   named the other, more fully), and two named by the same words make the name ambiguous:
   nothing is routed. Nor is a question whose other words (outside the named documents'
   naming words) still score :data:`OTHER_NAME_SHARE` of ``min_score`` for another document:
   it names that one too ("Compare Grand Adventures Tourism and InnovaTech Solutions"), and
   putting one of them first would push the other's passages down.
3. **The question less its naming words.** The words read in step 1 that a named document
   holds are the words that name it; the question without them is what the
   named document's chunks are searched and ranked with: the document's name says which
   document, not which of its passages answers.

The documents' side is a :class:`DocumentNames` (the link index keeps one,
:meth:`LinkIndex.documents <cage_core.expansion.index.LinkIndex.documents>`); what joins the
pool, and how the ranking reads a route, is said where they use it
(:mod:`cage_core.expansion.contract`, :mod:`cage_core.eval.open_retrieval`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import ClassVar, Protocol

from cage_core.config import UNIT, Int, Ranges, Real, validate
from cage_core.expansion.documents import (
    MAX_WORD_CHARS,
    MIN_WORD_CHARS,
    DocumentRecord,
)
from cage_core.names.forms import words

__all__ = [
    "MAX_NAMING_DOCUMENTS",
    "OTHER_NAME_SHARE",
    "NAMED_DOCUMENT_VIA",
    "DocumentNames",
    "DocumentRoute",
    "MemoryDocumentNames",
    "NamedDocument",
    "RoutingSettings",
    "named_documents_by_id",
    "question_words",
    "route_question",
    "written_names",
]

NAMED_DOCUMENT_VIA = "the question names its document"
"""How a ``via`` begins for a passage that is in the pool because its document is named."""

OTHER_NAME_SHARE = 0.5
"""A question whose words outside the named documents' names still score this share of
``min_score`` for another document names that one too: it is not routed (step 2)."""
MAX_NAMING_DOCUMENTS = 64
"""A word more documents hold than this names none of them, whatever ``naming_share`` says:
a document's name is shared by few; it bounds the postings a question reads at any scale."""
_TOKEN = re.compile(r"\w+|\W+")
_SPACE_BEFORE_MARK = re.compile(r"\s+([.,;:!?])")
_WORD_OR_STOP = re.compile(r"\w+|[^\w]+")
_WITHIN_NAME = re.compile(r"(?:\.?[ \t]*[-&'’][ \t]*|\.?[ \t]+|\.)")
"""What may stand between two words of one written name (:func:`written_names`)."""
_SENTENCE_END = re.compile(r"[.?!;:]\s")


@dataclass(frozen=True)
class RoutingSettings:
    """The bounds of routing (module docstring); provenance in ``docs/provenance.md``.

    min_score: a named document's least score (the words it holds, each counted as its idf
        over the idf of a word one document alone holds: step 1).
    min_gap: how many times the next document's score a named one must reach.
    max_documents: at most this many documents are named by one question.
    naming_share: a word names a document only when at most this share of documents hold it.
    min_naming_words: a document is named only by at least this many naming words (a
        document's name — its parties, its company, its title — is rarely one word; one
        rare word is more often a thing the document mentions).
    chunks: how many of each named document's chunks join the pool (best first).
    """

    min_score: float = 2.0
    min_gap: float = 1.25
    max_documents: int = 2
    naming_share: float = 0.2
    min_naming_words: int = 1
    chunks: int = 10

    RANGES: ClassVar[Ranges] = {
        "min_score": Real(0.0, 1e6),
        "min_gap": Real(1.0, 1e6),
        "max_documents": Int(1, 64),
        "naming_share": UNIT,
        "min_naming_words": Int(1, 64),
        "chunks": Int(1, 10_000),
    }
    """The accepted value of each field (checked by :func:`~cage_core.config.validate`)."""

    def __post_init__(self) -> None:
        validate(self, self.RANGES, "RoutingSettings.")


class DocumentNames(Protocol):
    """The documents' side of routing: their records and which hold a word."""

    def document_count(self) -> int:
        """``N``: the documents with a record."""
        ...

    def document_frequencies(self, words: Collection[str]) -> dict[str, int]:
        """How many documents hold each of ``words`` (words none holds: absent)."""
        ...

    def documents_with(self, words: Collection[str]) -> dict[str, Collection[str]]:
        """The ids of the documents holding each of ``words`` (words none holds: absent)."""
        ...

    def document(self, doc_id: str) -> DocumentRecord | None:
        """The record of ``doc_id``, or ``None``."""
        ...


class MemoryDocumentNames:
    """:class:`DocumentNames` in dicts: records by id, and word → document ids."""

    def __init__(self, records: Iterable[DocumentRecord] = ()) -> None:
        self._records: dict[str, DocumentRecord] = {}
        self._holders: dict[str, set[str]] = {}
        self.put(records)

    def put(self, records: Iterable[DocumentRecord]) -> None:
        """Add records, each replacing the one with its ``doc_id``."""
        for record in records:
            self.remove([record.doc_id])
            self._records[record.doc_id] = record
            for word in record.words:
                self._holders.setdefault(word, set()).add(record.doc_id)

    def remove(self, doc_ids: Iterable[str]) -> int:
        """Drop the records of ``doc_ids``; how many were held."""
        removed = 0
        for doc_id in doc_ids:
            old = self._records.pop(doc_id, None)
            if old is None:
                continue
            removed += 1
            for word in old.words:
                holders = self._holders[word]
                holders.discard(doc_id)
                if not holders:
                    del self._holders[word]
        return removed

    def records(self) -> list[DocumentRecord]:
        """Every record, by ``doc_id``."""
        return [self._records[doc_id] for doc_id in sorted(self._records)]

    def document_count(self) -> int:
        return len(self._records)

    def document_frequencies(self, words: Collection[str]) -> dict[str, int]:
        return {word: len(self._holders[word]) for word in words if word in self._holders}

    def documents_with(self, words: Collection[str]) -> dict[str, Collection[str]]:
        return {word: self._holders[word] for word in words if word in self._holders}

    def document(self, doc_id: str) -> DocumentRecord | None:
        return self._records.get(doc_id)


@dataclass(frozen=True)
class NamedDocument:
    """A document the question names.

    doc_id: the document.
    name: its display name (:class:`~cage_core.expansion.documents.DocumentRecord`).
    score: the sum of the idf of the question words it holds (module docstring, step 1).
    naming_words: the question's words that name it (step 3), in question order.
    """

    doc_id: str
    name: str
    score: float
    naming_words: tuple[str, ...]

    @property
    def via(self) -> str:
        """The ``via`` of a passage in the pool because of this document: what named it."""
        shown = self.name or self.doc_id
        return f"{NAMED_DOCUMENT_VIA}: {shown} (named by {' '.join(self.naming_words)})"


@dataclass(frozen=True)
class DocumentRoute:
    """What routing found for one question.

    documents: the named documents, best first; empty when the question names none
        confidently (then ``question`` is the question as asked).
    question: the question without the words that name the documents.
    """

    documents: tuple[NamedDocument, ...]
    question: str

    @property
    def doc_ids(self) -> tuple[str, ...]:
        return tuple(document.doc_id for document in self.documents)

    def __bool__(self) -> bool:
        return bool(self.documents)


def question_words(question: str) -> list[str]:
    """The distinct words of ``question`` that may name a document, lower-cased, in order:
    the words written as names — capitalised but not a sentence's first word ("Birch"), or
    with a capital after their first letter ("ConvergTV", "CONTENT", "iPSC") — of
    :data:`~cage_core.expansion.documents.MIN_WORD_CHARS` to ``MAX_WORD_CHARS`` characters.
    A question's ordinary words ("renewal", "term") never route it, even when a document's
    opening happens to hold them."""
    return list(dict.fromkeys(word for name in written_names(question) for word in name))


def written_names(question: str) -> list[tuple[str, ...]]:
    """The names ``question`` writes: each run of adjacent words written as names
    (:func:`question_words`), as its words of ``MIN_WORD_CHARS`` to ``MAX_WORD_CHARS``
    characters, lower-cased ("Acme Government Solutions" → ``("acme", "government",
    "solutions")``). A run continues across spaces, hyphens, apostrophes, ampersands and the
    period of an abbreviation ("Holdings Inc. Ltd"), and ends at any other mark or word."""
    names: list[tuple[str, ...]] = []
    run: list[str] = []
    sentence_start = True
    for match in _WORD_OR_STOP.finditer(question):
        token = match.group(0)
        if not token[0].isalnum() and token[0] != "_":
            if not _WITHIN_NAME.fullmatch(token):
                names.append(tuple(run))
                run = []
            sentence_start = sentence_start or bool(_SENTENCE_END.search(token))
            continue
        written_as_name = any(c.isupper() for c in token[1:]) or (
            token[0].isupper() and not sentence_start
        )
        sentence_start = False
        if not written_as_name:
            names.append(tuple(run))
            run = []
            continue
        word = token.lower()
        if MIN_WORD_CHARS <= len(word) <= MAX_WORD_CHARS:
            run.append(word)
    names.append(tuple(run))
    return [name for name in names if name]


def route_question(
    question: str, names: DocumentNames, settings: RoutingSettings | None = None
) -> DocumentRoute:
    """The documents ``question`` names and the question without their naming words
    (module docstring). Costs one lookup of the question's words, whatever ``N``."""
    settings = settings or RoutingSettings()
    unrouted = DocumentRoute((), question)
    total = names.document_count()
    written = written_names(question)
    asked = list(dict.fromkeys(word for name in written for word in name))
    if total < 2 or not asked:
        return unrouted
    frequencies = names.document_frequencies(asked)
    outside = {
        word for name in written if any(not frequencies.get(w) for w in name) for word in name
    }
    naming_limit = max(1.0, min(settings.naming_share * total, MAX_NAMING_DOCUMENTS))
    read = [w for w in asked if w not in outside and 0 < frequencies[w] <= naming_limit]
    unit = _idf(1, total)
    idf = {w: _idf(frequencies[w], total) / unit for w in read}
    scores: dict[str, float] = {}
    for word, holders in names.documents_with(read).items():
        for doc_id in holders:
            scores[doc_id] = scores.get(doc_id, 0.0) + idf[word]
    best = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    named = _confidently_named([score for _, score in best], settings)
    if not named:
        return unrouted
    documents: list[NamedDocument] = []
    for doc_id, score in best[:named]:
        record = names.document(doc_id)
        held = set(record.words) if record is not None else set()
        naming = tuple(w for w in read if w in held)
        if len(naming) < settings.min_naming_words:
            return unrouted  # named by too few words of its own: not confidently
        documents.append(NamedDocument(doc_id, record.name if record else "", score, naming))
    documents = _most_specific(documents)
    if not documents:
        return unrouted
    dropped = {word for document in documents for word in document.naming_words}
    named_ids = {document.doc_id for document in documents}
    others: dict[str, float] = {}
    for word, holders in names.documents_with([w for w in read if w not in dropped]).items():
        for doc_id in holders:
            if doc_id not in named_ids:
                others[doc_id] = others.get(doc_id, 0.0) + idf[word]
    if others and max(others.values()) >= OTHER_NAME_SHARE * settings.min_score:
        return unrouted  # the question also names a document it was not routed to
    return DocumentRoute(tuple(documents), _without_words(question, dropped))


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


def _without_words(question: str, dropped: Collection[str]) -> str:
    """``question`` without the words in ``dropped`` (lower-case), spaces collapsed; the
    question itself when nothing else would be left."""
    kept = [t for t in _TOKEN.findall(question) if t.lower() not in dropped]
    shortened = _SPACE_BEFORE_MARK.sub(r"\1", " ".join("".join(kept).split()))
    return shortened if words(shortened) else question


def named_documents_by_id(route: DocumentRoute) -> Mapping[str, NamedDocument]:
    """The route's named documents by ``doc_id``."""
    return {document.doc_id: document for document in route.documents}
