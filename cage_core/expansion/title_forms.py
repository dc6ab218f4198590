"""The forms a question may write a document's title in (routing's step 1c,
:func:`~cage_core.expansion.title_route.titles_written`).

A question names a document by its title, but seldom writes the title as the document sets
it: "Uniform Resource Identifier (URI): Generic Syntax" is asked about as "the URI generic
syntax" or "the uniform resource identifier spec", "The JavaScript Object Notation (JSON)
Data Interchange Format" as "the JSON data interchange format", "GNU Free Documentation
License Version 1.3" as "version 1.3 of the GNU Free Documentation License". Beside the
parts of the title itself (:func:`~cage_core.expansion.title_parts.title_parts`),
:func:`title_forms` gives the parts of these forms of the document's name:

* **its acronym for the words it abbreviates**, and those words without it: a parenthesised
  acronym right after the words whose initials spell it ("JavaScript Object Notation (JSON)":
  a word gives its first letter, or that and its capitals, "JavaScript" → "JS"; an "s" after
  the capitals is a plural, "(IRIs)");
* **its main title**, the name up to its first colon, or a dash or bar set between spaces
  ("Uniform Resource Identifier (URI)" of "…: Generic Syntax", "apt-get" of a manual page's
  "apt-get - APT package handling utility", "Domain" of "Domain | Node.js Documentation";
  identifiers are read first and left out, so "RFC 3986: …" has no main title "RFC 3986"),
  and what follows it ("A Git Glossary" of "gitglossary - A Git Glossary");
* **its file's words**, two or more (:func:`~cage_core.expansion.documents.meaningful_file_stem`
  of its id): "writing tests" of ``writing-tests.md``, titled "How to write a test for the
  Node.js project"; or one its title holds ("heapq" of ``heapq.html``, "Python: module
  heapq"), which then names it alone (:func:`names_alone`); and, for a document named by its
  file's name alone, that name after its folder's ("curl copyright" of ``curl/copyright``,
  whose file name many folders' files share);
* **its family's name**, without its version: the words before its first number, with and
  without the word just before it ("GNU Free Documentation License Version" and "GNU Free
  Documentation License"; :mod:`cage_core.expansion.versions` tells the versions apart).

Each form counts as the title does: the same words, read by how many documents' names hold
them, so a form every version or every part of a series shares names none of them.

A question may also abbreviate words of a title the title itself writes out: "the Lesser GPL
2.1" of "GNU Lesser General Public License Version 2.1". :func:`spelled_out` reads a word the
question writes in capitals (:func:`written_acronyms`) as the consecutive words of a title
whose initials spell it, where the title does not hold the word itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from cage_core.expansion.documents import DocumentRecord, meaningful_file_stem, name_words
from cage_core.expansion.title_parts import position, title_parts
from cage_core.expansion.versions import first_number
from cage_core.names.documents import fold, references, without_spans
from cage_core.names.forms import words
from cage_core.names.sources import folder_name

__all__ = [
    "MAX_ACRONYM_LETTERS",
    "abbreviated",
    "acronyms",
    "code_parts",
    "main_title",
    "names_alone",
    "spelled_out",
    "title_forms",
    "written_acronyms",
]

MAX_ACRONYM_LETTERS = 8
"""A parenthesised word of more letters is read as no acronym."""

_ACRONYM = re.compile(r"\(\s*([A-Z][A-Za-z0-9/.-]*)\s*\)")
_WORD = re.compile(r"[^\W\d_][\w'-]*")
_MAIN_TITLE_END = re.compile(r"(?<!:):(?!:)|\s(?:[-\u2013\u2014]{1,2}|\|)\s")  # not "URI::Escape"
_SECTION_NUMBER = re.compile(r"^\d+(?:\.\d+)*\.\s+(?=[^\W\d_])")
"""A section's number before a title, its dot and a space before a letter ("10. ", "2.3. ")."""
_CAPITALS = re.compile(rf"\b([A-Z]{{2,{MAX_ACRONYM_LETTERS}}})(s?)\b")


