"""Evaluation: metrics on hand-made pools, the loader, and `cage eval` end to end."""

import io
import json
from pathlib import Path

import numpy as np
import pytest

from cage_core import Passage
from cage_core.cli.commands import main
from cage_core.eval.datasets import DatasetFormatError, load_questions
from cage_core.eval.metrics import exact_match, flagged_in_top_k, recall_at_k, token_f1
from cage_core.methods import METHOD_NAMES, Pool, get_method

pytestmark = pytest.mark.models  # every test here loads the spaCy pipeline or MiniLM

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.mark.parametrize(
    "order, gold, k, expected",
    [
        ([3, 1, 0, 2], {0, 1}, 2, 0.5),
        ([3, 1, 0, 2], {0, 1}, 3, 1.0),
        ([3, 1, 0, 2], {0, 1}, 1, 0.0),
        ([0, 1, 2, 3, 4, 5], {5, 4, 0}, 5, 2 / 3),
        ([0, 1], {0, 1}, 5, 1.0),  # pool smaller than k
        ([0, 1], set(), 5, 0.0),  # no gold: defined as 0
    ],
)
def test_recall_at_k(order, gold, k, expected):
    assert recall_at_k(order, gold, k) == pytest.approx(expected)


def test_flagged_in_top_k():
    assert flagged_in_top_k([2, 0, 1], {1}, 2) is False
    assert flagged_in_top_k([2, 0, 1], {1}, 3) is True


@pytest.mark.parametrize(
    "prediction, answers, em, f1",
    [
        ("The Chief of Protocol", ["Chief of Protocol"], 1.0, 1.0),
        ("chief protocol officer", ["Chief of Protocol"], 0.0, 2 / 3),
        ("Paris", ["London", "paris."], 1.0, 1.0),
        ("nothing", ["Chief of Protocol"], 0.0, 0.0),
    ],
)
def test_exact_match_and_f1(prediction, answers, em, f1):
    assert exact_match(prediction, answers) == em
    assert token_f1(prediction, answers) == pytest.approx(f1)


def test_bm25_prefers_the_passage_sharing_rare_query_terms():
    pool = Pool(
        "capital of Poland",
        [
            Passage("Warsaw is the capital of Poland."),
            Passage("Bananas are yellow."),
            Passage("Paris is a capital."),
        ],
        np.zeros(3),
        key="q",
    )
    scores = get_method("bm25").score(pool)
    assert int(np.argmax(scores)) == 0 and scores[1] == 0.0


def test_random_method_is_seeded_by_pool_key():
    pool = Pool("q", [Passage(str(i)) for i in range(8)], np.zeros(8), key="abc")
    a, b = get_method("random").score(pool), get_method("random").score(pool)
    assert np.array_equal(a, b) and sorted(a.tolist()) == list(range(8))


def test_unknown_method_lists_the_known_ones():
    with pytest.raises(ValueError, match="unknown method 'x'; choose from random, vanilla"):
        get_method("x")
    assert {"cage", "paper", "cage-gcn", "cage-noreweight", "coherence-only", "bm25"} <= set(
        METHOD_NAMES
    )


def test_loader_reads_the_documented_format():
    qs = load_questions(FIXTURES / "tiny_multihop.jsonl")
    assert [q.id for q in qs] == ["t1", "t2"]
    assert qs[0].gold_indices == (0, 1) and qs[1].gold_indices == (0, 2)
    assert qs[1].type == "comparison" and qs[0].answers == ("Canada",)


@pytest.mark.parametrize(
    "line, message",
    [
        ("{not json", "not valid JSON"),
        ('{"question": "q"}', "'passages' must be a non-empty list"),
        ('{"question": 3, "passages": [{"text": "t"}]}', "'question' must be a string"),
        ('{"question": "q", "passages": [{"text": 5}]}', r"passages\[0\] must be an object"),
        ("[1, 2]", "must be a JSON object"),
    ],
)
def test_malformed_records_name_file_and_line(tmp_path, line, message):
    f = tmp_path / "bad.jsonl"
    f.write_text('{"question": "ok", "passages": [{"text": "fine"}]}\n\n' + line + "\n")
    with pytest.raises(DatasetFormatError, match=f"bad.jsonl:3: .*{message}"):
        load_questions(f)


def test_cage_eval_end_to_end_on_the_tiny_fixture(tmp_path):
    out = io.StringIO()
    code = main(
        [
            "eval",
            "--data",
            str(FIXTURES),
            "--methods",
            "random,vanilla,bm25,cage,coherence-only",
            "--out",
            str(tmp_path),
            "--epochs",
            "5",
            "--no-progress",
            "--paper-reference",
        ],
        out=out,
    )
    assert code == 0
    md = (tmp_path / "results.md").read_text()
    data = json.loads((tmp_path / "results.json").read_text())
    summary = data["summary"]["datasets"]
    assert set(summary) == {"tiny", "ramdocs"}
    assert summary["ramdocs"]["shuffled"] is True and summary["tiny"]["shuffled"] is False
    tiny = summary["tiny"]["methods"]
    # every pool has at most 4 passages, so Recall@5 is 1 for any order
    assert all(m["recall@5"] == 1.0 for m in tiny.values())
    assert set(tiny["vanilla"]["by_type"]) == {"bridge", "comparison"}
    assert "misinfo_in_top" in summary["ramdocs"]["methods"]["bm25"]
    per_q = [r for r in data["per_question"] if r["method"] == "vanilla" and r["id"] == "t2"]
    assert sorted(per_q[0]["order"]) == [0, 1, 2] and per_q[0]["gold"] == [0, 2]
    assert "## Recall@5" in md and "| cage |" in md and "paper's numbers" in md


def test_eval_with_a_langchain_generator_reports_em_and_f1(tmp_path):
    kwargs = json.dumps({"responses": ["Canada", "Canada", "Mures", "the Olt"]})
    out = io.StringIO()
    code = main(
        [
            "eval",
            "--data",
            str(FIXTURES / "tiny_multihop.jsonl"),
            "--methods",
            "vanilla,bm25",
            "--out",
            str(tmp_path),
            "--no-progress",
            "--generator",
            "langchain_core.language_models.fake_chat_models:FakeListChatModel",
            "--generator-kwargs",
            kwargs,
        ],
        out=out,
    )
    assert code == 0
    m = json.loads((tmp_path / "results.json").read_text())["summary"]["datasets"]["tiny"][
        "methods"
    ]
    # FakeListChatModel answers in turn (t1 vanilla, t1 bm25, t2 vanilla, t2 bm25)
    assert (m["vanilla"]["em"], m["vanilla"]["f1"]) == (1.0, 1.0)
    assert (m["bm25"]["em"], m["bm25"]["f1"]) == (0.5, 0.5)


def test_eval_on_a_malformed_file_reports_file_and_line(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q", "passages": []}\n')
    assert (
        main(
            ["eval", "--data", str(bad), "--out", str(tmp_path / "o"), "--no-progress"],
            out=io.StringIO(),
        )
        == 2
    )
    assert f"{bad}:1:" in capsys.readouterr().err
