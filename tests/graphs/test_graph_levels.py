"""Light graphs (named entities only) for the methods that read nothing else; full graphs for
the R-GCN; the same entity nodes in both, and a parse only at the level a method needs."""

import json

import pytest

from cage_core import CageConfig, CageReranker, PassageGraph
from cage_core.config import EncoderConfig
from cage_core.config.kinds import with_settings

QUERY = "Which country's capital was Marie Curie born in?"
POOL = [
    "Marie Curie was born in Warsaw. She won the Nobel Prize in 1903.",
    "Warsaw is the capital of Poland, a country in Central Europe.",
    "Leopoldina Gräfin von Khevenhüller-\nMetsch married in Vienna. It rained.",
    "He said it. They left Paris for London on 3 May 1900.",
]
SIMS = [0.6, 0.5, 0.1, 0.2]


def _entities(graph):
    return {(label.lower(), ent) for label, ent in zip(graph.labels, graph.entity_types) if ent}


def _no_embedding(texts):
    raise AssertionError("similarities are given")


def test_light_and_full_graphs_have_the_same_entity_nodes(parser):
    light, full = parser.parse(POOL, "light"), parser.parse(POOL, "full")
    assert [_entities(g) for g in light] == [_entities(g) for g in full]
    assert all(g.level == "light" and g.num_edges == 0 and set(g.pos) <= {"X"} for g in light)
    assert all(g.level == "full" for g in full)
    assert _entities(light[0]) == {
        ("marie curie", "PERSON"),
        ("warsaw", "GPE"),
        ("nobel prize", "WORK_OF_ART"),
        ("1903", "DATE"),
    }
    # a name broken by a line break stays one entity (entities do not wait for sentence splits)
    assert _entities(full[2]) == {
        ("leopoldina gräfin von khevenhüller-\nmetsch", "PERSON"),
        ("vienna", "GPE"),
    }


def test_pronouns_tagged_as_entities_are_no_nodes(parser):
    for graph in parser.parse(["He met She in Paris.", "It was founded by They."], "light"):
        assert not {"he", "she", "it", "they"} & {label.lower() for label in graph.labels}


@pytest.mark.parametrize(
    "config, level",
    [
        (CageConfig(), "light"),
        (CageConfig(contradiction_weight=3.0), "light"),
        (with_settings(CageConfig.preset("paper"), {"encoder.epochs": 2}), "full"),
        (CageConfig(rgcn_weight=0.2, encoder=EncoderConfig(epochs=2)), "full"),
    ],
)
def test_a_reranker_parses_at_the_level_its_method_needs(nlp, config, level):
    r = CageReranker(config, nlp=nlp, embedder=_no_embedding)
    assert r.graph_level == level
    r.rerank(QUERY, POOL, query_similarities=SIMS)
    assert r.parse_count == len(POOL) and {g.level for g in r.graphs(POOL)} == {level}


@pytest.mark.parametrize(
    "method, level",
    [
        ("grapher", "light"),
        ("tegr", "light"),
        ("cage-contra", "light"),
        ("paper", "full"),
        ("cage+rgcn", "full"),
    ],
)
def test_named_methods_need_their_level(nlp, method, level):
    assert CageReranker(nlp=nlp, method=method).graph_level == level


@pytest.mark.parametrize("method", ["bm25", "vanilla", "random"])
def test_methods_without_graphs_parse_nothing(method):
    r = CageReranker(method=method, nlp="no_such_pipeline_is_ever_loaded", embedder=_no_embedding)
    assert len(r.rerank(QUERY, POOL, query_similarities=SIMS)) == len(POOL)
    assert r.parse_count == 0


def test_a_full_graph_serves_a_light_ranking_with_the_same_scores(nlp):
    light = CageReranker(nlp=nlp, embedder=_no_embedding)
    expected = light.rerank(QUERY, POOL, query_similarities=SIMS)
    full_graphs = CageReranker(CageConfig.preset("paper"), nlp=nlp).graphs(POOL)
    stored = [g.to_text() for g in full_graphs]
    r = CageReranker(nlp=nlp, embedder=_no_embedding)
    got = r.rerank(QUERY, POOL, query_similarities=SIMS, graphs=r.stored_graphs(stored, POOL))
    assert got == expected and r.parse_count == 0


def test_stored_light_graphs_are_upgraded_when_the_r_gcn_runs(nlp, caplog):
    config = with_settings(CageConfig.preset("paper"), {"encoder.epochs": 2})
    fresh = CageReranker(config, nlp=nlp, embedder=_no_embedding)
    expected = fresh.rerank(QUERY, POOL, query_similarities=SIMS)
    stored = [json.loads(g.to_text()) for g in CageReranker(nlp=nlp).graphs(POOL)]
    assert {s["level"] for s in stored} == {"light"}
    r = CageReranker(config, nlp=nlp, embedder=_no_embedding)
    got = r.rerank(QUERY, POOL, query_similarities=SIMS, graphs=r.stored_graphs(stored, POOL))
    assert got == expected and r.parse_count == len(POOL)
    assert caplog.text == ""  # an upgrade is not a fault


def test_light_graphs_round_trip_through_the_stored_form(parser):
    g = parser.parse(POOL[:1], "light")[0]
    back = PassageGraph.from_stored(g.to_text())
    assert (back.level, _entities(back), back.content_sha) == ("light", _entities(g), g.content_sha)
