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
    assert [(r["rank"], r["index"]) for r in rows] == [(1, 0), (2, 1)]  # rank from 1, as the table
    assert set(rows[0]) >= {"score", "similarity", "coherence", "index"}
    assert rows[0]["path"] == rows[1]["path"] == "untitled"  # the path the pool took


def test_rerank_reads_text_blocks_and_prints_a_table(tmp_path):
    f = tmp_path / "p.txt"
    f.write_text("Warsaw is the capital of Poland.\n\nBananas are yellow fruit.\n")
    out = io.StringIO()
    assert main(["rerank", "-q", "capital of Poland", "-p", str(f), "--top-n", "1"], out=out) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ["rank", "index", "score", "similarity", "coherence", "passage"]
    assert len(lines) == 3 and "Warsaw" in lines[1] and lines[1].split()[:2] == ["1", "0"]
    assert lines[2] == "path: untitled"


def test_malformed_jsonl_reports_file_and_line(tmp_path, capsys):
    f = tmp_path / "bad.jsonl"
    f.write_text('"ok"\n{not json\n')
    assert main(["rerank", "-q", "q", "-p", str(f)], out=io.StringIO()) == 2
    assert f"{f}:2: not valid JSON" in capsys.readouterr().err


def test_explain_writes_a_png_heatmap(tmp_path):
    f = tmp_path / "p.txt"
    f.write_text(
        "Marie Curie was born in Warsaw.\n\nWarsaw is the capital of Poland.\n\n"
        "Bananas are yellow.\n"
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
    assert "\npath: untitled" in out.getvalue()  # the path the pool took
    chain = out.getvalue().split("ranking and evidence chain", 1)[1].splitlines()[1:]
    assert len(chain) == 3
    assert [line.split(".")[0].strip() for line in chain] == ["1", "2", "3"]  # the ranks
    # passages are numbered as in the picture (file order, from 1), the via's passage too
    warsaw = next(line for line in chain if "Warsaw is the capital" in line)
    marie = next(line for line in chain if "Marie Curie was born" in line)
    assert "#2 f=" in warsaw and "#1 f=" in marie
    assert warsaw.endswith("← via 'Warsaw' from #1")


def test_cage_bench_times_pools_the_relevance_gate_does_not_keep_in_relevance_order(reranker):
    """A gated pool skips the subject core and the short chain; the benchmark must time the
    full path, so every pool it times has enough passages with a subject, and enough of
    those subjects are names (even for a query that names none of them)."""
    from cage_core import CageConfig, Passage
    from cage_core.cli.bench import bench_pools, demo_corpus
    from cage_core.names.subjects import derive_subject
    from cage_core.ranking.relevance_gate import few_subjects, subjects_are_names
    from cage_core.ranking.untitled_core import untitled_subject

    _, corpus = demo_corpus()
    graphs = reranker.graphs([Passage(t) for t in corpus])
    subject = {t: untitled_subject(derive_subject(Passage(t), g)) for t, g in zip(corpus, graphs)}
    graph = dict(zip(corpus, graphs))
    gate = CageConfig().gate
    for k in (10, 20, 50):
        for pool in bench_pools(corpus, k, repeats=20):
            assert not few_subjects([subject[t] for t in pool], gate)
            assert subjects_are_names([subject[t] for t in pool], [graph[t] for t in pool], "")
