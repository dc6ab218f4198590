"""Passage graphs built from real spaCy parses, and their serialised form."""

import json

import numpy as np
import pytest

from cage_core.graphs import GraphFormatError, PassageGraph
from cage_core.graphs.parse import GraphParser
from cage_core.graphs.passage_graph import content_hash
from cage_core.graphs.relations import Relation
from cage_core.graphs.vectors import hashed_vector


def test_marie_curie_graph_merges_names_resolves_she_and_types_edges(marie_graph):
    g = marie_graph
    assert g.labels == ("Marie Curie", "Warsaw", "Nobel Prize")
    assert g.entity_types == ("PERSON", "GPE", "WORK_OF_ART")
    assert g.triples() == {
        ("Marie Curie", "PREP_SPATIAL", "Warsaw"),
        ("Marie Curie", "SUBJ_OBJ", "Nobel Prize"),  # "She" resolved to Marie Curie
        ("Marie Curie", "COOCCURRENCE", "Warsaw"),
    }
    verbs = {
        (g.labels[s], Relation(t).name, g.labels[d]): v
        for s, d, t, v in zip(g.edge_src, g.edge_dst, g.edge_type, g.edge_verbs)
    }
    assert verbs[("Marie Curie", "SUBJ_OBJ", "Nobel Prize")] == "win"
    assert verbs[("Marie Curie", "PREP_SPATIAL", "Warsaw")] == "bear"
    assert verbs[("Marie Curie", "COOCCURRENCE", "Warsaw")] == ""


def test_negation_modifiers_numbers_and_appositives(parser):
    g = parser.parse(["The company did not sell 3 million cars in Paris, a city in France."])[0]
    triples = g.triples()
    assert ("company", "SUBJ_OBJ_NEG", "car") in triples
    assert ("car", "NUMERIC", "3 million") in triples
    assert ("Paris", "APPOSITIVE", "city") in triples
    assert ("company", "PREP_SPATIAL", "Paris") in triples


def test_temporal_preposition_and_passive_agent(parser):
    g = parser.parse(["Polonium was discovered by Curie in 1898."])[0]
    assert ("Curie", "SUBJ_OBJ", "Polonium") in g.triples()
    assert ("Curie", "PREP_TEMPORAL", "1898") in g.triples()


def test_one_node_per_distinct_lemma(parser):
    g = parser.parse(["Cars are fast. A car is red. The cars were sold."])[0]
    assert [label for label in g.labels if label.lower() == "car"] == ["car"]


@pytest.mark.parametrize("text", ["", "   \n\t ", "the of and it", "!!! ???"])
def test_passages_without_content_words_give_an_empty_graph(parser, text):
    g = parser.with_vectors(parser.parse([text]))[0]
    assert g.num_nodes == 0 and g.num_edges == 0
    assert g.vectors.shape == (0, 300)


def test_vectors_are_unit_length_and_float16_exact(marie_graph):
    norms = np.linalg.norm(marie_graph.vectors, axis=1)
    assert np.allclose(norms, 1.0, atol=1e-3)
    assert np.array_equal(
        marie_graph.vectors, marie_graph.vectors.astype(np.float16).astype(np.float32)
    )


def test_a_rare_name_gets_the_same_hashed_vector_in_two_passages(parser):
    a, b = parser.with_vectors(
        parser.parse(["Qzxwvbort visited Rome.", "Rome welcomed Qzxwvbort."])
    )
    va = a.vectors[a.labels.index("Qzxwvbort")]
    vb = b.vectors[b.labels.index("Qzxwvbort")]
    assert np.array_equal(va, vb)
    assert np.allclose(va, hashed_vector("qzxwvbort", 300).astype(np.float16), atol=1e-3)


def test_parsed_graphs_carry_no_vectors_until_they_are_attached(parser):
    g = parser.parse(["Marie Curie was born in Warsaw."])[0]
    assert g.vectors is None
    assert parser.with_vectors([g])[0].vectors.shape == (2, 300)


def test_a_graph_carries_the_hash_of_the_text_it_was_built_from(parser):
    text = "Marie Curie was born in Warsaw."
    assert parser.parse([text])[0].content_sha == content_hash(text)
    assert len(content_hash(text)) == 32


