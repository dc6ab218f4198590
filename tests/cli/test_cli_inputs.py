"""A degenerate command-line input is an error: exit code 2 and one line on stderr, before any
model is loaded (issue 39: an empty passages file, `cage eval` on an empty data file, an
empty query, an output whose suffix names a format the command does not write)."""

import io

import pytest

from cage_core.cli.commands import main


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "blank.txt").write_text("\n\n   \n\t\n")
    (tmp_path / "empty.jsonl").write_text("")
    (tmp_path / "blank.jsonl").write_text("\n \n")
    (tmp_path / "p.txt").write_text("Warsaw is the capital of Poland.\n\nBananas are yellow.\n")
    (tmp_path / "rows.jsonl").write_text('{"text": "Warsaw is the capital of Poland."}\n')
    return tmp_path


DEGENERATE = {
    "rerank, empty query": (["rerank", "-q", "", "-p", "p.txt"], "the query is blank"),
    "rerank, blank query": (["rerank", "-q", " \t ", "-p", "p.txt"], "the query is blank"),
    "rerank, empty text file": (["rerank", "-q", "q", "-p", "empty.txt"], "empty.txt: no passages"),
    "rerank, blank text file": (["rerank", "-q", "q", "-p", "blank.txt"], "blank.txt: no passages"),
    "rerank, empty JSON Lines": (
        ["rerank", "-q", "q", "-p", "empty.jsonl"],
        "empty.jsonl: no passages",
    ),
    "rerank, blank JSON Lines": (
        ["rerank", "-q", "q", "-p", "blank.jsonl"],
        "blank.jsonl: no passages",
    ),
    "explain, empty query": (["explain", "-q", "", "-p", "p.txt"], "the query is blank"),
    "explain, empty file": (["explain", "-q", "q", "-p", "empty.txt"], "empty.txt: no passages"),
    "explain, -o not a PNG": (
        ["explain", "-q", "q", "-p", "p.txt", "-o", "x.csv"],
        "--out x.csv: cage explain writes a PNG",
    ),
    "eval, empty data file": (["eval", "--data", "empty.jsonl"], "empty.jsonl: no questions"),
    "eval, --limit 0": (["eval", "--data", "empty.jsonl", "--limit", "0"], "--limit must be >= 1"),
    "enrich, empty input": (["enrich", "-i", "empty.jsonl", "-o", "o.jsonl"], "no rows"),
    "enrich, -o .csv": (
        ["enrich", "-i", "rows.jsonl", "-o", "x.csv"],
        "--output x.csv: cage enrich writes JSON Lines (.jsonl) or Parquet (.parquet)",
    ),
    "enrich, -o .json": (["enrich", "-i", "rows.jsonl", "-o", "x.json"], "--output x.json"),
    "enrich, --link-index .csv": (
        ["enrich", "-i", "rows.jsonl", "-o", "o.jsonl", "--link-index", "l.csv"],
        "--link-index l.csv: a link index is a SQLite store",
    ),
    "rerank, --top-n 0": (
        ["rerank", "-q", "q", "-p", "p.txt", "--top-n", "0"],
        "--top-n must be >= 1",
    ),
    "demo, --top-n -1": (["demo", "--top-n", "-1"], "--top-n must be >= 1, got -1"),
    "bench, --k 0": (["bench", "--k", "0,10"], "--k values must be >= 1"),
    "bench, --k not numbers": (["bench", "--k", "ten"], "--k must be comma-separated integers"),
    "bench, --repeats 0": (["bench", "--repeats", "0"], "--repeats must be >= 1, got 0"),
    "eval, --k 0": (["eval", "--data", "empty.jsonl", "--k", "0"], "--k values must be >= 1"),
    "links, target .csv": (
        ["links", "rows.jsonl", "x.csv"],
        "x.csv: a link index is written as a SQLite store",
    ),
}


@pytest.mark.parametrize("argv, message", DEGENERATE.values(), ids=DEGENERATE.keys())
def test_a_degenerate_input_exits_2_with_one_line(files, monkeypatch, capsys, argv, message):
    monkeypatch.chdir(files)
    out = io.StringIO()
    assert main(argv, out=out) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("cage: error: ") and message in err, err
    assert out.getvalue() == ""


def test_empty_standard_input_is_no_passages(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"\n\n")))
    assert main(["rerank", "-q", "q", "-p", "-"], out=io.StringIO()) == 2
    assert capsys.readouterr().err == "cage: error: standard input: no passages (it is empty)\n"


def test_nothing_is_written_for_a_refused_output(files, monkeypatch):
    monkeypatch.chdir(files)
    assert main(["enrich", "-i", "rows.jsonl", "-o", "x.csv"], out=io.StringIO()) == 2
    assert not (files / "x.csv").exists()
