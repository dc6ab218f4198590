"""How routing reads a question: the names it writes, its plain words, and the question
less the words that name documents (:mod:`cage_core.expansion.routing`).

* :func:`written_names` — the runs of words written as names ("Acme Government Solutions");
* :func:`plain_words` — every distinct word outside the identifiers, file names and dates it
  writes (:func:`~cage_core.names.documents.references`);
* :func:`without_words` — the question less the words (and the references) that name
  documents: what a named document's chunks are searched and ranked with.

Words are folded (:func:`~cage_core.names.documents.fold`), of
:data:`~cage_core.expansion.documents.MIN_WORD_CHARS` to ``MAX_WORD_CHARS`` characters.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

from cage_core.expansion.documents import MAX_WORD_CHARS, MIN_WORD_CHARS
from cage_core.names.documents import file_names, fold, references, without_spans
from cage_core.names.forms import words

__all__ = [
    "plain_words",
    "title_tokens",
    "within",
    "without_words",
    "written_names",
]

_TOKEN = re.compile(r"\w+|\W+")
_SPACE_BEFORE_MARK = re.compile(r"\s+([.,;:!?])")
_WORD_OR_STOP = re.compile(r"\w+|[^\w]+")
_WITHIN_NAME = re.compile(r"(?:\.?[ \t]*[-&'’][ \t]*|\.?[ \t]+|\.)")
_SENTENCE_END = re.compile(r"[.?!;:]\s")
"""What may stand between two words of one written name (:func:`written_names`)."""


def written_names(question: str) -> list[tuple[str, ...]]:
    """The names ``question`` writes: each run of adjacent words written as names —
    capitalised but not a sentence's first word ("Birch"), or with a capital after their first
    letter ("ConvergTV", "CONTENT", "iPSC") —, as its words of ``MIN_WORD_CHARS`` to
    ``MAX_WORD_CHARS`` characters, lower-cased ("Acme Government Solutions" → ``("acme",
    "government", "solutions")``). A run continues across spaces, hyphens, apostrophes,
    ampersands and the period of an abbreviation ("Holdings Inc. Ltd"), and ends at any other
    mark or word. A question's ordinary words ("renewal", "term") never route it, even when a
    document's opening happens to hold them."""
    names: list[tuple[str, ...]] = []
    run: list[str] = []
    sentence_start = True
    for match in _WORD_OR_STOP.finditer(question):
        token = match.group(0)
        if not token[0].isalnum() and token[0] != "_":
            if not _WITHIN_NAME.fullmatch(token):
                names.append(tuple(run))
                run = []
            sentence_start = sentence_start or bool(_SENTENCE_END.search(token))
            continue
        written_as_name = any(c.isupper() for c in token[1:]) or (
            token[0].isupper() and not sentence_start
        )
        sentence_start = False
        if not written_as_name:
            names.append(tuple(run))
            run = []
            continue
        word = fold(token)
        if MIN_WORD_CHARS <= len(word) <= MAX_WORD_CHARS:
            run.append(word)
    names.append(tuple(run))
    return [name for name in names if name]


def plain_words(question: str) -> list[str]:
    """The distinct folded words of ``question`` outside its identifiers (a file name's
    words in), of ``MIN_WORD_CHARS`` to ``MAX_WORD_CHARS`` characters, in order."""
    return list(dict.fromkeys(title_tokens(question, {})))


def title_tokens(question: str, held: Mapping[str, int]) -> list[str]:
    """The folded words of ``question`` a title may stand on, in order: outside its
    identifiers, dates and the file names a document holds (``held``: how many documents
    hold each), so "Node.js" of "Node.js 12" is words where no document is "node.js"."""
    owned = [f for f in file_names(question) if held.get(f.word)]
    plain = words(fold(without_spans(question, references(question, files=False) + owned)))
    return [w for w in plain if MIN_WORD_CHARS <= len(w) <= MAX_WORD_CHARS]


def without_words(question: str, dropped: Collection[str]) -> str:
    """``question`` without the identifiers and the words in ``dropped`` (folded), spaces
    collapsed; the question itself when nothing else would be left.

    The words of ``dropped`` go by runs (adjacent words of ``dropped``, as a name is written):
    a run in lower case whose words another run of the question holds with more, or holds
    written as a name (a capital past the question's first letter), stays, as the question's
    own words ("what cap on refunds does the reduction in refunds proposal set": the first
    "refunds" stays; "the January board meeting" beside "the board meeting substitutes
    policy"; "the LICENSE AND HOSTING AGREEMENT …; is a license granted": the second
    "license"); every other run goes, one written as a name too ("who first used the Iris
    database", beside "the Iris plants dataset")."""
    rest = without_spans(question, [f for f in references(question) if f.word in dropped])
    tokens = _TOKEN.findall(rest)
    is_word = [t[0].isalnum() or t[0] == "_" for t in tokens]
    runs: list[list[int]] = []
    joins: list[list[int]] = []  # a "::" between a run's words ("URI::Escape"): goes with them
    run: list[int] = []
    join: list[int] = []
    between: list[int] = []
    for i, token in enumerate(tokens):
        if is_word[i] and fold(token) in dropped:
            join += between if run else []
            run.append(i)
            between = []
        elif run and not is_word[i] and token == "::":
            between.append(i)  # a namespace's "::" between two words of one name
        elif run and not is_word[i] and _WITHIN_NAME.fullmatch(token):
            continue  # a space or hyphen between two words of one name
        elif run:
            runs.append(run)
            joins.append(join)
            run, join, between = [], [], []
    if run:
        runs.append(run)
        joins.append(join)
    held = [{fold(tokens[i]) for i in r} for r in runs]
    first = is_word.index(True) if True in is_word else -1
    as_name = [any(c.isupper() for i in r if i != first for c in tokens[i]) for r in runs]

    def stays(n: int) -> bool:
        mine = held[n]
        return not as_name[n] and any(
            mine < other or (mine <= other and name) for other, name in zip(held, as_name)
        )

    gone = {i for n, r in enumerate(runs) if not stays(n) for i in r + joins[n]}
    kept = [t for i, t in enumerate(tokens) if i not in gone]
    shortened = _SPACE_BEFORE_MARK.sub(r"\1", " ".join("".join(kept).split()))
    return shortened if words(shortened) else question


def within(part: tuple[str, ...], whole: tuple[str, ...]) -> bool:
    """Whether ``part`` stands as consecutive words of ``whole``."""
    return any(whole[i : i + len(part)] == part for i in range(len(whole) - len(part) + 1))