def test_long_passages_are_cut_before_parsing_with_a_warning(nlp, caplog):
    small = GraphParser(nlp, max_chars=31)
    text = "Marie Curie was born in Warsaw. " * 50
    g = small.parse([text])[0]
    assert "passage of 1600 characters cut to max_parse_chars=31" in caplog.text
    assert g.labels == ("Marie Curie", "Warsaw")
    assert g.content_sha == content_hash(text)  # the hash is of the whole passage


def test_stored_form_is_one_compact_json_string(marie_graph):
    text = marie_graph.to_text()
    assert isinstance(text, str)
    assert json.loads(text) == {
        "format": "cage-passage-graph",
        "version": 2,
        "source": marie_graph.source,
        "sha": marie_graph.content_sha,
        "level": "full",
        "nodes": [
            ["Marie Curie", "PROPN", "PERSON"],
            ["Warsaw", "PROPN", "GPE"],
            ["Nobel Prize", "PROPN", "WORK_OF_ART"],
        ],
        "edges": [[0, 1, 5, "bear"], [0, 2, 0, "win"], [0, 1, 8]],
    }


@pytest.mark.parametrize("form", ["text", "mapping"])
def test_round_trip_is_exact(marie_graph, form):
    stored = marie_graph.to_text() if form == "text" else json.loads(marie_graph.to_text())
    back = PassageGraph.from_stored(stored)
    assert back.labels == marie_graph.labels
    assert back.entity_types == marie_graph.entity_types
    assert back.pos == marie_graph.pos
    assert back.triples() == marie_graph.triples()
    assert back.edge_verbs == marie_graph.edge_verbs
    assert (back.source, back.content_sha) == (marie_graph.source, marie_graph.content_sha)
    assert back.vectors is None


def test_vectors_of_a_stored_graph_equal_those_of_a_fresh_parse(parser, marie_graph):
    back = parser.with_vectors([PassageGraph.from_stored(marie_graph.to_text())])[0]
    assert np.array_equal(back.vectors, marie_graph.vectors)


def _corrupt(marie_graph, **changes):
    data = json.loads(marie_graph.to_text())
    data.update(changes)
    return data


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"version": 1}, "version"),
        ({"format": "other"}, "format"),
        ({"edges": [[0, 7, 0]]}, "existing nodes"),
        ({"edges": [[0, 1, 42]]}, "edge types"),
        ({"edges": [[0, 1, 0, 5]]}, "optionally"),
        ({"edges": [[0, 10**30, 0]]}, "existing nodes"),
        ({"nodes": [["a", "NOUN"]] * 1_000_000}, "at most"),
        ({"nodes": [["a", "BOGUS"]]}, "POS"),
        ({"nodes": [["a", "PROPN", "ALIEN"]]}, "entity type"),
        ({"nodes": [["a"]]}, "each node"),
        ({"sha": "abc"}, "sha"),
        ({"sha": None}, "sha"),
        ({"source": 3}, "source"),
        ({"level": "medium"}, "level"),
        ({"level": None}, "level"),
    ],
)
def test_malformed_stored_graphs_are_rejected(marie_graph, changes, message):
    with pytest.raises(GraphFormatError, match=message):
        PassageGraph.from_stored(_corrupt(marie_graph, **changes))


@pytest.mark.parametrize(
    "data, message",
    [
        ("{not json", "must be JSON"),
        ("[" * 100_000 + "]" * 100_000, "must be JSON"),
        ("x" * 9_000_000, "at most"),
        (42, "JSON string or a mapping"),
    ],
)
def test_malformed_stored_strings_are_rejected(data, message):
    with pytest.raises(GraphFormatError, match=message):
        PassageGraph.from_stored(data)


def test_relation_vocabulary_is_fixed():
    assert [r.name for r in Relation] == [
        "SUBJ_OBJ",
        "SUBJ_OBJ_NEG",
        "MODIFIER",
        "APPOSITIVE",
        "NUMERIC",
        "PREP_SPATIAL",
        "PREP_TEMPORAL",
        "PREP_OTHER",
        "COOCCURRENCE",
    ]


@pytest.mark.parametrize("level", ["light", "full"])
def test_lone_surrogates_are_parsed_as_question_marks(parser, level):
    text = "Marie Curie\ud800 was born in Warsaw."
    g = parser.parse([text], level)[0]
    assert "Warsaw" in g.labels and g.content_sha == content_hash(text)
