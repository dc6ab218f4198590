"""Stored graphs, caches and loaded files are untrusted input."""

import copy
import json
import math
import re
from pathlib import Path

import pytest

from cage_core import CageReranker
from cage_core.graphs.passage_graph import MAX_EDGES, MAX_NODES

QUERY = "Where was Marie Curie born?"
POOL = [
    "Marie Curie was born in Warsaw. She won the Nobel Prize.",
    "Warsaw is the capital of Poland.",
]
SIMS = [0.6, 0.4]
PACKAGES = [
    Path(__file__).parent.parent / name
    for name in ("cage_core", "cage_langchain", "cage_llamaindex")
]


HOSTILE = {
    "not JSON": "cage_graph",
    "not a mapping": ["cage_graph"],
    "truncated": {"format": "cage-passage-graph", "version": 2, "nodes": [["a", "NOUN"]]},
    "old version with vectors": {"version": 1, "vectors": "AAAA", "dim": 300},
    "10^6 nodes claimed": {"nodes": [["x", "NOUN"]] * 1_000_000},
    "too many edges": {"edges": [[0, 1, 0]] * (MAX_EDGES + 1)},
    "index out of range": {"edges": [[0, 99, 0]]},
    "huge index": {"edges": [[0, 2**70, 0]]},
    "negative index": {"edges": [[-1, 0, 0]]},
    "string too long": "x" * 10_000_000,
    "deeply nested": {"nodes": [[[[[["x"]]]]]]},
    "deeply nested text": "[" * 200_000,
    "number past the int-string limit": '{"format": "cage-passage-graph", "n": ' + "1" * 5000 + "}",
    "bool as index": {"edges": [[True, 0, 0]]},
    "label too long": {"nodes": [["x" * 10_000, "NOUN"]]},
    "other pipeline": {"source": "en_core_web_sm-3.8.0/g2"},
    "other content": {"sha": "0" * 32},
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_stored_graph_is_rejected_with_a_warning_and_the_passage_reparsed(
    nlp, caplog, case
):
    r = CageReranker(nlp=nlp, embedder=lambda t: None)
    good = json.loads(r.graphs(POOL[:1], level="full")[0].to_text())  # with edges to corrupt
    change = HOSTILE[case]
    stored = {**copy.deepcopy(good), **change} if isinstance(change, dict) else change
    for value in (stored, json.dumps(stored) if isinstance(stored, dict) else stored):
        caplog.clear()
        assert r.stored_graphs([value], POOL[:1]) == [None]
        assert "ignoring 1 of 1 stored passage graphs" in caplog.text
    fresh = CageReranker(nlp=nlp, embedder=lambda t: None)
    expected = fresh.rerank(QUERY, POOL, query_similarities=SIMS)
    got = r.rerank(
        QUERY, POOL, query_similarities=SIMS, graphs=r.stored_graphs([stored, None], POOL)
    )
    assert got == expected and all(math.isfinite(o.score) for o in got)


def test_caps_are_documented_values():
    assert (MAX_NODES, MAX_EDGES) == (5_000, 10_000)  # graph_limits(max_parse_chars=20,000)


def test_no_code_execution_on_loaded_data():
    pattern = re.compile(
        r"\b(pickle\.loads?|marshal\.loads?|(?<![.\w])eval\(|(?<![.\w])exec\(|yaml\.load\(|torch\.load\()"
    )
    offenders = [
        f"{p}:{i}"
        for pkg in PACKAGES
        for p in pkg.rglob("*.py")
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert offenders == []
