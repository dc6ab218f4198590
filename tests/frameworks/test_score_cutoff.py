"""One cutoff after CageRerank keeps on-topic evidence and drops an off-topic pool, in both
frameworks, over real stores (the README's example: ``CageRerank(top_n=5)`` then
``SimilarityPostprocessor(similarity_cutoff=t)``, or LangChain's filter on
``relevance_score``), and the score keeps the fused order (:mod:`cage_core.relevance`).

Up to cage-rag 0.4.0 the score was σ of the fused score alone, relative to the pool: the
off-topic question's best passage got about 0.9 and passed every usual cutoff.
"""

import math

import numpy as np
import pytest

pytest.importorskip("llama_index.core")

from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore
from llama_index.core import VectorStoreIndex
from llama_index.core.postprocessor import SimilarityPostprocessor
from llama_index.core.schema import TextNode
from pools import QUERY, TEXTS

from cage_core.relevance import CUTOFF, fused_sigmoid, pool_relevance
from cage_langchain import CageRerank as LangChainRerank
from cage_langchain import PackagedMiniLMEmbeddings, ScoredVectorStoreRetriever
from cage_llamaindex import CageRerank as LlamaIndexRerank
from cage_llamaindex import PackagedMiniLMEmbedding

OFF_TOPIC = "Who won the 2018 FIFA World Cup?"
BORN_IN_WARSAW = TEXTS[0]  # "Marie Curie was born in Warsaw. ..."


@pytest.fixture(scope="module")
def index():
    nodes = [TextNode(text=t, id_=f"n{i}") for i, t in enumerate(TEXTS)]
    return VectorStoreIndex(nodes, embed_model=PackagedMiniLMEmbedding())


@pytest.fixture(scope="module")
def store():
    store = InMemoryVectorStore(PackagedMiniLMEmbeddings())
    store.add_documents([Document(page_content=t, id=f"d{i}") for i, t in enumerate(TEXTS)])
    return store


def _llamaindex_pipeline(index, question):
    nodes = index.as_retriever(similarity_top_k=6).retrieve(question)
    ranked = LlamaIndexRerank(top_n=5).postprocess_nodes(nodes, query_str=question)
    kept = SimilarityPostprocessor(similarity_cutoff=CUTOFF).postprocess_nodes(ranked)
    return ranked, kept


def _langchain_pipeline(store, question):
    docs = ScoredVectorStoreRetriever(vectorstore=store, k=6).invoke(question)
    ranked = LangChainRerank(top_n=5).compress_documents(docs, question)
    return ranked, [d for d in ranked if d.metadata["relevance_score"] >= CUTOFF]


@pytest.mark.models  # MiniLM and the spaCy pipeline
def test_the_readme_cutoff_in_llamaindex_keeps_evidence_and_drops_an_off_topic_pool(index):
    ranked, kept = _llamaindex_pipeline(index, QUERY)
    assert BORN_IN_WARSAW in [n.node.get_content() for n in kept]
    ranked, kept = _llamaindex_pipeline(index, OFF_TOPIC)
    assert len(ranked) == 5 and kept == []
    # σ of the fused score, what the field held before, passed the off-topic pool's best
    assert fused_sigmoid(ranked[0].node.metadata["cage_score"]) > 0.75


@pytest.mark.models  # MiniLM and the spaCy pipeline
def test_the_same_cutoff_in_langchain_keeps_evidence_and_drops_an_off_topic_pool(store):
    ranked, kept = _langchain_pipeline(store, QUERY)
    assert BORN_IN_WARSAW in [d.page_content for d in kept]
    ranked, kept = _langchain_pipeline(store, OFF_TOPIC)
    assert len(ranked) == 5 and kept == []
    assert fused_sigmoid(ranked[0].metadata["cage_score"]) > 0.75


@pytest.mark.models  # MiniLM and the spaCy pipeline
def test_the_score_keeps_the_fused_order_and_its_ties(store):
    for question in (QUERY, OFF_TOPIC):
        ranked, _ = _langchain_pipeline(store, question)
        fused = [d.metadata["cage_score"] for d in ranked]
        scores = [d.metadata["relevance_score"] for d in ranked]
        assert scores == sorted(scores, reverse=True)
        assert all((a > b) == (x > y) for a, b, x, y in zip(fused, fused[1:], scores, scores[1:]))


def test_pool_relevance_is_the_evidence_times_the_place_below_the_best():
    fused, sims = [2.0, 0.0, 2.0, -1.0], [0.1, 0.5, 0.3, 0.2]
    got = pool_relevance(fused, sims, 0.4, midpoint=0.3, slope=10.0, spread=2.0, weight=0.5)
    g = 1 / (1 + math.exp(-10.0 * (0.5 + 0.5 * 0.4 - 0.3)))
    assert got.tolist() == pytest.approx([g, g * math.exp(-1.0), g, g * math.exp(-1.5)])
    assert got[0] == got[2]  # a tie stays a tie
    assert pool_relevance([], [0.4], 0.0).tolist() == []


def test_the_question_words_the_pool_holds_lift_the_whole_pool_alike():
    fused, sims = [1.0, 0.5], [0.45, 0.3]
    without, held = pool_relevance(fused, sims, 0.0), pool_relevance(fused, sims, 0.6)
    assert without[0] < CUTOFF <= held[0]  # the same best similarity, kept by the words
    assert held[1] / held[0] == pytest.approx(without[1] / without[0])  # the same place


@pytest.mark.parametrize(
    "fused, sims, coverage, options",
    [
        ([1.0], [], 0.0, {}),
        ([float("nan")], [0.4], 0.0, {}),
        ([1.0], [float("inf")], 0.0, {}),
        ([1.0], [0.4], 1.5, {}),
        ([1.0], [0.4], float("nan"), {}),
        ([1.0], [0.4], 0.0, {"spread": 0.0}),
        ([1.0], [0.4], 0.0, {"slope": -1.0}),
        ([1.0], [0.4], 0.0, {"midpoint": float("nan")}),
        ([1.0], [0.4], 0.0, {"weight": -0.5}),
    ],
)
def test_pool_relevance_rejects_what_it_cannot_score(fused, sims, coverage, options):
    with pytest.raises(ValueError):
        pool_relevance(np.asarray(fused), np.asarray(sims), coverage, **options)
