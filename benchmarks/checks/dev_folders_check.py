"""Checks the DEV folders' question files (issue 45, item 7) against their documents.

Each ``benchmarks/data/dev_folders/<name>.json`` describes the folder
``benchmarks/data/dev_folders/<name>/`` (documents only; its provenance is
``benchmarks/data/dev_folders/<name>.md``, outside the folder). For every file it checks:

- the folder holds at least 15 documents and exactly the ``files`` the JSON lists, no two of
  whose paths differ only in case (a checkout on a case-insensitive file system keeps them all);
- every question has a unique id, a known ``type`` (``names_document``, ``two_document``,
  ``single``) and at least one gold part; every gold ``contains`` is at most 150 characters,
  holds no line break and occurs exactly once in its file; in an HTML file it holds no ``<``,
  ``>`` or ``&`` either (plain text, so it survives a loader that strips the markup);
- a ``names_document`` question lists in ``names`` files of the folder; a two-document
  question (``type`` ``two_document``, or ``names_document`` with ``"two_document": true``)
  has gold parts in at least two different files;
- at least 15 questions, at least a third naming a document, at least a third needing two
  documents, and at least 4 ``off_topic`` questions (no gold).

It prints one row per folder and exits 1 when any check fails. Standard library only; run from
the repository root::

    python benchmarks/checks/dev_folders_check.py [DIR]
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_DIR = Path(__file__).resolve().parents[1] / "data" / "dev_folders"
HTML_SUFFIXES = (".html", ".htm")
MARKUP = frozenset("<>&")
TYPES = frozenset({"names_document", "two_document", "single"})
MIN_DOCUMENTS = 15
MIN_QUESTIONS = 15
MIN_OFF_TOPIC = 4
MAX_PHRASE = 150


@dataclass
class FolderReport:
    """What one folder's question file holds, and what is wrong with it."""

    name: str
    documents: int = 0
    size_bytes: int = 0
    questions: int = 0
    naming: int = 0
    two_document: int = 0
    single: int = 0
    off_topic: int = 0
    errors: list[str] = field(default_factory=list)


def is_two_document(question: dict) -> bool:
    """A question needs two documents when its type says so or its flag does."""
    return question.get("type") == "two_document" or question.get("two_document") is True


