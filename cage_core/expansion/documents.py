"""What the link index knows of a whole document: its name and the words that name it.

A question about one of many similar documents (contracts, reports, manuals of one product
line) names the document, not the passage that answers ("Consider the Marketing Affiliate
Agreement between Birch First Global Investments Inc. and Mount Knowledge Holdings Inc.; is
consent required to assign it?"). The passage rarely repeats that name; the document's
opening does. So the link index keeps, per document (chunks sharing a ``doc_id``), one
:class:`DocumentRecord`:

* ``name`` — how the document is shown (in a ``via``): its identifier and title
  ("PEP 634: Structural Pattern Matching: Specification"), else either one, else a meaningful
  file name, else the words of the first line of its opening. The title is the loader's
  (metadata), else the one its opening writes (:func:`~cage_core.names.documents.document_title`:
  a ``Title:`` header field, front matter, HTML's ``<title>``, a first heading); the identifier
  the one it gives itself (:func:`~cage_core.names.documents.own_identifiers`: its file name,
  a ``PEP: 634`` header field). Routing reads a question's words in any case against it;
* ``words`` — the distinct words that may name it: its own identifiers (in their form,
  ``"pep 634"``), those of its title, of its file name and of its opening (the first
  :data:`OPENING_CHARS` characters of its first chunk), folded
  (:func:`~cage_core.names.documents.fold`) ``\\w+`` runs of :data:`MIN_WORD_CHARS` to
  :data:`MAX_WORD_CHARS` characters, at most :data:`MAX_WORDS` (the first ones), sorted;
  and each word of its ``name`` (less its identifiers) once more, marked as a title's
  (:func:`title_word`, ``"title:observers"``), so that how many documents' *names* hold a
  word is one lookup of the same postings: a word of one title may be in every document's
  opening ("Observers:" a header field of every set of minutes, "Meeting observers" the title
  of one procedure); so are the numbers its name writes, each as one word (:func:`number_word`:
  "Git v1.7.0 Release Notes" holds ``"title:v1_7_0"``), one lookup for the one of 485 release
  notes a question's "1.7.0" names.

:func:`document_record` builds one at ingest; :class:`DocumentRecord` validates a stored one
(:class:`~cage_core.expansion.record.LinkIndexFormatError` on wrong types or values over the
bounds). Which words actually name a document is decided at query time, against every
document (:mod:`cage_core.expansion.routing`): a word every contract's opening has
("agreement") names none of them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from cage_core.expansion.record import LinkIndexFormatError, valid_id
from cage_core.metadata import MAX_DOCUMENT_NAME_CHARS
from cage_core.names.documents import (
    IDENTIFIER_WORD,
    document_title,
    fold,
    identifiers,
    own_identifiers,
    references,
    text_lines,
    without_spans,
)
from cage_core.names.forms import words
from cage_core.names.numbers import version_numbers
from cage_core.names.sources import file_stem, folder_name

__all__ = [
    "GENERIC_FILE_STEMS",
    "LinkIndexFormatError",
    "MAX_DOCUMENT_NAME_CHARS",
    "MAX_WORDS",
    "MAX_WORD_CHARS",
    "MIN_WORD_CHARS",
    "NAMES_KEPT",
    "OPENING_CHARS",
    "TITLE_CHARS",
    "DocumentRecord",
    "document_record",
    "document_words",
    "folder_file_name",
    "marks_its_name",
    "meaningful_file_stem",
    "name_words",
    "number_word",
    "title_word",
]

OPENING_CHARS = 1000
"""How much of a document's opening is read for the words that name it."""
TITLE_CHARS = 2000
"""How much of a document's opening is read for its title (a front matter or an HTML head
may run past :data:`OPENING_CHARS`)."""
MIN_WORD_CHARS = 2
"""Shorter words never name a document."""
MAX_WORD_CHARS = 40
"""Longer words never name a document (and stored words longer are rejected)."""
MAX_WORDS = 256
"""Words kept per document (the first ones, in reading order)."""
NAMES_KEPT = 4096
"""How many documents' names :func:`name_words` keeps read (each at most
``MAX_DOCUMENT_NAME_CHARS``)."""
GENERIC_FILE_STEMS = frozenset(
    {
        "readme",
        "changelog",
        "changes",
        "history",
        "news",
        "index",
        "docs",
        "doc",
        "notes",
        "license",
        "licence",
        "copying",
        "contributing",
        "authors",
        "todo",
        "main",
        "intro",
        "introduction",
        "overview",
        "metadata",
        "document",
        "untitled",
    }
)
"""File names (lower-cased, without extension) that name no document: every folder has one."""
TITLE_WORD_PREFIX = "title:"
"""Marks a word of the document's name among its words (:func:`title_word`)."""
_ONE_WORD = re.compile(r"\w+")
"""One word of :func:`~cage_core.names.forms.words` (a run of ``\\w``), read whole."""


