"""TEGR, GraphER and the contradiction-aware CAGE: formulas on hand-made inputs, and both
wrappers."""

import numpy as np
import pytest
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from llama_index.core.schema import NodeWithScore, TextNode

from cage_core import CageConfig, CageReranker, Passage
from cage_core.methods import Pool, get_method
from cage_core.methods.grapher import personalized_pagerank, seed_distribution
from cage_core.methods.tegr import (
    Chunk,
    LLMEdgeClassifier,
    RuleEdgeClassifier,
    TEGRConfig,
    TEGRMethod,
    walk,
)
from cage_core.ranking.contradiction import (
    conflicts,
    contradiction_penalty,
    inversion_score,
    keyword_overlap,
    word_set,
)

BAKERY = [
    "The Lumen bakery was founded by Mara Quint in 1990 in Oslo.",
    "The Lumen bakery was founded by Otto Brisk in 1990 in Oslo.",
    "Mara Quint still runs the bakery she started.",
    "Lumen is a unit of luminous flux.",
]


def test_personalized_pagerank_by_hand():
    links = np.array([[0.0, 1.0], [1.0, 0.0]])
    # x0 = 0.5 + 0.5·x1, x1 = 0.5·x0  →  x = (2/3, 1/3)
    assert personalized_pagerank(links, np.array([1.0, 0.0]), 0.5) == pytest.approx([2 / 3, 1 / 3])
    # a passage with no links jumps back to the seeds
    assert personalized_pagerank(np.zeros((2, 2)), np.array([0.25, 0.75]), 0.5) == pytest.approx(
        [0.25, 0.75]
    )


def test_seed_distribution_is_a_softmax_of_standardised_similarities():
    p = seed_distribution(np.array([1.0, 2.0, 3.0]), temperature=1.0)
    z = np.array([-1.2247449, 0.0, 1.2247449])
    assert p == pytest.approx(np.exp(z) / np.exp(z).sum())


def test_tegr_walk_formula():
    initial = np.array([1.0, 0.5, 0.0, 0.0])
    edges = {(0, 2): 0.8, (2, 3): 0.5}
    best = walk(initial, edges, seeds=[0], decay=0.7)
    # new_score = score × decay × (type_weight × edge_similarity), two hops
    assert best == pytest.approx([1.0, 0.0, 0.56, 0.56 * 0.7 * 0.5])


def test_contradiction_inversion_and_overlap():
    assert inversion_score(0.8, 0.9) == pytest.approx(0.48)
    assert keyword_overlap(word_set("a b c"), word_set("b c d")) == pytest.approx(0.5)


def test_the_minority_side_of_a_conflict_is_penalised(parser):
    graphs = parser.parse(BAKERY)
    found = conflicts(BAKERY, graphs, threshold=0.5)
    assert [(i, j, loser) for i, j, _, loser in found] == [(0, 1, 1)]  # Mara Quint has support
    penalty = contradiction_penalty(BAKERY, graphs, threshold=0.5)
    overlap = keyword_overlap(word_set(BAKERY[0]), word_set(BAKERY[1]))
    assert penalty.tolist() == pytest.approx([0.0, overlap, 0.0, 0.0])


def test_cage_contra_demotes_the_losing_passage(nlp):
    sims = [0.6, 0.7, 0.3, 0.2]
    plain = CageReranker(nlp=nlp, embedder=lambda t: None).rerank(
        "Who founded Lumen?", BAKERY, query_similarities=sims
    )
    contra = CageReranker(
        CageConfig(contradiction_weight=3.0), nlp=nlp, embedder=lambda t: None
    ).rerank("Who founded Lumen?", BAKERY, query_similarities=sims)
    assert plain[0].index == 1 and contra[-1].index == 1


def test_rule_classifier_types(parser):
    texts = [
        "Marie Curie won the Nobel Prize.",
        "Marie Curie won the Nobel Prize in 1903 and again in Stockholm in 1911 with Pierre Curie.",
        "Marie Curie was a physicist who worked in Paris.",
    ]
    chunks = [Chunk(t, "", g) for t, g in zip(texts, parser.parse(texts))]
    rules = RuleEdgeClassifier()
    assert rules.classify(chunks[0], chunks[1], chunks) == "elaborates"
    assert rules.classify(chunks[0], chunks[2], chunks) == "defines"
    b = parser.parse(BAKERY[:2])
    assert (
        rules.classify(Chunk(BAKERY[0], "", b[0]), Chunk(BAKERY[1], "", b[1]), []) == "contradicts"
    )


