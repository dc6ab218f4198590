"""Passage graphs are bounded by what a text of ``max_parse_chars`` characters can give: the
parser never builds a larger one and a larger stored one is rejected, in time linear in its
size (issue 40, row 15; timed by ``benchmarks/claims/graph_limits.py``)."""

import json
import logging

import pytest

from cage_core import CageConfig, CageReranker
from cage_core.graphs.builder import graph_from_doc
from cage_core.graphs.passage_graph import (
    MAX_EDGES,
    MAX_NODES,
    MAX_STORED_CHARS,
    GraphFormatError,
    GraphLimits,
    PassageGraph,
    content_hash,
    graph_limits,
)

TEXT = "Passage about Marie Curie."


def stored(nodes, edges, *, source="", text=TEXT):
    """A stored graph of ``nodes`` entity nodes and ``edges`` verb edges."""
    return json.dumps(
        {
            "format": "cage-passage-graph",
            "version": 2,
            "source": source,
            "sha": content_hash(text),
            "level": "full",
            "nodes": [[f"Name {i}", "PROPN", "PERSON"] for i in range(nodes)],
            "edges": [[i % nodes, (i + 1) % nodes, 0, "meet"] for i in range(edges)],
        },
        separators=(",", ":"),
    )


def test_the_limits_follow_from_max_parse_chars():
    assert graph_limits(20_000) == GraphLimits(nodes=5_000, edges=10_000, stored_chars=2_000_000)
    assert (MAX_NODES, MAX_EDGES, MAX_STORED_CHARS) == (5_000, 10_000, 2_000_000)
    assert graph_limits(100_000) == GraphLimits(25_000, 50_000, 10_000_000)
    assert graph_limits(10) == graph_limits(1_000) == GraphLimits(250, 500, 100_000)


def test_a_graph_at_the_limits_is_read():
    graph = PassageGraph.from_stored(stored(MAX_NODES, MAX_EDGES))
    assert (graph.num_nodes, graph.num_edges) == (MAX_NODES, MAX_EDGES)


@pytest.mark.parametrize(
    "nodes, edges, message",
    [
        (MAX_NODES + 1, 2, "nodes must be a list of at most 5000 entries"),
        (3, MAX_EDGES + 1, "edges must be a list of at most 10000 entries"),
    ],
)
def test_a_graph_over_the_limits_is_rejected(nodes, edges, message):
    with pytest.raises(GraphFormatError, match=message):
        PassageGraph.from_stored(stored(nodes, edges))


def test_a_string_over_the_limit_is_rejected_before_it_is_parsed():
    with pytest.raises(GraphFormatError, match="at most 2000000 characters"):
        PassageGraph.from_stored("[" * (MAX_STORED_CHARS + 1))


def test_a_longer_max_parse_chars_admits_larger_graphs():
    big = stored(MAX_NODES + 1, 2)
    assert PassageGraph.from_stored(big, max_chars=40_000).num_nodes == MAX_NODES + 1


def test_twenty_graphs_at_the_limits_are_all_read_whole():
    """What they cost to validate (about 0.4 s CPU for the 20) is measured by
    ``benchmarks/claims/graph_limits.py``, not asserted here."""
    values = [stored(MAX_NODES, MAX_EDGES, text=f"{TEXT} {i}") for i in range(20)]
    assert all(len(v) <= MAX_STORED_CHARS for v in values)
    graphs = [PassageGraph.from_stored(v) for v in values]
    assert [(g.num_nodes, g.num_edges) for g in graphs] == [(MAX_NODES, MAX_EDGES)] * 20
    assert len({g.content_sha for g in graphs}) == 20


def test_the_reranker_reads_stored_graphs_within_its_own_max_parse_chars(caplog):
    r = CageReranker(CageConfig(max_parse_chars=2_000))  # limits: 500 nodes, 1,000 edges
    fitting, too_big = stored(500, 10, source=r.fingerprint), stored(501, 10, source=r.fingerprint)
    with caplog.at_level(logging.WARNING):
        got = r.stored_graphs([fitting, too_big], [TEXT, TEXT])
    assert got[0] is not None and got[0].num_nodes == 500
    assert got[1] is None
    assert "nodes must be a list of at most 500 entries" in caplog.text


def test_the_parser_stops_at_the_limits(nlp, caplog):
    doc = nlp(
        "Marie Curie met Pierre Curie in Paris. Niels Bohr visited Albert Einstein in Berlin."
    )
    full = graph_from_doc(doc)
    assert (full.num_nodes, full.num_edges) > (3, 2)  # the limits below bind
    with caplog.at_level(logging.WARNING):
        capped = graph_from_doc(doc, limits=GraphLimits(nodes=3, edges=2, stored_chars=10_000))
    assert capped.labels == full.labels[:3]
    assert capped.num_edges == 2 and capped.triples() <= full.triples()
    assert "passage graph reached its limits (3 of 3 nodes, 2 of 2 edges)" in caplog.text