def title_forms(
    record: DocumentRecord | None, title: list[str], counts: Mapping[str, int], total: int
) -> list[tuple[str, ...]]:
    """The parts (:func:`~cage_core.expansion.title_parts.title_parts`) of ``title`` (the
    words of ``record``'s name), then those of the name's other forms (module docstring) that
    are not among them, in that order."""
    parts = title_parts(title, counts, total)
    if record is None:
        return parts
    plain = _without_identifiers(record.name)
    texts = [*abbreviated(plain)]
    main, rest = _main_and_rest(plain)
    texts += [main, *abbreviated(main)] if main.strip() else []
    texts += [rest] if main.strip() and rest else []
    forms = [title_parts(name_words(t), counts, total) for t in texts]
    stem = name_words(meaningful_file_stem(record.doc_id))  # "the writing tests guide"
    if len(stem) >= 2:  # its words are counted in names: no run of them is its core
        forms.append(title_parts(stem, counts, total, core_runs=False))
    elif stem and stem[0] in title:  # "heapq" of heapq.html, "Python: module heapq"
        forms.append([tuple(stem)])
    if stem == title and (home := name_words(folder_name(record.doc_id))):
        forms.append([tuple(home + stem)])  # "the curl copyright file" of curl/copyright
    number = first_number(plain)
    if number is not None:
        head = name_words(plain[:number])
        forms += [
            [tuple(head), tuple(head[:-1])],
            *(title_parts(h, counts, total) for h in (head, head[:-1]) if h),
        ]
    found = [p for parts_of in forms for p in parts_of if p]
    return parts + [p for p in dict.fromkeys(found) if p not in parts]


def main_title(name: str) -> str:
    """The main title of a document's ``name`` (module docstring), its identifiers left out;
    "" when the name has no colon and no dash or bar set between spaces."""
    return _main_and_rest(_without_identifiers(name))[0]


def _without_identifiers(name: str) -> str:
    """``name`` less the identifiers it writes, the colons and dashes left at its ends, and
    the number of its section before it ("10. DHAT: a dynamic heap analysis tool")."""
    plain = without_spans(name, references(name, files=False)).strip(" :-")
    return _SECTION_NUMBER.sub("", plain)


def _main_and_rest(plain: str) -> tuple[str, str]:
    """``plain`` (a name less its identifiers) up to its first colon, or dash or bar set
    between spaces, and what follows that mark; ``("", "")`` without one."""
    found = _MAIN_TITLE_END.search(plain)
    if found is None:
        return "", ""
    return plain[: found.start()], plain[found.start() :].lstrip(" :-\u2013\u2014")


def names_alone(
    phrase: tuple[str, ...],
    title: list[str],
    counts: Mapping[str, int],
    record: DocumentRecord | None,
    *,
    as_name: bool = False,
) -> bool:
    """Whether ``phrase``, one word, names the document after "the": it is the document's
    whole name or its main title (:func:`main_title`), whatever other titles hold it ("the
    offboarding doc", "the Closures page" of "Closures - The Rust Programming Language"), or,
    when no other document's title holds it ("the FAQ", "the URI spec", "the apt_preferences
    page"), its whole ``title``, an acronym the name defines (:func:`acronyms`), or, where
    every other word of the title is another's too, its file's name
    (:func:`~cage_core.expansion.documents.meaningful_file_stem`: "the heapq module" of
    ``heapq.html``, "Python: module heapq"; not "the travel grants" of ``travel.md``, "Travel
    spending policy") or its folder's ("the gzip changelog" of ``gzip/changelog.Debian``,
    "gzip changelog"), or a word the question writes ``as_name``, capitalised ("the HashMap
    page" of "HashMap in std::collections - Rust"; not "the top of Mount Everest" of "Top
    (libffi: …)")."""
    if len(phrase) != 1:
        return False
    whole = (words(fold(record.name)), name_words(main_title(record.name))) if record else ()
    if list(phrase) in whole:
        return True  # "Offboarding" beside "Steward Onboarding/OffBoarding"
    if counts.get(phrase[0], 0) != 1:
        return False
    if len(title) == 1 or (record is not None and phrase[0] in acronyms(record.name)):
        return True
    core = all(counts.get(w, 0) > 1 for w in title if w != phrase[0])  # its one distinct word
    path = record.doc_id if record is not None else ""
    stem = [phrase[0]] in (name_words(meaningful_file_stem(path)), name_words(folder_name(path)))
    return core and (as_name or stem)  # "the HashMap page", "the heapq module"


def acronyms(name: str) -> set[str]:
    """The acronyms ``name`` defines (its parenthesised ones that spell out the words before
    them, :func:`abbreviated`), folded: ``{"uri"}`` of "Uniform Resource Identifier (URI)"."""
    plain = without_spans(name, references(name, files=False))
    return {
        word
        for match in _ACRONYM.finditer(plain)
        if _defined(plain[: match.start()], match.group(1)) is not None
        for word in name_words(match.group(1))
    }


