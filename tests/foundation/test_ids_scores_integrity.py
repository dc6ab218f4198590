"""Model-free contracts: the 0–1 relevance, stable content ids, and graph MACs."""

import json
import math
import uuid

import numpy as np
import pytest

from cage_core.graphs.integrity import graph_mac, key_bytes, signed_text, verified
from cage_core.graphs.passage_graph import PassageGraph
from cage_core.passage_ids import content_id, content_ids, document_id
from cage_core.relevance import fused_sigmoid


def test_relevance_is_the_logistic_of_the_fused_score_bounded_and_monotone():
    assert fused_sigmoid(0.0) == 0.5 and fused_sigmoid(1.0) == pytest.approx(1 / (1 + math.e**-1))
    assert (
        fused_sigmoid(-800.0) == 0.0 and fused_sigmoid(800.0) == 1.0
    )  # no overflow at the extremes
    scores = [-3.0, -0.14, 0.0, 0.5, 2.0, 5.7]
    assert [fused_sigmoid(s) for s in scores] == sorted(fused_sigmoid(s) for s in scores)
    assert all(0.0 <= fused_sigmoid(s) <= 1.0 for s in scores)
    assert math.isnan(fused_sigmoid(float("nan")))
    t = 0.75  # a cutoff means one fused-score bar: f >= log(t / (1 - t))
    assert fused_sigmoid(math.log(t / (1 - t))) == pytest.approx(t)


def test_content_ids_are_uuids_of_title_and_text_stable_across_calls():
    first = content_id("Warsaw is the capital of Poland.", "Warsaw")
    assert first == content_id("Warsaw is the capital of Poland.", "Warsaw")
    assert str(uuid.UUID(first)) == first  # canonical, so Qdrant keeps it as written
    assert first != content_id("Warsaw is the capital of Poland.", "")
    assert first != content_id("Warsaw is the capital of Poland", "Warsaw")
    assert content_id("a\x1fb", "") != content_id(
        "b", "a"
    )  # the separator is part of the hash input
    assert content_ids([("T", "x"), ("T", "x"), ("T", "y")])[1] == content_id("x", "T", 1)
    with pytest.raises(TypeError):
        content_id(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        content_id("x", "", -1)


def test_document_id_reads_the_id_where_each_integration_keeps_it():
    assert document_id("given", {"_id": "other"}, "text") == "given"
    assert (
        document_id(None, {"_id": "5d87a915-e996-79b5-768b-5d62939c69fc"}, "text")
        == "5d87a915-e996-79b5-768b-5d62939c69fc"
    )  # langchain-qdrant
    assert document_id(None, {"_id": 7}, "text") == "7"
    assert document_id("", {}, "text", "T") == content_id("text", "T")
    assert document_id(None, {"_id": True}, "text") == content_id("text")


def _graph():
    return PassageGraph(
        labels=["Marie Curie", "Warsaw"],
        pos=["PROPN", "PROPN"],
        entity_types=["PERSON", "GPE"],
        edge_src=np.array([0], dtype=np.int64),
        edge_dst=np.array([1], dtype=np.int64),
        edge_type=np.array([5], dtype=np.int64),
        edge_verbs=["bear"],
        source="test/g2",
        content_sha="0" * 32,
        level="light",
    )


def test_a_signed_graph_verifies_only_under_its_key_and_unchanged():
    key = key_bytes("secret")
    text = signed_text(_graph(), key)
    graph = PassageGraph.from_stored(text)  # readers without a key ignore the extra "mac"
    assert verified(graph, text, key) and verified(graph, json.loads(text), key)
    assert not verified(graph, text, key_bytes("another"))
    assert not verified(graph, _graph().to_text(), key)  # unsigned
    tampered = json.loads(text)
    tampered["nodes"].append(["Nobel Prize", "PROPN", "WORK_OF_ART"])
    forged = PassageGraph.from_stored(tampered)
    assert not verified(forged, tampered, key)
    spaced = json.dumps(json.loads(text), indent=2)  # another spelling of the same graph
    assert verified(PassageGraph.from_stored(spaced), spaced, key)
    assert graph_mac(graph, key) == json.loads(text)["mac"]
    assert signed_text(_graph(), None) == _graph().to_text()


@pytest.mark.parametrize("bad, error", [("", ValueError), (b"", ValueError), (3, TypeError)])
def test_a_bad_integrity_key_is_a_clear_error(bad, error):
    with pytest.raises(error, match="integrity key"):
        key_bytes(bad)
