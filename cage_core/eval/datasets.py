"""The evaluation record format (JSON Lines, one question per line) and its loader.

Each line is an object::

    {"id": "q1", "dataset": "hotpotqa", "question": "...", "answers": ["..."],
     "type": "bridge" | null,
     "passages": [{"title": "...", "text": "...", "gold": true,
                   "doc_id": "report.pdf", "position": 3}, ...],
     "meta": {...}}

Required: ``question`` (str) and ``passages`` (a non-empty list of objects with a string
``text``). Optional: ``id`` (default ``<file stem>-<line>``), ``dataset`` (default the file
stem), ``answers`` (list of str), ``type`` (str or null), ``title`` (str) and ``gold``
(bool, default false) on passages, and ``meta`` (any object, kept as is). This is the
format of the evaluation files of ``../shared/data`` and of ``cage_core/data/demo.jsonl``.

A passage that is a chunk of a longer document may say which one and where:
``doc_id`` (str or int, read as a string) and ``position`` (its 0-based place in that
document, an int >= 0), the fields of the open setting's corpus
(:mod:`cage_core.eval.corpus`). They become :attr:`Passage.doc_id
<cage_core.passage.Passage.doc_id>` and ``Passage.position``, so a pool whose passages share
a ``doc_id`` is ranked with the document view (:mod:`cage_core.ranking.document_links`), as
the framework rerankers rank split documents: a user measures it on their own chunks. A
``position`` without a ``doc_id`` says nothing and is ignored (the passage is its own
document); ``null`` is the same as leaving a field out.

A malformed line raises :class:`DatasetFormatError` naming the file and the line.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cage_core.jsonl import DatasetFormatError, json_lines  # DatasetFormatError: re-exported

__all__ = [
    "DatasetFormatError",
    "EvalPassage",
    "EvalQuestion",
    "document_place",
    "iter_questions",
    "json_lines",
    "load_questions",
    "parse_record",
]


@dataclass(frozen=True)
class EvalPassage:
    """One passage of a question's pool; ``doc_id`` / ``position``: its document and its
    0-based place in it, or ``None`` (module docstring)."""

    text: str
    title: str = ""
    gold: bool = False
    doc_id: str | None = None
    position: int | None = None


@dataclass(frozen=True)
class EvalQuestion:
    id: str
    dataset: str
    question: str
    passages: tuple[EvalPassage, ...]
    answers: tuple[str, ...] = ()
    type: str | None = None
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def gold_indices(self) -> tuple[int, ...]:
        return tuple(i for i, p in enumerate(self.passages) if p.gold)


def load_questions(path: str | Path) -> list[EvalQuestion]:
    """All records of one JSON Lines file (blank lines are skipped)."""
    return list(iter_questions(path))


def iter_questions(path: str | Path) -> Iterator[EvalQuestion]:
    path = Path(path)
    with path.open("r", encoding="utf-8", errors="strict") as handle:
        for number, record in json_lines(handle, str(path)):
            yield parse_record(
                record,
                where=f"{path}:{number}",
                default_id=f"{path.stem}-{number}",
                default_dataset=path.stem,
            )


def parse_record(record: Any, *, where: str, default_id: str, default_dataset: str) -> EvalQuestion:
    """Validate one decoded record (see the module docstring for the format)."""
    if not isinstance(record, dict):
        raise DatasetFormatError(f"{where}: a record must be a JSON object")
    question = record.get("question")
    if not isinstance(question, str):
        raise DatasetFormatError(f"{where}: 'question' must be a string")
    raw_passages = record.get("passages")
    if not isinstance(raw_passages, list) or not raw_passages:
        raise DatasetFormatError(f"{where}: 'passages' must be a non-empty list")
    passages = []
    for i, p in enumerate(raw_passages):
        if not isinstance(p, dict) or not isinstance(p.get("text"), str):
            raise DatasetFormatError(
                f"{where}: passages[{i}] must be an object with a string 'text'"
            )
        title = p.get("title") or ""
        gold = p.get("gold", False)
        if not isinstance(title, str) or not isinstance(gold, bool):
            raise DatasetFormatError(
                f"{where}: passages[{i}] has a non-string title or non-bool gold"
            )
        doc_id, position = document_place(p, f"{where}: passages[{i}]")
        passages.append(
            EvalPassage(text=p["text"], title=title, gold=gold, doc_id=doc_id, position=position)
        )
    answers = record.get("answers") or []
    if not isinstance(answers, list) or not all(isinstance(a, str) for a in answers):
        raise DatasetFormatError(f"{where}: 'answers' must be a list of strings")
    qtype = record.get("type")
    if qtype is not None and not isinstance(qtype, str):
        raise DatasetFormatError(f"{where}: 'type' must be a string or null")
    meta = record.get("meta") or {}
    if not isinstance(meta, dict):
        raise DatasetFormatError(f"{where}: 'meta' must be an object")
    qid = record.get("id", default_id)
    dataset = record.get("dataset", default_dataset)
    if not isinstance(qid, str) or not isinstance(dataset, str):
        raise DatasetFormatError(f"{where}: 'id' and 'dataset' must be strings")
    return EvalQuestion(
        id=qid,
        dataset=dataset,
        question=question,
        passages=tuple(passages),
        answers=tuple(answers),
        type=qtype,
        meta=meta,
    )


def document_place(item: dict[str, Any], where: str) -> tuple[str | None, int | None]:
    """``(doc_id, position)`` of a passage object (module docstring): ``doc_id`` a string or
    an int (as a string), ``position`` an int >= 0, each absent or ``null`` for ``None``; a
    ``position`` without a ``doc_id`` is ``None``. Anything else raises
    :class:`DatasetFormatError` naming ``where``."""
    doc_id, position = item.get("doc_id"), item.get("position")
    if doc_id is not None and (isinstance(doc_id, bool) or not isinstance(doc_id, (str, int))):
        raise DatasetFormatError(f"{where}: 'doc_id' must be a string or an integer")
    if position is not None and (
        isinstance(position, bool) or not isinstance(position, int) or position < 0
    ):
        raise DatasetFormatError(f"{where}: 'position' must be an integer >= 0")
    if doc_id is None:
        return None, None
    return str(doc_id), position
