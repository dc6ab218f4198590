"""Related pairs of one pool, found through inverted indexes instead of by visiting every pair.

Bridge links, GraphER and TEGR relate the k passages of a pool pairwise, but only the pairs
that share something can be related. Each function here finds exactly those pairs in time
proportional to the text read plus the pairs found, not to k²:

* :func:`shared_key_pairs` — the pairs of sets that share an element (index: key → sets);
* :func:`whole_word_mentions` — which texts contain which titles as whole words
  (index: word → texts, then an exact check of each candidate);
* :func:`substring_mentions` — which texts contain which titles anywhere (one Aho–Corasick
  automaton over the titles reads each text once);
* :func:`similar_set_pairs` — the pairs of sets whose Jaccard overlap reaches a threshold
  (prefix filtering: index only each set's rarest elements, check the pairs they give).

Each function states the quadratic definition it is equal to.
"""

from __future__ import annotations

import functools
import math
import re
import sys
from collections import Counter, deque
from collections.abc import Collection, Hashable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from typing import TypeVar

import numpy as np

from cage_core.names.forms import words  # re-exported: the word rule of every index

__all__ = [
    "WORD_CACHE_SIZE",
    "index_sets",
    "occurs_as_whole_words",
    "overlap",
    "shared_key_pairs",
    "similar_set_pairs",
    "substring_mentions",
    "text_words",
    "whole_word_mentions",
    "words",
]

_WORD_CHAR = re.compile(r"\w")

WORD_CACHE_SIZE = 8192
"""How many texts :func:`text_words` keeps the words of (least recently used dropped)."""


@functools.lru_cache(maxsize=WORD_CACHE_SIZE)
def text_words(text: str) -> tuple[str, ...]:
    """:func:`words` of ``text`` as interned strings, kept per process for the
    ``WORD_CACHE_SIZE`` most recently split texts (thread-safe), so a warm query over known
    passages splits none of them again."""
    return tuple(map(sys.intern, words(text)))


Key = TypeVar("Key", bound=Hashable)
"""The type of the keys of an inverted index (:func:`index_sets`)."""


def index_sets(
    sets: Sequence[Iterable[Key]], vocabulary: set[Key] | None = None
) -> dict[Key, list[int]]:
    """Inverted index ``key → ascending positions of the sets holding it``.

    Only keys in ``vocabulary`` are indexed when it is given (then ``sets`` may be any
    iterables, duplicates allowed); without it every element is, and each item of ``sets``
    must hold an element at most once.
    """
    postings: dict[Key, list[int]] = {}
    for i, members in enumerate(sets):
        for key in members if vocabulary is None else vocabulary.intersection(members):
            postings.setdefault(key, []).append(i)
    return postings


def shared_key_pairs(
    postings: dict[Key, list[int]],
) -> tuple[list[Key], np.ndarray, np.ndarray, np.ndarray]:
    """Every ``(key, a, b)`` with ``a < b`` both in ``postings[key]`` (ascending lists).

    Returns ``(keys, key_ids, rows, cols)``: the keys held by two or more sets and, per
    triple, the key's position in ``keys`` and ``a``, ``b`` — the triples of
    ``[(key, a, b) for key, p in postings.items() for a, b in combinations(p, 2)]``.
    Keys with postings of equal length are expanded together by one ``triu_indices``.
    """
    keys = [key for key, posting in postings.items() if len(posting) >= 2]
    by_length: dict[int, list[int]] = {}
    for n, key in enumerate(keys):
        by_length.setdefault(len(postings[key]), []).append(n)
    empty = np.zeros(0, np.int64)
    ids, rows, cols = [empty], [empty], [empty]
    for length, members in by_length.items():
        stacked = np.asarray([postings[keys[n]] for n in members], dtype=np.int64)
        first, second = np.triu_indices(length, 1)
        ids.append(np.repeat(np.asarray(members, dtype=np.int64), len(first)))
        rows.append(stacked[:, first].ravel())
        cols.append(stacked[:, second].ravel())
    return keys, np.concatenate(ids), np.concatenate(rows), np.concatenate(cols)


def occurs_as_whole_words(needle: str, text: str) -> bool:
    """``re.search(r"(?<!\\w)" + re.escape(needle) + r"(?!\\w)", text) is not None``."""
    start = text.find(needle)
    while start >= 0:
        end = start + len(needle)
        if (start == 0 or not _WORD_CHAR.match(text, start - 1)) and not _WORD_CHAR.match(
            text, end
        ):
            return True
        start = text.find(needle, start + 1)
    return False


def _group(needles: Sequence[str]) -> dict[str, list[int]]:
    """Distinct needles → their positions in ``needles``."""
    positions: dict[str, list[int]] = {}
    for n, needle in enumerate(needles):
        positions.setdefault(needle, []).append(n)
    return positions


