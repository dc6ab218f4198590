"""Issue 46: ``cage rerank`` shows each ranked passage's via, the earlier passage it is
linked to and by what, in its table and in ``--json``, as ``cage explain`` does."""

import io
import json

import pytest

from cage_core.cli.commands import main

pytestmark = pytest.mark.models  # the command loads the spaCy pipeline and MiniLM

QUERY = "What government position was held by the star of the film Kiss and Tell?"
PASSAGES = [
    {"title": "Bananas", "text": "Bananas are yellow fruit grown in the tropics."},
    {
        "title": "Shirley Temple",
        "text": "Shirley Temple was an American actress who later served as a diplomat.",
    },
    {
        "title": "Kiss and Tell (1945 film)",
        "text": "Kiss and Tell is a 1945 comedy film starring Shirley Temple as Corliss Archer.",
    },
]


@pytest.fixture()
def passages(tmp_path):
    f = tmp_path / "p.jsonl"
    f.write_text("\n".join(json.dumps(p) for p in PASSAGES) + "\n")
    return str(f)


def test_rerank_json_carries_the_via_of_each_passage(passages):
    out = io.StringIO()
    assert main(["rerank", "-q", QUERY, "-p", passages, "--json"], out=out) == 0
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    # the film first; the actress linked to it by her title, which the film names; bananas
    # linked to nothing (no via, coherence 0)
    assert [(r["rank"], r["index"], r["via"], r["coherence"]) for r in rows] == [
        (1, 2, None, 0.0),
        (2, 1, {"name": "Shirley Temple", "kind": "title", "rank": 1, "index": 2}, 1.0),
        (3, 0, None, 0.0),
    ]


def test_rerank_table_shows_the_via_after_the_passage(passages):
    out, as_json = io.StringIO(), io.StringIO()
    assert main(["rerank", "-q", QUERY, "-p", passages], out=out) == 0
    assert main(["rerank", "-q", QUERY, "-p", passages, "--json"], out=as_json) == 0
    rows = [json.loads(line) for line in as_json.getvalue().splitlines()]
    lines = out.getvalue().splitlines()[1 : 1 + len(rows)]
    for line, r in zip(lines, rows):
        via = r["via"]
        expected = "" if via is None else f"← via '{via['name']}' from #{via['rank']}"
        assert line.endswith(expected) and (via is not None or "← via" not in line)
