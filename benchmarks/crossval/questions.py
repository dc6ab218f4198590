"""The asks of an English question, for the two-ask choices of ``tuning/named_order_cv.py``:
:func:`asked_parts` is the package's (:mod:`cage_core.ranking.asks`), :func:`asks` splits the
question at the clauses that ask.
"""

from __future__ import annotations

import re

from cage_core.ranking.asks import asked_parts, clause_starts

__all__ = ["asked_parts", "asks"]


def asks(question: str) -> list[str]:
    """The clauses of ``question`` that ask, each running to the next one (the first one from
    the start of the question, so what it opens with stays with it); ``[question]`` when fewer
    than two ask. "What range does eip2681 allow for account nonces, and how does …?" gives
    "What range does eip2681 allow for account nonces" and "how does …?"."""
    text = question.strip()
    starts = clause_starts(text)
    if len(starts) < 2:
        return [text]
    cuts = [0, *starts[1:], len(text)]
    parts = [text[a:b].strip() for a, b in zip(cuts, cuts[1:])]
    return [re.sub(r"[\s,;:]*(?:\b(?:and|but|or))?[\s,;:]*$", "", part) for part in parts]
