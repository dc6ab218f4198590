"""How many things a question asks: its clauses that open with a question word.

"What range does eip2681 allow for account nonces, and how does the replay protection put the
chain into the signature?" asks two things; "Consider the Co-Branding Agreement between
Women.com and eDiets; is consent required to assign it?" asks one (its first clause says what
it is about). A clause opens at the start of the question or after ``,`` ``;`` ``:`` (and an
optional joining word, :data:`~cage_core.lang.en.CLAUSE_JOINERS`), or after "and" or "but"
alone; it asks when its first word is one of :data:`~cage_core.lang.en.QUESTION_WORDS`, or a
preposition (:data:`~cage_core.lang.en.PREPOSITIONS`) before one of
:data:`~cage_core.lang.en.WH_WORDS` ("…, and by which board meeting …")
(:func:`clause_starts`, :func:`asked_parts`). A question routed to one document that asks two
things may need another document for its other ask (:mod:`cage_core.ranking.named_documents`).
"""

from __future__ import annotations

import re

from cage_core.lang.en import CLAUSE_JOINERS, PREPOSITIONS, QUESTION_WORDS, WH_WORDS

__all__ = ["asked_parts", "clause_starts"]

_JOINER = "|".join(CLAUSE_JOINERS)
_CLAUSE = re.compile(
    rf"(?:^|[,;:]\s*(?:(?:{_JOINER})\s+)?|\s(?:and|but)\s+)(?P<word>[A-Za-z]+)\b"
    r"(?=(?:\s+(?P<next>[A-Za-z]+)\b)?)"  # the next word, read, not consumed
)


def _asks(word: str, following: str | None) -> bool:
    """Whether a clause opening with ``word`` (then ``following``) asks (module docstring)."""
    first = word.lower()
    if first in QUESTION_WORDS:
        return True
    return first in PREPOSITIONS and following is not None and following.lower() in WH_WORDS


def clause_starts(question: str) -> list[int]:
    """Where each clause of ``question`` (stripped) that asks begins (module docstring)."""
    text = question.strip()
    return [
        match.start("word")
        for match in _CLAUSE.finditer(text)
        if _asks(match.group("word"), match.group("next"))
    ]


def asked_parts(question: str) -> int:
    """How many clauses of ``question`` ask (module docstring): 0 for a statement."""
    return len(clause_starts(question))
