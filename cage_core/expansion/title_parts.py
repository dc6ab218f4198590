"""Which parts of a document's title a question or a passage may write for it, and where one
stands in its words (routing's step 1c, :func:`cage_core.expansion.title_route.titles_written`;
the titles a passage cites, :func:`titles_cited`)."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

from cage_core.expansion.document_names import DocumentNames, words_held
from cage_core.expansion.documents import marks_its_name, name_words, title_word
from cage_core.lang.en import DEFINITE_ARTICLE, GENERIC_WORDS, STOP_WORDS
from cage_core.names.documents import fold

__all__ = [
    "COMMON_TITLE_SHARE",
    "MAX_CITED_CANDIDATES",
    "MAX_CITED_WORDS",
    "MAX_TITLE_HOLDERS",
    "MIN_CITED_TITLE_WORDS",
    "Match",
    "capital_runs",
    "code_words",
    "longest_matches",
    "named_at",
    "position",
    "title_parts",
    "titles_cited",
    "written_as_code",
]

MAX_TITLE_HOLDERS = 4
"""A title names a document only when one of its words, or all its words together
(:func:`~cage_core.expansion.document_names.held_by_all`), are held by at most this many
documents' titles ("Franchise
Agreement" of many franchise agreements names none; "ALTER TABLE" of the SQL commands' pages,
each word in many of their names, names one)."""
MAX_CITED_CANDIDATES = 16
"""The most documents whose title is compared with a passage's words (:func:`titles_cited`)."""
MAX_CITED_WORDS = 128
"""The most distinct words of a passage, in reading order, looked up among the titles'
words (:func:`titles_cited`): a 500-character chunk has fewer; it bounds what a long passage
costs, above all against a store with an integrity key, which checks each word it finds."""
COMMON_TITLE_SHARE = 0.5
"""A word at a title's end that more than this share of the documents' titles hold is read
apart from it: the collection's name, not the document's."""
MIN_CITED_TITLE_WORDS = 2
"""The fewest words of a title a text writes to cite its document (:func:`titles_cited`): a
one-word title ("Installation") is a word of many texts."""


def title_parts(
    title: list[str], counts: Mapping[str, int], total: int, *, core_runs: bool = True
) -> list[tuple[str, ...]]:
    """The parts of ``title`` a question may write for it, longest first, ``counts`` saying
    how many of the ``total`` documents' titles hold each word: the title; the title less the
    words at its end, at its start, at both ends that more than :data:`COMMON_TITLE_SHARE` of
    them hold; and, with ``core_runs``, every run of its words that holds its *core*, the
    shortest run with every one of its words that no other title holds ("board meeting
    substitutes" of "Rust Foundation Board Meeting Substitutes"), when it has such a word: a
    word never a name on its own is none (``GENERIC_WORDS``: "what" of "What is Ownership?",
    or "what is" would name it), nor is a stop word (``STOP_WORDS``: "is" of "What is
    here", or "What is the version numbering scheme?" would name it)."""
    common = [counts.get(w, 0) > total * COMMON_TITLE_SHARE for w in title]
    end = len(title)
    while end > 0 and common[end - 1]:
        end -= 1
    start = 0
    while start < len(title) and common[start]:
        start += 1
    parts = [tuple(title), tuple(title[:end]), tuple(title[start:]), tuple(title[start:end])]
    never = GENERIC_WORDS | STOP_WORDS
    rarest = [i for i, w in enumerate(title) if counts.get(w, 0) <= 1 and w not in never]
    if rarest and core_runs:
        first, last = rarest[0], rarest[-1] + 1
        parts += [tuple(title[a:b]) for a in range(first + 1) for b in range(last, len(title) + 1)]
    return sorted(dict.fromkeys(p for p in parts if p), key=len, reverse=True)


_CODE_NAME = re.compile(r"[^\W_]+(?:_[^\W_]+)+")


def written_as_code(word: str) -> bool:
    """Whether ``word`` is written as code, words joined by underscores (``find_package``,
    ``target_link_libraries``): no prose word is, so a page whose whole name it is is named
    wherever a question writes it, not only after "the" (routing's step 1c)."""
    return _CODE_NAME.fullmatch(word) is not None


_PATH = re.compile(r"\w+(?:::\w+)+")


def code_words(text: str) -> set[str]:
    """The words ``text`` writes as parts of a path joined by "::" ("fs::read_to_string",
    "URI::Escape"), folded: code, so each may name a page wherever it stands."""
    return {fold(part) for found in _PATH.findall(text) for part in found.split("::")}


_CAPITAL_RUN = re.compile(r"(?<![\w.])[A-Z][A-Z0-9_]+(?:[ \t]+[A-Z][A-Z0-9_]+)+(?!\w|\.\w)")


def capital_runs(text: str) -> list[tuple[str, ...]]:
    """The runs of two or more words ``text`` writes in capitals alone ("ALTER TABLE",
    "CREATE INDEX CONCURRENTLY", "EXPLAIN ANALYZE"), each as its folded words: a command or
    keyword, written as code is, so a title that starts one names its page wherever it stands
    (routing's step 1c); one such word alone is an acronym ("API"), read otherwise."""
    return [tuple(fold(w) for w in m.group(0).split()) for m in _CAPITAL_RUN.finditer(text)]