def whole_word_mentions(needles: Sequence[str], texts: Sequence[str]) -> list[tuple[int, int]]:
    """Sorted ``(text index, needle index)`` of every needle found in a text as whole words.

    Equals ``[(i, n) for i, x in enumerate(texts) for n, t in enumerate(needles)
    if occurs_as_whole_words(t, x)]``. A whole-word occurrence delimits each word (maximal
    run of ``\\w``) of the needle by non-word characters, so every word of the needle is a
    word of the text: the texts holding all of them are the only candidates checked.
    """
    positions = _group(needles)
    needle_words = {needle: set(words(needle)) for needle in positions}
    vocabulary: set[Hashable] = set().union(*needle_words.values())
    postings = index_sets([text_words(text) for text in texts], vocabulary)
    found: list[tuple[int, int]] = []
    for needle, ids in positions.items():
        for i in _holding_all(postings, needle_words[needle], len(texts)):
            if occurs_as_whole_words(needle, texts[i]):
                found.extend((i, n) for n in ids)
    return sorted(found)


def _holding_all(
    postings: dict[Hashable, list[int]], keys: Collection[str], size: int
) -> list[int]:
    """Positions whose sets hold every key (all ``size`` positions when there is no key)."""
    if not keys:
        return list(range(size))
    lists = sorted((postings.get(key, []) for key in keys), key=len)
    common = set(lists[0])
    for posting in lists[1:]:
        if not common:
            break
        common.intersection_update(posting)
    return sorted(common)


class _Automaton:
    """Aho–Corasick automaton: every needle ending at each character, in one pass."""

    def __init__(self, needles: Sequence[str]) -> None:
        self.goto: list[dict[str, int]] = [{}]
        self.outputs: list[list[int]] = [[]]
        for n, needle in enumerate(needles):
            state = 0
            for char in needle:
                nxt = self.goto[state].get(char)
                if nxt is None:
                    nxt = len(self.goto)
                    self.goto[state][char] = nxt
                    self.goto.append({})
                    self.outputs.append([])
                state = nxt
            self.outputs[state].append(n)
        self.fail = [0] * len(self.goto)
        queue = deque(self.goto[0].values())
        while queue:  # breadth first: a state's fallback is complete before its children's
            state = queue.popleft()
            for char, child in self.goto[state].items():
                queue.append(child)
                fallback = self.fail[state]
                while fallback and char not in self.goto[fallback]:
                    fallback = self.fail[fallback]
                self.fail[child] = self.goto[fallback].get(char, 0)
                self.outputs[child] = self.outputs[child] + self.outputs[self.fail[child]]

    def found_in(self, text: str) -> set[int]:
        """Positions of the needles that occur in ``text``."""
        goto, fail, outputs = self.goto, self.fail, self.outputs
        state, found = 0, set()
        for char in text:
            nxt = goto[state].get(char)
            while nxt is None and state:
                state = fail[state]
                nxt = goto[state].get(char)
            state = nxt or 0
            if outputs[state]:
                found.update(outputs[state])
        return found


def substring_mentions(needles: Sequence[str], texts: Sequence[str]) -> list[tuple[int, int]]:
    """Sorted ``(text index, needle index)`` with ``needle in text``.

    Equals ``[(i, n) for i, x in enumerate(texts) for n, t in enumerate(needles) if t in x]``
    (an empty needle is in every text).
    """
    positions = _group(needles)
    distinct = [needle for needle in positions if needle]
    automaton = _Automaton(distinct)
    everywhere = positions.get("", [])
    found: list[tuple[int, int]] = []
    for i, text in enumerate(texts):
        ids = list(everywhere)
        for d in automaton.found_in(text):
            ids += positions[distinct[d]]
        found += zip([i] * len(ids), ids)
    return sorted(found)


def similar_set_pairs(sets: Sequence[AbstractSet[str]], threshold: float) -> set[tuple[int, int]]:
    """``{(a, b): a < b, |A ∩ B| / |A ∪ B| ≥ threshold}`` (two empty sets overlap by 0).

    Prefix filtering: order all elements by (pool frequency, value); if the overlap of A
    and B reaches t > 0, then ``|A ∩ B| ≥ ⌈t·|A|⌉``, so A's first ``|A| − ⌈t·|A|⌉ + 1``
    elements and B's likewise share one. Only those prefixes are indexed (⌊·⌋ stands for
    ⌈·⌉: it can only lengthen a prefix, so rounding never loses a pair), and the pairs
    they give are checked. A threshold ≤ 0 admits every pair.
    """
    k = len(sets)
    if threshold <= 0:
        return {(a, b) for a in range(k) for b in range(a + 1, k)}
    frequency = Counter(e for members in sets for e in members)
    prefixes: list[list[str]] = []
    for members in sets:
        length = len(members) - math.floor(threshold * len(members)) + 1
        prefixes.append(
            sorted(members, key=lambda e: (frequency[e], e))[:length] if members else []
        )
    _, _, rows, cols = shared_key_pairs(index_sets(prefixes))
    return {
        (a, b)
        for a, b in set(zip(rows.tolist(), cols.tolist()))
        if overlap(sets[a], sets[b]) >= threshold
    }


def overlap(a: AbstractSet[str], b: AbstractSet[str]) -> float:
    """Jaccard overlap ``|a ∩ b| / |a ∪ b|`` (0 for two empty sets), with one set operation.

    The same quotient of the same integers as
    :func:`cage_core.ranking.contradiction.keyword_overlap`.
    """
    common = len(a & b)
    union = len(a) + len(b) - common
    return common / union if union else 0.0
