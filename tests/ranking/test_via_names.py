"""A via never names debris: a literal, code fragment, handle, path or URL two passages share
is no link, and a link is named by a label that is a name (issue 38)."""

from graphs import entity_graph

from cage_core import Passage
from cage_core.ranking.explanation import evidence_chain
from cage_core.ranking.links import entity_names

DEBRIS_LABELS = [("None", "ORG"), ("io import StringIO", "ORG"), ("@tiangolo", "PERSON")]


def test_shared_debris_links_nothing_and_a_shared_name_still_links():
    passages = [Passage(t) for t in ("a", "b", "c")]
    graphs = [
        entity_graph([*DEBRIS_LABELS, ("Pydantic", "ORG")]),
        entity_graph(DEBRIS_LABELS),
        entity_graph([*DEBRIS_LABELS, ("Pydantic", "ORG")]),
    ]
    assert entity_names(graphs[1]) == set()
    assert evidence_chain("Which model?", passages, graphs, [0, 1, 2]) == [
        None,
        None,
        ("Pydantic", 0, "entity"),
    ]


def test_a_link_is_named_by_the_passages_label_that_is_a_name():
    passages = [Passage("a"), Passage("b")]
    graphs = [
        entity_graph([("maxredirects", "ORG")]),
        entity_graph([("maxRedirects", "ORG"), ("maxredirects", "ORG")]),
    ]
    assert evidence_chain("How many?", passages, graphs, [0, 1]) == [
        None,
        ("maxredirects", 0, "entity"),
    ]
