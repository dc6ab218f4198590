"""How many things an English question asks: its clauses that open with a question word (the
two-ask choices of ``tuning/named_order_cv.py``; the package does not read it).

"What range does eip2681 allow for account nonces, and how does the replay protection put the
chain into the signature?" asks two things; "Consider the Co-Branding Agreement between
Women.com and eDiets; is consent required to assign it?" asks one (its first clause says what
it is about). A clause opens at the start of the question or after ``,`` ``;`` ``:`` (and an
optional joining "and", "but" or "or"), or after a joining word alone; it asks when its first
word is one of :data:`QUESTION_WORDS` (:func:`asked_parts`).
"""

from __future__ import annotations

import re

__all__ = ["QUESTION_WORDS", "asked_parts", "asks"]

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
"""Words a clause that asks opens with: the question words and the auxiliaries a yes/no
question opens with."""

_CLAUSE = re.compile(r"(?:^|[,;:]\s*(?:(?:and|but|or)\s+)?|\s(?:and|but)\s+)(?P<word>[A-Za-z]+)\b")


def asked_parts(question: str) -> int:
    """How many clauses of ``question`` ask (module docstring): 0 for a statement."""
    return sum(
        match.group("word").lower() in QUESTION_WORDS
        for match in _CLAUSE.finditer(question.strip())
    )


def asks(question: str) -> list[str]:
    """The clauses of ``question`` that ask, each running to the next one (the first one from
    the start of the question, so what it opens with stays with it); ``[question]`` when fewer
    than two ask. "What range does eip2681 allow for account nonces, and how does …?" gives
    "What range does eip2681 allow for account nonces" and "how does …?"."""
    text = question.strip()
    starts = [
        match.start("word")
        for match in _CLAUSE.finditer(text)
        if match.group("word").lower() in QUESTION_WORDS
    ]
    if len(starts) < 2:
        return [text]
    cuts = [0, *starts[1:], len(text)]
    parts = [text[a:b].strip() for a, b in zip(cuts, cuts[1:])]
    return [re.sub(r"[\s,;:]*(?:\b(?:and|but|or))?[\s,;:]*$", "", part) for part in parts]
