"""Issue 46, the fault trial: one huge passage in the file of ``cage rerank`` / ``cage
explain`` (59 MiB took 80 s and 2 GiB) is cut to ``max_parse_chars`` as it is read, before
the reranker holds it, as the reranker itself cuts a passage before parsing it."""

import io
import json
import logging

import pytest

from cage_core.cli.commands import main
from cage_core.cli.passages import read_passages
from cage_core.config import CageConfig

LONG = "Marie Curie was born in Warsaw and studied physics in Paris. " * 4_000  # 244,000 chars
MAX = CageConfig().max_parse_chars  # 20,000


@pytest.mark.parametrize("suffix", [".txt", ".jsonl"])
def test_a_passage_past_the_bound_is_read_cut_and_the_others_whole(tmp_path, suffix, caplog):
    short = ["Warsaw is the capital of Poland.", "Bananas are yellow fruit."]
    f = tmp_path / f"p{suffix}"
    texts = [short[0], "  " + LONG + " ", short[1]]
    if suffix == ".txt":
        f.write_text("\n\n".join(texts) + "\n")
    else:
        f.write_text("\n".join(json.dumps({"text": t.strip()}) for t in texts) + "\n")
    with caplog.at_level(logging.WARNING):
        passages = read_passages(str(f), max_chars=MAX)
    assert [p.text for p in passages] == [short[0], LONG[:MAX], short[1]]
    assert f"1 passages longer than {MAX} characters cut" in caplog.text
    assert [p.text for p in read_passages(str(f))] == [short[0], LONG.strip(), short[1]]


def test_a_block_long_only_by_its_trailing_space_is_whole_and_not_reported(tmp_path, caplog):
    f = tmp_path / "p.txt"
    f.write_text("Warsaw is the capital of Poland." + " " * 50 + "\n\nBananas.\n")
    assert [p.text for p in read_passages(str(f), max_chars=40)] == [
        "Warsaw is the capital of Poland.",
        "Bananas.",
    ]
    assert "cut" not in caplog.text


@pytest.mark.models
def test_cage_rerank_ranks_and_prints_the_huge_passage_cut(tmp_path):
    f = tmp_path / "p.txt"
    f.write_text(f"Where was Marie Curie born? In Warsaw.\n\n{LONG}\n\nBananas are yellow.\n")
    out = io.StringIO()
    assert (
        main(["rerank", "-q", "Where was Marie Curie born?", "-p", str(f), "--json"], out=out) == 0
    )
    rows = {r["index"]: r for r in map(json.loads, out.getvalue().splitlines())}
    assert rows[1]["text"] == LONG[:MAX]  # what the reranker was given: the cut passage
    assert len(rows) == 3
