"""Stored graphs, caches and loaded files are untrusted input."""

import base64
import copy
import math
import re
from pathlib import Path

import numpy as np
import pytest

from cage_core import CageReranker
from cage_core.graph.passage_graph import MAX_EDGES, MAX_NODES

QUERY = "Where was Marie Curie born?"
POOL = ["Marie Curie was born in Warsaw. She won the Nobel Prize.", "Warsaw is the capital of Poland."]
SIMS = [0.6, 0.4]
PACKAGES = [Path(__file__).parent.parent / name for name in ("cage_core", "cage_langchain", "cage_llamaindex")]


def _nan_vectors(n):
    return base64.b64encode(np.full((n, 300), np.nan, dtype="<f2").tobytes()).decode()


HOSTILE = {
    "not a mapping": "cage_graph",
    "truncated": {"format": "cage-passage-graph", "version": 1, "labels": ["a"]},
    "wrong version": {"version": 0},
    "10^6 nodes claimed": {"labels": ["x"] * 1_000_000, "pos": ["NOUN"] * 1_000_000,
                           "ents": [""] * 1_000_000},
    "too many edges": {"edges": [[0, 1, 0]] * (MAX_EDGES + 1)},
    "index out of range": {"edges": [[0, 99, 0]], "verbs": [""]},
    "negative index": {"edges": [[-1, 0, 0]], "verbs": [""]},
    "NaN features": "nan",
    "wrong dimensions": {"dim": 64},
    "vectors too long": {"vectors": "A" * 10_000_000},
    "deeply nested": {"labels": [[[[[["x"]]]]]]},
    "bool as index": {"edges": [[True, 0, 0]], "verbs": [""]},
    "other pipeline": {"source": "en_core_web_sm-3.8.0/g1/d300"},
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_stored_graph_is_rejected_with_a_warning_and_the_passage_reparsed(nlp, caplog, case):
    r = CageReranker(nlp=nlp, embedder=lambda t: None)
    good = r.graphs(POOL[:1])[0].to_dict()
    change = HOSTILE[case]
    if change == "nan":
        stored = {**good, "vectors": _nan_vectors(len(good["labels"]))}
    elif isinstance(change, dict):
        stored = {**copy.deepcopy(good), **change}
    else:
        stored = change
    assert r.stored_graph(stored) is None
    assert "ignoring stored passage graph" in caplog.text
    fresh = CageReranker(nlp=nlp, embedder=lambda t: None)
    expected = fresh.rerank(QUERY, POOL, query_similarities=SIMS)
    got = r.rerank(QUERY, POOL, query_similarities=SIMS, graphs=[r.stored_graph(stored), None])
    assert got == expected and all(math.isfinite(o.score) for o in got)


def test_caps_are_documented_values():
    assert (MAX_NODES, MAX_EDGES) == (20_000, 200_000)


def test_no_code_execution_on_loaded_data():
    pattern = re.compile(r"\b(pickle\.loads?|marshal\.loads?|(?<![.\w])eval\(|(?<![.\w])exec\(|yaml\.load\(|torch\.load\()")
    offenders = [f"{p}:{i}" for pkg in PACKAGES for p in pkg.rglob("*.py")
                 for i, line in enumerate(p.read_text().splitlines(), 1) if pattern.search(line)]
    assert offenders == []
