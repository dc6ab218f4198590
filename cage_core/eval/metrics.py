"""Retrieval and answer metrics, each on one question.

* ``recall_at_k = |gold ∩ top_k| / |gold|`` (0 when there is no gold passage);
* ``all_gold_in_top_k``: whether ``gold ⊆ top_k`` (false when there is no gold passage,
  so that its mean over questions never exceeds mean recall);
* ``flagged_in_top_k``: whether any flagged passage (e.g. a RAMDocs ``misinfo`` document)
  is in the top k;
* ``exact_match`` / ``token_f1``: SQuAD-style, after lower-casing and removing punctuation,
  articles and extra whitespace; the best over the reference answers.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Collection, Sequence

__all__ = [
    "all_gold_in_top_k",
    "exact_match",
    "flagged_in_top_k",
    "normalize_answer",
    "recall_at_k",
    "token_f1",
]


def recall_at_k(order: Sequence[int], gold: Collection[int], k: int) -> float:
    if not gold:
        return 0.0
    return len(set(order[:k]) & set(gold)) / len(set(gold))


def all_gold_in_top_k(order: Sequence[int], gold: Collection[int], k: int) -> bool:
    return bool(gold) and set(gold) <= set(order[:k])


def flagged_in_top_k(order: Sequence[int], flagged: Collection[int], k: int) -> bool:
    return bool(set(order[:k]) & set(flagged))


_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = str.maketrans("", "", string.punctuation)


def normalize_answer(text: str) -> str:
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_PUNCT)).split())


def exact_match(prediction: str, answers: Sequence[str]) -> float:
    pred = normalize_answer(prediction)
    return float(any(pred == normalize_answer(a) for a in answers))


def token_f1(prediction: str, answers: Sequence[str]) -> float:
    pred = normalize_answer(prediction).split()
    best = 0.0
    for answer in answers:
        ref = normalize_answer(answer).split()
        common = sum((Counter(pred) & Counter(ref)).values())
        if common == 0:
            continue
        precision, recall = common / len(pred), common / len(ref)
        best = max(best, 2 * precision * recall / (precision + recall))
    return best