@dataclass(frozen=True)
class DocumentRecord:
    """One document's entry in the link index (module docstring).

    Attributes:
        doc_id: the document's id (its chunks' ``doc_id``).
        name: how the document is shown ("" when nothing names it readably).
        words: the distinct words that may name it, sorted.
    """

    doc_id: str
    name: str
    words: tuple[str, ...]

    def __post_init__(self) -> None:
        if not valid_id(self.doc_id):
            raise ValueError(f"DocumentRecord.doc_id must be a valid id, got {self.doc_id!r:.60}")
        if not isinstance(self.name, str) or len(self.name) > MAX_DOCUMENT_NAME_CHARS:
            raise ValueError(
                f"DocumentRecord.name must be a string of at most {MAX_DOCUMENT_NAME_CHARS} "
                f"characters, got {self.name!r:.60}"
            )
        if (
            not isinstance(self.words, tuple)
            or len(self.words) > MAX_WORDS
            or any(not _is_stored_word(word) for word in self.words)
            or list(self.words) != sorted(set(self.words))
        ):
            raise ValueError(
                f"DocumentRecord.words must be at most {MAX_WORDS} distinct sorted lower-case "
                f"words of {MIN_WORD_CHARS}-{MAX_WORD_CHARS} characters"
            )

    def to_stored(self) -> dict[str, Any]:
        """The record as stored (JSON): ``{"doc_id", "name", "words"}``."""
        return {"doc_id": self.doc_id, "name": self.name, "words": list(self.words)}

    @classmethod
    def from_stored(cls, value: Mapping[str, Any]) -> DocumentRecord:
        """A stored record, validated.

        Raises:
            LinkIndexFormatError: wrong types, values over the bounds, words not in form.
        """
        try:
            words_value = value["words"]
            if not isinstance(words_value, list):
                raise ValueError("words is not a list")
            return cls(str_or_fail(value["doc_id"]), str_or_fail(value["name"]), tuple(words_value))
        except (KeyError, TypeError, ValueError) as exc:
            raise LinkIndexFormatError(f"invalid document record: {exc}") from exc


def str_or_fail(value: Any) -> str:
    """``value`` when it is a ``str``; else :class:`ValueError`."""
    if not isinstance(value, str):
        raise ValueError(f"expected a string, got {type(value).__name__}")
    return value


def _is_stored_word(word: Any) -> bool:
    """A folded word of the bounds, an identifier's form (``"pep 634"``) or a title's word
    (:func:`title_word`)."""
    if isinstance(word, str) and word.startswith(TITLE_WORD_PREFIX):
        word = word[len(TITLE_WORD_PREFIX) :]
        return (
            MIN_WORD_CHARS <= len(word) <= MAX_WORD_CHARS and _ONE_WORD.fullmatch(word) is not None
        )
    return (
        isinstance(word, str)
        and MIN_WORD_CHARS <= len(word) <= MAX_WORD_CHARS
        and word == word.lower()
        and (_ONE_WORD.fullmatch(word) or IDENTIFIER_WORD.fullmatch(word)) is not None
    )


def title_word(word: str) -> str:
    """How a word of a document's name is held among its words: ``"title:" + word``."""
    return TITLE_WORD_PREFIX + word


def number_word(number: str) -> str:
    """How a number of a document's name (:func:`~cage_core.names.numbers.version_numbers`)
    is held among its words, marked (:func:`title_word`): one word, ``"1.7.0"`` →
    ``"v1_7_0"``."""
    return "v" + number.replace(".", "_")


def marks_its_name(record: DocumentRecord, name: Sequence[str]) -> bool:
    """Whether ``record`` holds every one of ``name`` (its name's words, :func:`name_words`)
    marked as a title's word (:func:`title_word`); a record written before names were marked
    holds none."""
    return all(title_word(w) in record.words for w in name)


def name_words(name: str) -> list[str]:
    """The folded words of a document's ``name`` that may name it, its identifiers left out
    ("PEP 634: Structural Pattern Matching" → ``["structural", "pattern", "matching"]``); a
    file name's words stay ("Node.js 12 ChangeLog" → ``["node", "js", "12", "changelog"]``)."""
    return list(_name_words(name))


@functools.lru_cache(maxsize=NAMES_KEPT)
def _name_words(name: str) -> tuple[str, ...]:
    """:func:`name_words`, kept for the last :data:`NAMES_KEPT` names: routing reads the same
    candidates' names for many questions."""
    plain = words(fold(without_spans(name, references(name, files=False))))
    return tuple(w for w in plain if MIN_WORD_CHARS <= len(w) <= MAX_WORD_CHARS)


def document_words(*texts: str, identifiers: Sequence[str] = (), name: str = "") -> tuple[str, ...]:
    """The distinct words of ``texts`` that may name a document (module docstring), after
    its own ``identifiers`` (in their form, ``"pep 634"``) and the marked words and numbers
    of its ``name`` (:func:`title_word`), sorted: the first :data:`MAX_WORDS` distinct ones in
    reading order."""
    numbers = [number_word(n) for n in sorted(version_numbers(name))] if name else []
    marked = [title_word(w) for w in [*name_words(name), *numbers]]
    seen: dict[str, None] = dict.fromkeys([*identifiers, *marked][:MAX_WORDS])
    for text in texts:
        for word in words(fold(text)):
            if len(seen) == MAX_WORDS:
                return tuple(sorted(seen))
            if MIN_WORD_CHARS <= len(word) <= MAX_WORD_CHARS:
                seen[word] = None
    return tuple(sorted(seen))