def folder_files(folder: Path) -> list[str]:
    """Every regular file under ``folder``, as a POSIX path relative to it, sorted."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def check_question(
    question: dict, folder: Path, listed: set[str], texts: dict[str, str]
) -> list[str]:
    """The problems of one question (an empty list when it is sound)."""
    qid = question.get("id", "?")
    errors: list[str] = []
    kind = question.get("type")
    if kind not in TYPES:
        errors.append(f"{qid}: unknown type {kind!r}")
    if not str(question.get("question", "")).strip():
        errors.append(f"{qid}: empty question")
    gold = question.get("gold") or []
    if not gold:
        errors.append(f"{qid}: no gold")
    for part in gold:
        name, phrase = part.get("file", ""), part.get("contains", "")
        if name not in listed:
            errors.append(f"{qid}: gold file {name!r} is not in the folder's files")
            continue
        if not phrase or len(phrase) > MAX_PHRASE or "\n" in phrase:
            errors.append(
                f"{qid}: gold phrase must be 1..{MAX_PHRASE} characters on one line: {phrase!r}"
            )
            continue
        if name.lower().endswith(HTML_SUFFIXES) and MARKUP & set(phrase):
            errors.append(f"{qid}: gold phrase in an HTML file holds markup: {phrase!r}")
            continue
        if name not in texts:
            texts[name] = (folder / name).read_text(encoding="utf-8")
        count = texts[name].count(phrase)
        if count != 1:
            errors.append(f"{qid}: {phrase!r} occurs {count} times in {name}")
    if kind == "names_document":
        names = question.get("names") or []
        if not names:
            errors.append(f"{qid}: names_document without names")
        errors.extend(
            f"{qid}: named file {n!r} is not in the folder" for n in names if n not in listed
        )
    if is_two_document(question) and len({part.get("file") for part in gold}) < 2:
        errors.append(f"{qid}: a two-document question with gold in fewer than two files")
    return errors


def check_folder(spec_path: Path) -> FolderReport:
    """Check one question file against its folder."""
    report = FolderReport(spec_path.stem)
    folder = spec_path.with_suffix("")
    try:
        spec = json.loads(spec_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        report.errors.append(f"unreadable: {err}")
        return report
    if not folder.is_dir():
        report.errors.append(f"no folder {folder.name}/ beside the JSON file")
        return report
    if not spec_path.with_suffix(".md").is_file():
        report.errors.append(f"no provenance file {spec_path.stem}.md")
    present = folder_files(folder)
    listed = list(spec.get("files") or [])
    report.documents = len(present)
    report.size_bytes = sum((folder / p).stat().st_size for p in present)
    if sorted(listed) != present:
        missing = sorted(set(listed) - set(present))
        extra = sorted(set(present) - set(listed))
        report.errors.append(f"files differ from the folder: missing {missing}, not listed {extra}")
    folded = [p.casefold() for p in present]
    if len(set(folded)) != len(folded):
        report.errors.append("two file paths differ only in case")
    if report.documents < MIN_DOCUMENTS:
        report.errors.append(f"{report.documents} documents, fewer than {MIN_DOCUMENTS}")
    questions = list(spec.get("questions") or [])
    ids = [q.get("id") for q in questions] + [q.get("id") for q in spec.get("off_topic") or []]
    if len(ids) != len(set(ids)):
        report.errors.append("question ids are not unique")
    texts: dict[str, str] = {}
    listed_set = set(listed) & set(present)
    for question in questions:
        report.errors.extend(check_question(question, folder, listed_set, texts))
    report.questions = len(questions)
    report.naming = sum(q.get("type") == "names_document" for q in questions)
    report.two_document = sum(is_two_document(q) for q in questions)
    report.single = sum(q.get("type") == "single" for q in questions)
    off_topic = list(spec.get("off_topic") or [])
    report.off_topic = len(off_topic)
    if any(q.get("gold") for q in off_topic) or not all(
        str(q.get("question", "")).strip() for q in off_topic
    ):
        report.errors.append("an off-topic question has gold or no text")
    if report.questions < MIN_QUESTIONS:
        report.errors.append(f"{report.questions} questions, fewer than {MIN_QUESTIONS}")
    if 3 * report.naming < report.questions:
        report.errors.append(
            f"{report.naming} of {report.questions} questions name a document, under a third"
        )
    if 3 * report.two_document < report.questions:
        report.errors.append(
            f"{report.two_document} of {report.questions} need two documents, under a third"
        )
    if report.off_topic < MIN_OFF_TOPIC:
        report.errors.append(f"{report.off_topic} off-topic questions, fewer than {MIN_OFF_TOPIC}")
    return report


def check_all(directory: Path) -> list[FolderReport]:
    """Check every question file in ``directory`` (an empty list when there is none)."""
    return [check_folder(path) for path in sorted(directory.glob("*.json"))]


def main(argv: list[str]) -> int:
    directory = Path(argv[0]) if argv else DEFAULT_DIR
    reports = check_all(directory)
    if not reports:
        print(f"no question files in {directory}")
        return 1
    header = (
        f"{'folder':<24} {'docs':>4} {'KiB':>5} {'qs':>3} {'name':>4} "
        f"{'two':>4} {'single':>6} {'off':>3}  status"
    )
    print(header)
    for r in reports:
        status = "ok" if not r.errors else f"{len(r.errors)} problem(s)"
        print(
            f"{r.name:<24} {r.documents:>4} {r.size_bytes // 1024:>5} {r.questions:>3} "
            f"{r.naming:>4} {r.two_document:>4} {r.single:>6} {r.off_topic:>3}  {status}"
        )
    total_docs = sum(r.documents for r in reports)
    total_size = sum(r.size_bytes for r in reports)
    print(
        f"{'all':<24} {total_docs:>4} {total_size // 1024:>5} "
        f"{sum(r.questions for r in reports):>3}"
    )
    failed = False
    for r in reports:
        for error in r.errors:
            print(f"FAIL {r.name}: {error}")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
