"""Which parts of a document's title a question may write for it, and where one stands in the
question's words (routing's step 1c, :func:`cage_core.expansion.routing.titles_written`)."""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["COMMON_TITLE_SHARE", "MAX_TITLE_HOLDERS", "position", "title_parts"]

MAX_TITLE_HOLDERS = 4
"""A title names a document only when one of its words is held by at most this many
documents' titles ("Franchise Agreement" of many franchise agreements names none)."""
COMMON_TITLE_SHARE = 0.5
"""A word at a title's end that more than this share of the documents' titles hold is read
apart from it: the collection's name, not the document's."""


def title_parts(title: list[str], counts: Mapping[str, int], total: int) -> list[tuple[str, ...]]:
    """The parts of ``title`` a question may write for it, longest first, ``counts`` saying
    how many of the ``total`` documents' titles hold each word: the title; the title less the
    words at its end, at its start, at both ends that more than :data:`COMMON_TITLE_SHARE` of
    them hold; and every run of its words that holds its *core*, the shortest run with every
    one of its words that no other title holds ("board meeting substitutes" of "Rust
    Foundation Board Meeting Substitutes"), when it has such a word."""
    common = [counts.get(w, 0) > total * COMMON_TITLE_SHARE for w in title]
    end = len(title)
    while end > 0 and common[end - 1]:
        end -= 1
    start = 0
    while start < len(title) and common[start]:
        start += 1
    parts = [tuple(title), tuple(title[:end]), tuple(title[start:]), tuple(title[start:end])]
    rarest = [i for i, w in enumerate(title) if counts.get(w, 0) <= 1]
    if rarest:
        first, last = rarest[0], rarest[-1] + 1
        parts += [tuple(title[a:b]) for a in range(first + 1) for b in range(last, len(title) + 1)]
    return sorted(dict.fromkeys(p for p in parts if p), key=len, reverse=True)


def position(tokens: list[str], phrase: tuple[str, ...]) -> int | None:
    """Where ``phrase`` first stands in ``tokens`` as consecutive words, or ``None``."""
    for start in range(len(tokens) - len(phrase) + 1):
        if tuple(tokens[start : start + len(phrase)]) == phrase:
            return start
    return None
