"""The bounds of routing (:mod:`cage_core.expansion.routing`): its settings and fixed limits,
and how its steps count a word (``idf`` in units of a word one document alone holds) and
find the documents holding one (:func:`held_by`); shared by the step that reads titles
(:mod:`cage_core.expansion.title_route`)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from cage_core.config import UNIT, Int, Ranges, Real, Validated
from cage_core.expansion.document_names import DocumentNames

__all__ = [
    "MAX_NAMING_DOCUMENTS",
    "MAX_OWNERS",
    "MAX_TITLE_CANDIDATES",
    "OTHER_NAME_SHARE",
    "RoutingSettings",
    "held_by",
    "idf",
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


def held_by(names: DocumentNames, weights: Mapping[str, float]) -> dict[str, dict[str, float]]:
    """Each document holding any of the words ``weights`` gives: those words, their weights."""
    out: dict[str, dict[str, float]] = {}
    for word, holders in names.documents_with(list(weights)).items():
        for doc_id in holders:
            out.setdefault(doc_id, {})[word] = weights[word]
    return out


def idf(held: int, total: int) -> float:
    """BM25's idf of a word ``held`` by that many of ``total`` documents (step 1)."""
    return math.log(1 + (total - held + 0.5) / (held + 0.5))