def abbreviated(name: str) -> Iterator[str]:
    """``name`` with each acronym it spells out in parentheses standing for its words, then
    with the words and no acronym (module docstring); nothing when it has none."""
    for match in _ACRONYM.finditer(name):
        before = name[: match.start()]
        start = _defined(before, match.group(1))
        if start is not None:
            after = name[match.end() :]
            yield before[:start] + match.group(1) + after
            yield before.rstrip() + after


def _defined(before: str, acronym: str) -> int | None:
    """Where the words at the end of ``before`` whose initials spell ``acronym`` begin, or
    ``None`` (module docstring)."""
    letters = re.sub(r"[^A-Za-z]", "", acronym)
    if re.fullmatch(r"[A-Z]{2,}s", letters):
        letters = letters[:-1]  # "IRIs": a plural
    if not 2 <= len(letters) <= MAX_ACRONYM_LETTERS:
        return None
    return _spelled_from(list(_WORD.finditer(before)), letters.lower())


def _spelled_from(words: list[re.Match[str]], letters: str) -> int | None:
    """Where the last words of ``words`` whose initials spell ``letters`` begin, or ``None``."""
    if not letters:
        return None
    ends: list[tuple[int, str]] = [(len(words), letters)]  # (words left, letters left)
    while ends:
        left, rest = ends.pop()
        if not rest:
            return words[left].start() if left < len(words) else None
        if left == 0:
            continue
        word = words[left - 1].group(0)
        for initials in dict.fromkeys((word[0], word[0] + "".join(filter(str.isupper, word[1:])))):
            if rest.endswith(initials.lower()):
                ends.append((left - 1, rest[: -len(initials)]))
    return None


def written_acronyms(question: str) -> dict[str, str]:
    """The words ``question`` writes in ASCII capitals (2 to :data:`MAX_ACRONYM_LETTERS` of
    them, a plural "s" after), in lower case (their folded form), each with the letters it
    spells: ``{"gpl": "gpl", "iris": "iri"}`` of "the GPL and IRIs"."""
    return {m.group(0).lower(): m.group(1).lower() for m in _CAPITALS.finditer(question)}


def spelled_out(
    tokens: list[str], written: Mapping[str, str], title: list[str]
) -> tuple[list[str], list[int]]:
    """``tokens`` (a question's folded words) with each acronym of ``written``
    (:func:`written_acronyms`) that ``title`` (its folded words) does not hold but spells out
    standing for the words it spells, where a word the question writes next to it is the
    title's next to them ("Lesser GPL": "lesser general public license"; an acronym alone
    matches some title's initials by chance), and each word written as code whose parts are
    consecutive words of ``title`` standing for them ("feature_test_macros": "feature test
    macros"); and for each word read, the place in ``tokens`` of the word it was read from."""
    read: list[str] = []
    origin: list[int] = []
    for place, token in enumerate(tokens):
        letters = written.get(token)
        run = _run_beside(tokens, place, title, letters) if letters and token not in title else None
        run = run or (_code_parts(token, title) if "_" in token else None)
        for word in run or (token,):
            read.append(word)
            origin.append(place)
    return read, origin


def code_parts(tokens: list[str]) -> list[str]:
    """The words of ``tokens`` written as code, each split at its underscores ("feature",
    "test", "macros" of "feature_test_macros"): the words a title may write for it."""
    return [part for token in tokens if "_" in token for part in token.split("_") if part]


def _code_parts(token: str, title: list[str]) -> list[str] | None:
    """The parts of ``token``, words joined by underscores, where ``title`` holds them as
    consecutive words and not ``token`` itself; or ``None``."""
    parts = token.split("_")
    if token in title or len(parts) < 2 or not all(parts):
        return None
    return parts if position(title, tuple(parts)) is not None else None


def _run_beside(tokens: list[str], place: int, title: list[str], letters: str) -> list[str] | None:
    """The consecutive words of ``title`` whose initials are ``letters`` and next to which
    stands a word that stands next to ``tokens[place]``, on the same side; or ``None``."""
    size = len(letters)
    before = tokens[place - 1] if place else None
    after = tokens[place + 1] if place + 1 < len(tokens) else None
    for start in range(len(title) - size + 1):
        run = title[start : start + size]
        if "".join(word[0] for word in run) != letters:
            continue
        left = title[start - 1] if start else None
        right = title[start + size] if start + size < len(title) else None
        if (left is not None and left == before) or (right is not None and right == after):
            return run
    return None