def meaningful_file_stem(source: str) -> str:
    """The file name of ``source`` (a path) without its extension, when it names something:
    "" for a generic name (:data:`GENERIC_FILE_STEMS`), for a number, or for no file name.
    ``"contracts/Birch_MA_Agreement.txt"`` → ``"Birch MA Agreement"``."""
    readable = _readable_stem(source)
    if not readable or readable.lower() in GENERIC_FILE_STEMS or readable.isdigit():
        return ""
    return readable


_STEM_WORD = re.compile(r"\d+(?:\.\d+)+|\w+")


def _readable_stem(source: str) -> str:
    """The words of the file name of ``source`` (a path) without its extension, a version
    kept whole (``"CC0-1.0"`` → ``"CC0 1.0"``)."""
    name = PurePath(source.replace("\\", "/")).name if source else ""
    return " ".join(_STEM_WORD.findall(file_stem(name).replace("_", " ")))


def folder_file_name(source: str) -> str:
    """A generic file (:data:`GENERIC_FILE_STEMS`) named after its nearest folder that names
    something (:func:`~cage_core.names.sources.folder_name`): ``"packages/tmux/README"`` →
    ``"tmux README"``; "" for any other file, or where no folder names anything."""
    folder, stem = _generic_file_folder(source)
    return f"{folder} {stem}" if folder else ""


def _generic_file_folder(source: str) -> tuple[str, str]:
    """``(folder, file)`` of :func:`folder_file_name`: ``("tmux", "README")``, or ``("", …)``."""
    stem = _readable_stem(source)
    return (folder_name(source) if stem.lower() in GENERIC_FILE_STEMS else ""), stem


def document_record(
    doc_id: str, *, opening: str, title: str = "", source: str = "", head: str | None = None
) -> DocumentRecord:
    """The record of document ``doc_id`` from what ingest sees: the text of its first chunk
    (``opening``), its title (metadata), its file path (``source``; ``doc_id`` itself when
    that is a path), and its first chunks' text (``head``, default ``opening``:
    :func:`~cage_core.expansion.openings.document_openings`), where a title the first chunk
    cuts off is read when the metadata gives none.

    ``name``: ``"{identifier}: {title}"`` (the title alone when it writes the identifier; not
    an identifier that is only a part of its file name, "ch04-01-what-is-ownership.html"),
    else ``"{folder} {file}: {title}"`` for a generic file name (its nearest folder that
    names something, :func:`~cage_core.names.sources.folder_name`: ``"tmux README: Welcome to
    tmux"``; the title alone when the folder's name holds its words), else the title, else
    the identifier, else the meaningful file name, else ``"{folder} {file}"``, else the words of
    the opening's first line that has any; cut to :data:`MAX_DOCUMENT_NAME_CHARS`. The
    file name is one of its identifiers even when generic (``LICENSE.txt``: routing reads it
    only where at most two documents have it, :data:`~cage_core.expansion.routing.MAX_OWNERS`),
    and so are those of the folder that names a generic file, or a file named by its name
    alone (``sqlite3/changelog.Debian``, ``bzip2/copyright``: ``"sqlite 3"``, ``"bzip 2"``,
    which the name's words leave out).
    """
    path = source or doc_id
    readable_stem = meaningful_file_stem(path)
    folder, stem = _generic_file_folder(path)
    folder_file = f"{folder} {stem}" if folder else ""  # "packages/tmux/README": "tmux README"
    title = " ".join(title.split()) or document_title(
        (opening if head is None else head)[:TITLE_CHARS]
    )
    opening = opening[:OPENING_CHARS]
    file_name = PurePath(path.replace("\\", "/")).name
    own = own_identifiers(opening, file_name, title)
    stem = file_stem(file_name)  # "ch04-01-what-is-ownership": "CH 04" is no name of it
    partial = {i.word for i in identifiers(stem) if i.end - i.start < len(stem)}
    series = [i for i in own if " " in i.word and i.word not in partial]  # "PEP 634", no date
    identifier = series[0].shown if series else ""
    first_line = next((" ".join(words(line)) for line in text_lines(opening) if words(line)), "")
    if title and identifier and series[0].word not in {i.word for i in identifiers(title)}:
        name = f"{identifier}: {title}"
    elif title and folder and not set(words(fold(title))) <= set(words(fold(folder))):
        name = f"{folder_file}: {title}"
    else:
        name = title or identifier or readable_stem or folder_file or first_line
    name = name[:MAX_DOCUMENT_NAME_CHARS]
    home = folder or ("" if title or identifier else folder_name(path))  # "curl/copyright"
    own_words = [found.word for found in own + identifiers(home)]  # "sqlite3/copyright"
    return DocumentRecord(
        doc_id,
        name,
        document_words(title, readable_stem, home, opening, identifiers=own_words, name=name),
    )