def test_llm_classifier_reads_the_type_from_a_langchain_chat_model(marie_graph):
    model = FakeListChatModel(responses=["Elaborates.", "no idea"])
    llm = LLMEdgeClassifier(model)
    c = Chunk("a", "", marie_graph)
    assert llm.classify(c, c, []) == "elaborates"
    assert llm.classify(c, c, []) is None


def test_tegr_lifts_a_chunk_linked_to_a_seed(parser):
    passages = [
        Passage("Kiss and Tell is a film starring Shirley Temple.", title="Kiss and Tell"),
        Passage("Shirley Temple became Chief of Protocol.", title="Shirley Temple"),
        Passage("Bananas are yellow.", title="Banana"),
    ]
    pool = Pool(
        "Who starred in Kiss and Tell?",
        passages,
        np.array([0.9, 0.1, 0.12]),
        parser.parse([p.content for p in passages]),
    )
    scores = TEGRMethod(TEGRConfig(seeds=1)).score(pool)
    assert np.argsort(-scores).tolist() == [0, 1, 2]
    grapher = get_method("grapher").score(pool)
    assert np.argsort(-grapher).tolist() == [0, 1, 2]


def test_langchain_wrapper_runs_grapher(nlp):
    docs = [
        Document(page_content=t, metadata={"s": s}) for t, s in zip(BAKERY, [0.6, 0.7, 0.3, 0.2])
    ]
    out = (
        __import__("cage_langchain")
        .CageRerank(top_n=None, score_key="s", method="grapher")
        .compress_documents(docs, "Who founded Lumen?")
    )
    core = CageReranker(nlp=nlp, embedder=lambda t: None, method="grapher").rerank(
        "Who founded Lumen?", BAKERY, query_similarities=[0.6, 0.7, 0.3, 0.2]
    )
    assert [d.page_content for d in out] == [r.text for r in core]
    assert [d.metadata["cage_score"] for d in out] == [r.score for r in core]


def test_llamaindex_wrapper_runs_tegr(nlp):
    nodes = [
        NodeWithScore(node=TextNode(text=t, id_=str(i)), score=s)
        for i, (t, s) in enumerate(zip(BAKERY, [0.6, 0.7, 0.3, 0.2]))
    ]
    out = (
        __import__("cage_llamaindex")
        .CageRerank(top_n=None, method="tegr")
        .postprocess_nodes(nodes, query_str="Who founded Lumen?")
    )
    core = CageReranker(nlp=nlp, embedder=lambda t: None, method="tegr").rerank(
        "Who founded Lumen?", BAKERY, query_similarities=[0.6, 0.7, 0.3, 0.2]
    )
    assert [n.node.get_content() for n in out] == [r.text for r in core]
    assert [n.node.metadata["cage_score"] for n in out] == [r.score for r in core]


def test_document_types_are_inherited_by_the_most_similar_chunk_pairs():
    from cage_core.methods.tegr import inherit_chunk_edges

    chunks = [
        "The bakery was founded in 1990 by Mara Quint.",  # doc 0
        "It sells rye bread.",  # doc 0
        "The bakery was founded in 1990 by Otto Brisk.",  # doc 1
        "Parking is free.",
    ]  # doc 1
    edges = inherit_chunk_edges({(0, 1): "contradicts"}, [0, 0, 1, 1], chunks, top_k=1)
    assert edges == {(0, 2): "contradicts"}  # the founding sentences, not the rye/parking ones
    assert len(inherit_chunk_edges({(0, 1): "elaborates"}, [0, 0, 1, 1], chunks, top_k=3)) == 3


def test_tegr_walk_uses_edges_computed_at_ingest(parser):
    passages = [Passage("Alpha."), Passage("Beta."), Passage("Gamma.")]
    pool = Pool(
        "q",
        passages,
        np.array([0.9, 0.1, 0.2]),
        parser.parse([p.text for p in passages]),
        tegr_edges={(0, 1): "elaborates"},
        passage_vectors=np.eye(3) + 0.5,
    )
    scores = TEGRMethod(TEGRConfig(seeds=1)).score(pool)
    assert np.argsort(-scores).tolist() == [0, 1, 2]  # Beta lifted by the ingest-time edge


def test_pagerank_that_does_not_converge_says_so(caplog, monkeypatch):
    import cage_core.methods.grapher as grapher

    monkeypatch.setattr(grapher, "MAX_ITERATIONS", 1)
    links = np.array([[0.0, 1.0], [1.0, 0.0]])
    scores = grapher.personalized_pagerank(links, np.array([0.9, 0.1]), damping=0.9)
    assert scores.shape == (2,) and "did not converge in 1 iterations" in caplog.text
