"""The English stop words of pool BM25 (:mod:`cage_core.ranking.pool_bm25`)."""

from __future__ import annotations

__all__ = [
    "STOP_WORDS",
]

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
