"""RankedPassage.via: which earlier passage each ranked passage is linked to, and by what."""

import json
import math
from importlib import resources

import numpy as np
import pytest
from graphs import entity_graph

from cage_core import CageReranker, Passage
from cage_core.passage import Via
from cage_core.ranking.explanation import evidence_chain
from cage_core.ranking.links import (
    bridge_entity_weights,
    entity_names,
    shared_entity_links,
    title_links,
    title_mention_pairs,
)


# -- the rule, on hand-made graphs ------------------------------------------------------------
def test_a_title_mention_beats_an_earlier_entity_link_and_is_named_as_written():
    passages = [
        Passage(
            "A comedy starring Shirley Temple, shot in Hollywood.",
            title="Kiss and Tell (1945 film)",
        ),
        Passage("A voice actress from Hollywood.", title="Janet Waldo"),
        Passage("An actress and diplomat.", title="Shirley Temple"),
    ]
    graphs = [
        entity_graph([("Shirley Temple", "PERSON"), ("Hollywood", "GPE")]),
        entity_graph([("Hollywood", "GPE")]),
        entity_graph([("Hollywood", "GPE")]),
    ]
    # Shirley Temple shares Hollywood with Janet Waldo (rank 0) but Kiss and Tell (rank 1) names her
    assert evidence_chain("Who starred?", passages, graphs, [1, 0, 2]) == [
        None,
        ("Hollywood", 0, "entity"),
        ("Shirley Temple", 1, "title"),
    ]
    # the title is given without its qualifier, as written
    assert evidence_chain("Who starred?", passages, graphs, [2, 0]) == [
        None,
        ("Shirley Temple", 0, "title"),
    ]


def test_an_entity_link_names_the_heaviest_shared_entity_as_the_passage_writes_it():
    passages = [Passage(t) for t in ("a", "b", "c", "d")]
    graphs = [
        entity_graph([("ACME Corp", "ORG"), ("Paris", "GPE"), ("1999", "DATE")]),
        entity_graph([("Acme Corp", "ORG"), ("Paris", "GPE"), ("1999", "DATE")]),
        entity_graph([("Paris", "GPE")]),
        entity_graph([("London", "GPE")]),
    ]
    # "acme corp" is in 2 of 4 passages (weight ln 3), "paris" in 3 (ln 7/3); dates never link
    assert evidence_chain("Where?", passages, graphs, [0, 1, 2, 3]) == [
        None,
        ("Acme Corp", 0, "entity"),
        ("Paris", 0, "entity"),
        None,
    ]
    # an entity the query names links nothing
    assert evidence_chain("Where is Acme Corp?", passages, graphs, [0, 1, 2, 3]) == [
        None,
        ("Paris", 0, "entity"),
        ("Paris", 0, "entity"),
        None,
    ]


def test_ties_go_to_the_earlier_rank_then_the_smaller_name():
    passages = [Passage(t) for t in ("a", "b", "c")]
    graphs = [entity_graph([("Beta", "ORG"), ("Alpha", "ORG")])] * 3
    assert evidence_chain("?", passages, graphs, [2, 1, 0]) == [
        None,
        ("Alpha", 0, "entity"),
        ("Alpha", 0, "entity"),
    ]


def test_two_passages_naming_each_other_are_linked_by_the_title_the_earlier_one_names():
    passages = [
        Passage("The second son of Sir James Charles Mathew.", title="Charles Mathew"),
        Passage("A judge; father of Charles Mathew.", title="James Charles Mathew"),
    ]
    graphs = [entity_graph([]), entity_graph([])]
    assert evidence_chain("?", passages, graphs, [0, 1]) == [
        None,
        ("James Charles Mathew", 0, "title"),
    ]
    assert evidence_chain("?", passages, graphs, [1, 0]) == [None, ("Charles Mathew", 0, "title")]


