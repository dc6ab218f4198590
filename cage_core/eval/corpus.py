"""The corpus of the open setting: distinct passages, and where a question's passages are in it.

A corpus is built either from the pools of one evaluation file (:func:`corpus_from_pools`:
every distinct passage of every question's pool, in order of first appearance) or read from
a JSON Lines file of passages (:func:`load_corpus`), one object per line::

    {"text": "...", "title": "..." (optional), "id": "..." (optional, str or int),
     "doc_id": "..." (optional, str or int), "position": 0 (optional, int >= 0)}

``doc_id`` and ``position`` (the chunk's document and its 0-based place in it, what a text
splitter keeps) become :attr:`Passage.doc_id <cage_core.passage.Passage.doc_id>` and
``Passage.position``. Other keys are ignored. ``text`` must be a non-empty string; ids, when given,
must be unique (a passage without one gets its index in the corpus). A malformed line raises
:class:`~cage_core.eval.datasets.DatasetFormatError` naming the file and the line.

Passages are distinct by ``(title, text)``, or by ``text`` alone when titles are dropped
(``titles=False``: every corpus passage then has ``title=""``, so titles reach neither the
embedder, nor BM25, nor the passage graphs). A repeated passage keeps its first id. Within
one document only: a chunk whose text recurs in another ``doc_id`` is that document's own.

:meth:`Corpus.find` maps a question's passage to its corpus index: by ``(title, text)``, or
failing that (or without titles) by its text when exactly one corpus passage has that text.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cage_core.eval.datasets import DatasetFormatError, EvalPassage, EvalQuestion, json_lines
from cage_core.passage import Passage

__all__ = [
    "Corpus",
    "build_corpus",
    "corpus_from_pools",
    "load_corpus",
]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Corpus:
    """Distinct passages (``Passage.id`` set on each) and their lookup by content."""

    passages: tuple[Passage, ...]
    source: str
    """Where the passages come from: ``"pools"`` or the path of a corpus file."""
    titles: bool
    _by_content: dict[tuple[str, str], int] = field(repr=False, compare=False)
    _by_text: dict[str, tuple[int, ...]] = field(repr=False, compare=False)
    _by_id: dict[str, int] = field(repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.passages)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(p.id or "" for p in self.passages)

    def position(self, passage_id: str) -> int | None:
        """The corpus index of the passage with id ``passage_id``, or ``None``."""
        return self._by_id.get(passage_id)

    def find(self, passage: EvalPassage | Passage) -> int | None:
        """The corpus index of ``passage`` (see the module docstring), or ``None``."""
        if self.titles:
            index = self._by_content.get((passage.title, passage.text))
            if index is not None:
                return index
        matches = self._by_text.get(passage.text, ())
        return matches[0] if len(matches) == 1 else None


CorpusItem = tuple[str | None, str, str, str | None, int | None]
"""``(id, title, text, doc_id, position)`` of one corpus passage."""


def build_corpus(items: Iterable[CorpusItem], *, source: str, titles: bool) -> Corpus:
    """A corpus of the distinct ``(id, title, text, doc_id, position)`` items, first occurrence
    kept; an item without an id (``None``) gets its corpus index."""
    passages: list[Passage] = []
    by_content: dict[tuple[str, str], int] = {}
    by_text: dict[str, list[int]] = defaultdict(list)
    seen_ids: set[str] = set()
    seen: set[tuple[str, str, str | None]] = set()
    for pid, title, text, doc_id, position in items:
        title = title if titles else ""
        if (title, text, doc_id) in seen:
            continue
        seen.add((title, text, doc_id))
        pid = str(len(passages)) if pid is None else pid
        if pid in seen_ids:
            raise DatasetFormatError(f"{source}: passage id {pid!r} is used twice")
        seen_ids.add(pid)
        by_content.setdefault((title, text), len(passages))
        by_text[text].append(len(passages))
        passages.append(Passage(text=text, title=title, id=pid, doc_id=doc_id, position=position))
    if not passages:
        raise DatasetFormatError(f"{source}: the corpus has no passages")
    return Corpus(
        tuple(passages),
        source,
        titles,
        by_content,
        {t: tuple(ids) for t, ids in by_text.items()},
        {p.id: i for i, p in enumerate(passages) if p.id is not None},
    )


def corpus_from_pools(questions: Sequence[EvalQuestion], *, titles: bool = True) -> Corpus:
    """The distinct passages of the pools of ``questions`` (with their ``doc_id`` /
    ``position``); ids are their corpus indices."""
    items = ((None, p.title, p.text, p.doc_id, p.position) for q in questions for p in q.passages)
    return build_corpus(items, source="pools", titles=titles)


def load_corpus(path: str | Path, *, titles: bool = True) -> Corpus:
    """The passages of a JSON Lines corpus file (format and checks: the module docstring)."""
    path = Path(path)
    items: list[CorpusItem] = []
    with path.open("r", encoding="utf-8", errors="strict") as handle:
        for number, record in json_lines(handle, str(path)):
            where = f"{path}:{number}"
            if not isinstance(record, dict):
                raise DatasetFormatError(f"{where}: a corpus passage must be a JSON object")
            text, title, pid = record.get("text"), record.get("title", ""), record.get("id")
            if not isinstance(text, str) or not text.strip():
                raise DatasetFormatError(f"{where}: 'text' must be a non-empty string")
            if title is None:
                title = ""
            if not isinstance(title, str):
                raise DatasetFormatError(f"{where}: 'title' must be a string")
            if pid is not None and (isinstance(pid, bool) or not isinstance(pid, (str, int))):
                raise DatasetFormatError(f"{where}: 'id' must be a string or an integer")
            doc_id, position = record.get("doc_id"), record.get("position")
            if doc_id is not None and (
                isinstance(doc_id, bool) or not isinstance(doc_id, (str, int))
            ):
                raise DatasetFormatError(f"{where}: 'doc_id' must be a string or an integer")
            if position is not None and (
                isinstance(position, bool) or not isinstance(position, int) or position < 0
            ):
                raise DatasetFormatError(f"{where}: 'position' must be an integer >= 0")
            items.append(
                (
                    None if pid is None else str(pid),
                    title,
                    text,
                    None if doc_id is None else str(doc_id),
                    position,
                )
            )
    corpus = build_corpus(items, source=str(path), titles=titles)
    if len(corpus) < len(items):
        logger.info("%s: %d repeated passages ignored", path, len(items) - len(corpus))
    return corpus