def position(tokens: list[str], phrase: tuple[str, ...]) -> int | None:
    """Where ``phrase`` first stands in ``tokens`` as consecutive words, or ``None``."""
    for start in range(len(tokens) - len(phrase) + 1):
        if tuple(tokens[start : start + len(phrase)]) == phrase:
            return start
    return None


def named_at(
    tokens: list[str],
    phrase: tuple[str, ...],
    skipped: Collection[str],
    code: Collection[str] = (),
) -> int | None:
    """Where ``phrase``, a title read only where it stands as a name, first stands in
    ``tokens``: after "the", or after "the" and words of ``skipped`` (the collection's own
    name: "the libxslt FAQ"), or after "the", a word and "and" or "or" ("the random and
    secrets modules"); one word written as code (:func:`written_as_code`, or in ``code``,
    :func:`code_words`) anywhere ("what does find_package accept", "how does thread::spawn
    panic"). ``None`` where it stands in neither way."""
    if len(phrase) == 1 and (written_as_code(phrase[0]) or phrase[0] in code):
        return position(tokens, phrase)
    passed = set(skipped) - {DEFINITE_ARTICLE, *_JOINED}
    for start in range(1, len(tokens) - len(phrase) + 1):
        if tuple(tokens[start : start + len(phrase)]) == phrase:
            before = start - 1
            while before > 0 and tokens[before] in passed:
                before -= 1
            if tokens[before] in _JOINED and before >= 1:  # "the random and secrets modules"
                before -= 1 if tokens[before - 1] == DEFINITE_ARTICLE else min(2, before)
            if tokens[before] == DEFINITE_ARTICLE:
                return start
    return None


_JOINED = ("and", "or")
"""The words that join a name to the one before it under one "the"."""


Match = tuple[int, int, str, tuple[str, ...]]
"""A title written in a text: ``(-length, start, doc_id, words)``, so sorting puts the longest,
then the earliest, first."""


def longest_matches(found: list[Match]) -> tuple[list[Match], bool]:
    """The matches of ``found`` that no longer (or as long and earlier) match overlaps, in
    that order; and whether two documents' titles stand on one span (every match on such a
    span is left out: one title of several documents names none of them)."""
    chosen: list[Match] = []
    shared: set[tuple[int, int]] = set()
    for match in sorted(found):
        if match[:2] in shared:
            continue
        span = set(range(match[1], match[1] - match[0]))
        clash = [c for c in chosen if span & set(range(c[1], c[1] - c[0]))]
        if any(c[:2] == match[:2] for c in clash):
            shared.add(match[:2])
            chosen = [c for c in chosen if c[:2] != match[:2]]
        elif not clash:
            chosen.append(match)
    return chosen, bool(shared)


def titles_cited(
    text: str,
    names: DocumentNames,
    *,
    least: int = MIN_CITED_TITLE_WORDS,
    excluded: Collection[str] = (),
) -> list[tuple[str, str]]:
    """``(doc_id, phrase)`` of the documents whose title ``text`` writes, in the order it
    writes them: a document's marked name (its title's words held as
    :func:`~cage_core.expansion.documents.title_word`), whole or less the words at its ends
    most titles hold (:func:`title_parts` without core runs: a text that cites a document
    writes its title, where a question may shorten "Contract code size limit" to "code
    size"), of at least ``least`` words, one of them in at most :data:`MAX_TITLE_HOLDERS`
    documents' titles, as consecutive words
    of ``text`` in any case, its identifiers left out (those are cited as identifiers). Of
    overlapping titles the longer is cited; documents that share one title are none of them
    cited (:func:`longest_matches`).
    Reads the records of the :data:`MAX_CITED_CANDIDATES` documents whose titles hold most
    of the text's rare title words only, none of ``excluded`` (the citing text's own), and
    the text's first :data:`MAX_CITED_WORDS` distinct words only."""
    tokens = name_words(text)
    marked = {title_word(w): w for w in list(dict.fromkeys(tokens))[:MAX_CITED_WORDS]}
    held = names.document_frequencies(marked)
    rare = [w for w in marked if 0 < held.get(w, 0) <= MAX_TITLE_HOLDERS]
    count = words_held(names, rare)
    titles: dict[str, list[str]] = {}
    candidates = sorted((d for d in count if d not in excluded), key=lambda d: (-count[d], d))
    stored = names.documents(leading := candidates[:MAX_CITED_CANDIDATES])  # one read for all
    for doc_id, record in ((d, stored[d]) for d in leading if d in stored):
        title = name_words(record.name)
        if len(title) >= least and marks_its_name(record, title):
            titles[doc_id] = title
    in_titles = names.document_frequencies({title_word(w) for t in titles.values() for w in t})
    counts = {w: in_titles.get(title_word(w), 0) for t in titles.values() for w in t}
    total = names.document_count()
    found: list[Match] = []
    for doc_id, title in titles.items():
        for phrase in title_parts(title, counts, total, core_runs=False):
            if len(phrase) < least or min(counts[w] for w in phrase) > MAX_TITLE_HOLDERS:
                continue
            start = position(tokens, phrase)
            if start is not None:
                found.append((-len(phrase), start, doc_id, phrase))
                break
    chosen, _ = longest_matches(found)
    return [
        (doc_id, " ".join(phrase)) for _, _, doc_id, phrase in sorted(chosen, key=lambda c: c[1])
    ]
