"""English question words: what a clause that asks opens with
(:mod:`cage_core.ranking.asks`)."""

from __future__ import annotations

__all__ = [
    "CLAUSE_JOINERS",
    "QUESTION_WORDS",
]

QUESTION_WORDS = frozenset(
    {
        "what",
        "how",
        "why",
        "which",
        "who",
        "whom",
        "whose",
        "where",
        "when",
        "does",
        "do",
        "did",
        "is",
        "are",
        "was",
        "were",
        "can",
        "should",
        "would",
    }
)
"""The question words and the auxiliaries a yes/no question opens with."""
CLAUSE_JOINERS = ("and", "but", "or")
"""Words that join a clause to the one before it ("…, and how …")."""
