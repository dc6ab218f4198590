"""Issue 40, row 15 (leftover): a graph store validates stored graphs with the limits of the
``max_parse_chars`` it is given (:func:`cage_core.graphs.passage_graph.graph_limits`), not
always the default's."""

from __future__ import annotations

import pickle

from cage_core.graphs.passage_graph import (
    FORMAT_TAG,
    GRAPH_FORMAT_VERSION,
    PassageGraph,
    graph_limits,
)
from cage_core.graphs.service import PassageGraphs
from cage_core.graphs.store import GraphStore


def _graph(nodes: int, max_chars: int) -> PassageGraph:
    """A graph of ``nodes`` nouns and no edges, valid for texts of ``max_chars``."""
    data = {
        "format": FORMAT_TAG,
        "version": GRAPH_FORMAT_VERSION,
        "source": "test",
        "sha": "0" * 32,
        "level": "light",
        "nodes": [[f"name {i}", "NOUN"] for i in range(nodes)],
        "edges": [],
    }
    return PassageGraph.from_stored(data, max_chars=max_chars)


def test_a_graph_of_a_longer_parse_limit_is_read_back_by_a_store_configured_for_it(tmp_path):
    nodes = graph_limits().nodes + 1  # one more than a default-length text can give
    graph = _graph(nodes, max_chars=40_000)
    with GraphStore(tmp_path / "g.sqlite", max_parse_chars=40_000) as store:
        store.put("k", graph)
        found = store.get("k")
        assert found is not None and found.to_text() == graph.to_text()
        assert store.failures == 0
    with GraphStore(tmp_path / "g.sqlite") as default:
        assert default.get("k") is None  # over the default's limits: dropped as invalid
    with GraphStore(tmp_path / "g.sqlite", max_parse_chars=40_000) as store:
        assert store.get("k") is None  # the default store deleted it


def test_a_store_with_a_shorter_parse_limit_refuses_a_graph_too_large_for_it(tmp_path):
    nodes = graph_limits(1_000).nodes + 1
    graph = _graph(nodes, max_chars=20_000)
    with GraphStore(tmp_path / "g.sqlite", max_parse_chars=1_000) as store:
        store.put("k", graph)
        assert store.get("k") is None


def test_the_parse_limit_travels_with_a_pickled_store_and_from_the_graph_service(tmp_path):
    with GraphStore(tmp_path / "g.sqlite", max_parse_chars=40_000) as store:
        copy = pickle.loads(pickle.dumps(store))
        assert copy.max_parse_chars == 40_000
        copy.close()
    service = PassageGraphs(store=tmp_path / "g.sqlite", max_parse_chars=40_000)
    assert service.store is not None and service.store.max_parse_chars == 40_000
    service.store.close()
