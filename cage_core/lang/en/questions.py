"""English question words: what a clause that asks opens with
(:mod:`cage_core.ranking.asks`)."""

from __future__ import annotations

__all__ = [
    "CLAUSE_JOINERS",
    "INTERROGATIVE_DETERMINERS",
    "PREPOSITIONS",
    "QUESTION_WORDS",
    "WH_WORDS",
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
WH_WORDS = frozenset({"what", "how", "which", "whom", "whose", "where", "when"})
"""The question words a preposition may open a question with ("by which meeting", "for how
long")."""
INTERROGATIVE_DETERMINERS = frozenset({"what", "which", "whose"})
"""Question words that ask about a kind of thing named right after them: a common noun, not
a document's title ("which exit status does it return";
:func:`cage_core.expansion.title_route.titles_written`)."""
PREPOSITIONS = frozenset(
    {
        "about",
        "after",
        "at",
        "before",
        "by",
        "during",
        "for",
        "from",
        "in",
        "into",
        "of",
        "on",
        "over",
        "since",
        "through",
        "to",
        "under",
        "until",
        "upon",
        "with",
        "within",
    }
)
"""Prepositions that may come before a question word at the start of a clause that asks."""
CLAUSE_JOINERS = ("and", "but", "or")
"""Words that join a clause to the one before it ("…, and how …")."""
