"""The `cage` command."""

import io
import json

import pytest

from cage_core.cli.commands import main

pytestmark = pytest.mark.models  # every test here loads the spaCy pipeline or MiniLM


def test_demo_prints_both_orders_with_gold_marks():
    out = io.StringIO()
    assert main(["demo", "--epochs", "5"], out=out) == 0
    text = out.getvalue()
    assert text.count("\nQ [") == 4
    assert "vanilla top 5" in text and "CAGE top 5" in text
    assert "* " in text and "gold passages in the top 5:" in text
    corliss = text.split("\nQ [")[
        1
    ]  # the actress of Kiss and Tell: film → Shirley Temple → her post
    assert "Shirley Temple             ← via 'Shirley Temple' from #" in corliss
    answer = next(
        line for line in corliss.splitlines() if line.startswith("  answer from the CAGE top 5:")
    )
    assert "[extractive answer" in answer and "Chief of Protocol" in answer


def test_rerank_reads_jsonl_and_prints_json(tmp_path):
    f = tmp_path / "p.jsonl"
    f.write_text(
        "\n".join(
            json.dumps(x)
            for x in [
                {"text": "Warsaw is the capital of Poland.", "id": "w"},
                "Bananas are yellow fruit.",
            ]
        )
    )
    out = io.StringIO()
    assert (
        main(["rerank", "-q", "What is the capital of Poland?", "-p", str(f), "--json"], out=out)
        == 0
    )
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r["id"] for r in rows] == ["w", None]
    assert rows[0]["rank"] == 0 and set(rows[0]) >= {"score", "similarity", "coherence", "index"}


def test_rerank_reads_text_blocks_and_prints_a_table(tmp_path):
    f = tmp_path / "p.txt"
    f.write_text("Warsaw is the capital of Poland.\n\nBananas are yellow fruit.\n")
    out = io.StringIO()
    assert main(["rerank", "-q", "capital of Poland", "-p", str(f), "--top-n", "1"], out=out) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ["rank", "index", "score", "relev", "coher", "passage"]
    assert len(lines) == 2 and "Warsaw" in lines[1]


def test_malformed_jsonl_reports_file_and_line(tmp_path, capsys):
    f = tmp_path / "bad.jsonl"
    f.write_text('"ok"\n{not json\n')
    assert main(["rerank", "-q", "q", "-p", str(f)], out=io.StringIO()) == 2
    assert f"{f}:2: not valid JSON" in capsys.readouterr().err


def test_explain_writes_a_png_heatmap(tmp_path):
    f = tmp_path / "p.txt"
    f.write_text(
        "Marie Curie was born in Warsaw.\n\nWarsaw is the capital of Poland.\n\nBananas are yellow.\n"
    )
    png = tmp_path / "explain.png"
    out = io.StringIO()
    assert (
        main(
            ["explain", "-q", "Where was Marie Curie born?", "-p", str(f), "-o", str(png)], out=out
        )
        == 0
    )
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
    assert "wrote" in out.getvalue() and "(3 passages)" in out.getvalue()
    chain = out.getvalue().split("ranking and evidence chain", 1)[1].splitlines()[1:]
    assert len(chain) == 3
    warsaw = next(line for line in chain if "Warsaw is the capital" in line)
    marie = next(line for line in chain if "Marie Curie was born" in line)
    assert warsaw.endswith(f"← via 'Warsaw' from #{marie.split('.')[0].strip()}")
