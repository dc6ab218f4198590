"""The DEV folders of issue 45 (item 7) hold what their question files promise, and the
validator ``benchmarks/checks/dev_folders_check.py`` finds what would break that promise.

Model-free: it reads only files in the repository (the folders, their JSON files and the
validator, loaded from its path since the benchmark scripts are not a package).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEV_DIR = ROOT / "benchmarks" / "data" / "dev_folders"
CHECK_SCRIPT = ROOT / "benchmarks" / "checks" / "dev_folders_check.py"


def _load_check() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dev_folders_check", CHECK_SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while building
    spec.loader.exec_module(module)
    return module


check = _load_check()


def test_every_dev_folder_passes_every_check():
    reports = check.check_all(DEV_DIR)
    assert len(reports) >= 4
    assert {r.name: r.errors for r in reports} == {r.name: [] for r in reports}


def test_every_folder_nobody_tuned_on_passes_every_check():
    reports = check.check_all(ROOT / "benchmarks" / "data" / "unseen_folders")
    assert [r.name for r in reports] == ["cargo_book", "edition_guide"]
    assert {r.name: r.errors for r in reports} == {r.name: [] for r in reports}


def test_the_folders_mix_file_formats_and_stay_small():
    reports = check.check_all(DEV_DIR)
    suffixes = {
        r.name: {p.suffix for p in (DEV_DIR / r.name).rglob("*") if p.is_file()} for r in reports
    }
    assert {".md", ".rst", ".html"} <= set().union(*suffixes.values())
    assert all(r.size_bytes < 3 * 2**20 for r in reports)
    assert sum(r.size_bytes for r in reports) < 10 * 2**20


def _write_folder(directory: Path, documents: int = 15, questions: int = 15) -> Path:
    """A small folder that passes: ``documents`` files, a third of the questions naming one,
    a third needing two documents, four off-topic questions."""
    folder = directory / "tiny"
    folder.mkdir()
    names = [f"doc{i:02d}.md" for i in range(documents)]
    for i, name in enumerate(names):
        (folder / name).write_text(
            f"# Document {i}\n\nThe value of item {i} is {i * 7}.\n", encoding="utf-8"
        )
    (directory / "tiny.md").write_text("provenance\n", encoding="utf-8")
    items = []
    for i in range(questions):
        gold = [{"file": names[i % documents], "contains": f"item {i % documents} is"}]
        kind = ("names_document", "two_document", "single")[i % 3]
        question = {"id": f"q{i:02d}", "question": f"What is item {i}?", "type": kind, "gold": gold}
        if kind == "names_document":
            question["names"] = [names[i % documents]]
        if kind == "two_document":
            other = (i + 1) % documents
            gold.append({"file": names[other], "contains": f"item {other} is"})
        items.append(question)
    spec = {
        "description": "tiny",
        "files": names,
        "questions": items,
        "off_topic": [{"id": f"o{i}", "question": "Who painted the Mona Lisa?"} for i in range(4)],
    }
    path = directory / "tiny.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


def _edit(path: Path, change) -> None:
    spec = json.loads(path.read_text(encoding="utf-8"))
    change(spec)
    path.write_text(json.dumps(spec), encoding="utf-8")


def test_a_sound_small_folder_passes(tmp_path):
    report = check.check_folder(_write_folder(tmp_path))
    assert report.errors == []
    assert (
        report.documents,
        report.questions,
        report.naming,
        report.two_document,
        report.single,
    ) == (
        15,
        15,
        5,
        5,
        5,
    )


def test_a_phrase_occurring_twice_in_its_file_fails(tmp_path):
    path = _write_folder(tmp_path)
    _edit(path, lambda s: s["questions"][0]["gold"][0].update(contains="The value of item"))
    (tmp_path / "tiny" / "doc00.md").write_text(
        "The value of item 0. The value of item 0.\n", encoding="utf-8"
    )
    assert check.check_folder(path).errors == [
        "q00: 'The value of item' occurs 2 times in doc00.md"
    ]


def test_a_phrase_that_is_absent_or_spans_lines_fails(tmp_path):
    path = _write_folder(tmp_path)
    _edit(path, lambda s: s["questions"][2]["gold"][0].update(contains="nowhere in the file"))
    _edit(path, lambda s: s["questions"][5]["gold"][0].update(contains="Document 5\n\nThe"))
    errors = check.check_folder(path).errors
    assert errors[0] == "q02: 'nowhere in the file' occurs 0 times in doc02.md"
    assert errors[1].startswith("q05: gold phrase must be 1..150 characters on one line")
    assert len(errors) == 2


def test_too_few_naming_or_two_document_questions_fail(tmp_path):
    path = _write_folder(tmp_path)

    def demote(spec):
        for question in spec["questions"][:6]:
            question["type"] = "single"
            question.pop("names", None)

    _edit(path, demote)
    assert check.check_folder(path).errors == [
        "3 of 15 questions name a document, under a third",
        "3 of 15 need two documents, under a third",
    ]


def test_a_two_document_question_with_gold_in_one_file_fails(tmp_path):
    path = _write_folder(tmp_path)
    _edit(path, lambda s: s["questions"][1]["gold"].pop())
    assert check.check_folder(path).errors == [
        "q01: a two-document question with gold in fewer than two files"
    ]


def test_a_named_file_outside_the_folder_and_an_unlisted_file_fail(tmp_path):
    path = _write_folder(tmp_path)
    _edit(path, lambda s: s["questions"][0].update(names=["missing.md"]))
    (tmp_path / "tiny" / "extra.md").write_text("extra\n", encoding="utf-8")
    assert check.check_folder(path).errors == [
        "files differ from the folder: missing [], not listed ['extra.md']",
        "q00: named file 'missing.md' is not in the folder",
    ]


def test_markup_in_an_html_gold_phrase_and_case_twins_fail(tmp_path):
    path = _write_folder(tmp_path)
    folder = tmp_path / "tiny"
    (folder / "page.html").write_text("<p>The <code>x</code> field.</p>\n", encoding="utf-8")
    (folder / "DOC00.md").write_text("twin\n", encoding="utf-8")

    def point_at_html(spec):
        spec["files"] += ["page.html", "DOC00.md"]
        spec["questions"][2]["gold"] = [{"file": "page.html", "contains": "<code>x</code> field"}]

    _edit(path, point_at_html)
    if not (folder / "doc00.md").read_text(encoding="utf-8").startswith("# Document"):
        pytest.skip("a case-insensitive file system cannot hold case twins")
    assert check.check_folder(path).errors == [
        "two file paths differ only in case",
        "q02: gold phrase in an HTML file holds markup: '<code>x</code> field'",
    ]


def test_fewer_than_fifteen_documents_or_four_off_topic_fail(tmp_path):
    path = _write_folder(tmp_path, documents=14)
    _edit(path, lambda s: s["off_topic"].pop())
    assert check.check_folder(path).errors == [
        "14 documents, fewer than 15",
        "3 off-topic questions, fewer than 4",
    ]


def test_main_prints_a_row_per_folder_and_exits_1_on_a_failure(tmp_path, capsys):
    path = _write_folder(tmp_path)
    assert check.main([str(tmp_path)]) == 0
    assert "tiny" in capsys.readouterr().out
    _edit(path, lambda s: s["questions"][0]["gold"][0].update(contains="absent phrase"))
    assert check.main([str(tmp_path)]) == 1
    assert "FAIL tiny: q00: 'absent phrase' occurs 0 times in doc00.md" in capsys.readouterr().out


def _load_claims() -> ModuleType:
    path = ROOT / "benchmarks" / "claims" / "dev_folders.py"
    spec = importlib.util.spec_from_file_location("dev_folders_claims", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", sorted(p.stem for p in DEV_DIR.glob("*.json")))
def test_every_gold_phrase_names_one_chunk_of_the_readme_splitter(name):
    claims = _load_claims()
    spec, chunks = claims.load_chunks(DEV_DIR / f"{name}.json")
    gold = claims.gold_ids(spec, chunks)  # exits when a phrase names no chunk or several
    assert set(gold) == {q["id"] for q in spec["questions"]}
    assert all(gold.values())
    assert len({c.id for c in chunks}) == len(chunks)


def test_folder_specs_selects_by_name_and_refuses_a_name_it_does_not_hold(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    from crossval.dev_folders import folder_specs

    for name in ("beta", "alpha"):
        (tmp_path / f"{name}.json").write_text("{}", encoding="utf-8")
    assert [p.stem for p in folder_specs(tmp_path)] == ["alpha", "beta"]
    assert [p.stem for p in folder_specs(tmp_path, " beta ,")] == ["beta"]
    with pytest.raises(ValueError, match="no folder alhpa in"):
        folder_specs(tmp_path, "alhpa,beta")
    with pytest.raises(ValueError, match="no folder spec"):
        folder_specs(tmp_path / "empty")


def test_parsed_folder_specs_makes_an_unknown_name_a_usage_error(tmp_path, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    from crossval.dev_folders import parsed_folder_specs

    (tmp_path / "alpha.json").write_text("{}", encoding="utf-8")
    parser = argparse.ArgumentParser(prog="script.py")
    assert [p.stem for p in parsed_folder_specs(parser, tmp_path, "alpha")] == ["alpha"]
    with pytest.raises(SystemExit) as exited:
        parsed_folder_specs(parser, tmp_path, "beta")
    assert exited.value.code == 2
    assert "script.py: error: no folder beta in" in capsys.readouterr().err