def test_a_cut_ranking_gets_the_first_vias_of_the_whole_ranking_and_every_call_the_same():
    passages = [Passage(f"Passage {i} about X{i % 3}.", title=f"T{i}") for i in range(8)]
    graphs = [entity_graph([(f"X{i % 3}", "ORG"), (f"Y{i % 2}", "ORG")]) for i in range(8)]
    order = [5, 2, 7, 0, 3, 6, 1, 4]
    whole = evidence_chain("?", passages, graphs, order)
    assert all(v is not None and v.rank < r for r, v in enumerate(whole) if r)  # every one linked
    for n in range(len(order) + 1):
        assert evidence_chain("?", passages, graphs, order[:n]) == whole[:n]
    assert evidence_chain("?", passages, graphs, order) == whole
    assert all(isinstance(v, Via) for v in whole[1:])


def test_bad_inputs_are_refused_clearly():
    passages, graphs = [Passage("a"), Passage("b")], [entity_graph([]), entity_graph([])]
    with pytest.raises(ValueError, match="one graph per passage"):
        evidence_chain("?", passages, graphs[:1], [0, 1])
    with pytest.raises(ValueError, match="distinct passage indices"):
        evidence_chain("?", passages, graphs, [0, 2])
    with pytest.raises(ValueError, match="distinct passage indices"):
        evidence_chain("?", passages, graphs, [1, 1])


# -- a real chain: the bundled Corliss Archer question, real spaCy graphs ----------------------
@pytest.fixture(scope="module")
def corliss(reranker):
    with resources.as_file(resources.files("cage_core").joinpath("data", "demo.jsonl")) as path:
        row = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    passages = [Passage(p["text"], title=p["title"]) for p in row["passages"]]
    return row["question"], passages, reranker.graphs(passages)


def _at(passages, *titles):
    index = {p.title: i for i, p in enumerate(passages)}
    return [index[t] for t in titles]


def test_the_actress_is_reached_from_the_film_through_her_name(corliss):
    question, passages, graphs = corliss
    order = _at(
        passages,
        "Kiss and Tell (1945 film)",
        "A Kiss for Corliss",
        "Shirley Temple",
        "Janet Waldo",
        "Village accountant",
    )
    assert evidence_chain(question, passages, graphs, order) == [
        None,
        ("Kiss and Tell", 0, "title"),  # the sequel's text names the film
        ("Shirley Temple", 0, "title"),  # the film's text names the actress
        (
            "American",
            0,
            "entity",
        ),  # only a shared entity (NORP), tied with ranks 1 and 2: the earliest
        None,  # nothing in common with the four before it
    ]


def test_the_pair_functions_agree_with_the_bridge_link_matrices(corliss):
    question, passages, graphs = corliss
    titles, texts = [p.title for p in passages], [p.text for p in passages]
    T = np.zeros((len(passages),) * 2)
    for i, j in title_mention_pairs(titles, texts):
        T[i, j] = T[j, i] = 1.0
    assert T.tolist() == title_links(titles, texts).tolist()
    names = [entity_names(g) for g in graphs]
    weights = bridge_entity_weights(names, question)
    E = [
        [
            math.fsum(weights[n] for n in names[i] & names[j] if n in weights) if i != j else 0.0
            for j in range(len(passages))
        ]
        for i in range(len(passages))
    ]
    assert E == shared_entity_links(graphs, question).tolist()  # bit-identical


def test_rerank_explains_each_passage_and_a_top_n_cut_keeps_the_explanations(reranker, corliss):
    question, passages, _ = corliss
    ranked = reranker.rerank(question, passages)
    assert ranked[0].via is None
    assert all(r.via is None or r.via.rank < r.rank for r in ranked)
    temple = next(r for r in ranked if r.title == "Shirley Temple")
    assert temple.via.name == "Shirley Temple"
    assert "Shirley Temple" in ranked[temple.via.rank].text  # the earlier passage names her
    assert [r.via for r in reranker.rerank(question, passages, top_n=4)] == [
        r.via for r in ranked[:4]
    ]
    assert [r.via for r in reranker.rerank(question, passages)] == [r.via for r in ranked]


def test_methods_that_parse_no_graphs_explain_nothing(nlp, embedder, corliss):
    question, passages, _ = corliss
    for method in ("vanilla", "bm25"):
        ranked = CageReranker(nlp=nlp, embedder=embedder, method=method).rerank(question, passages)
        assert [r.via for r in ranked] == [None] * len(passages)
    grapher = CageReranker(nlp=nlp, embedder=embedder, method="grapher").rerank(question, passages)
    assert any(r.via is not None for r in grapher)
