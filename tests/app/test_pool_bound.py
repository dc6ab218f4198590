"""One call ranks at most ``max_pool`` passages: a larger pool is refused with a clear
ValueError before anything is parsed or embedded (issue 40, row 7; docs/limits.md)."""

import pickle

import pytest

from cage_core import CageReranker
from cage_core.reranker import DEFAULT_MAX_POOL


def pool(k):
    return [f"Passage {i} about Warsaw." for i in range(k)]


def sims(k):
    return [(i % 10) / 10 for i in range(k)]


def test_the_default_bound_is_2000():
    assert DEFAULT_MAX_POOL == 2_000
    assert CageReranker().max_pool == 2_000


def test_a_pool_at_the_bound_is_ranked():
    ranked = CageReranker(method="vanilla", max_pool=5).rerank(
        "q", pool(5), query_similarities=sims(5)
    )
    assert [p.index for p in ranked] == [4, 3, 2, 1, 0]


@pytest.mark.parametrize("method", ["cage", "vanilla", "tegr"])
@pytest.mark.parametrize("k", [2_001, 10_000])
def test_a_pool_over_the_default_bound_is_refused_before_any_model_loads(method, k):
    # not marked models: loading spaCy or MiniLM here would fail the test
    with pytest.raises(ValueError, match=rf"a pool of {k} passages is larger than max_pool=2000"):
        CageReranker(method=method).rerank("q", pool(k))
    with pytest.raises(ValueError, match=r"pass CageReranker\(max_pool=None\)"):
        CageReranker(method=method).score("q", pool(2_001), query_similarities=sims(2_001))


def test_max_pool_none_lifts_the_bound():
    r = CageReranker(method="vanilla", max_pool=None)
    ranked = r.rerank("q", pool(2_001), query_similarities=sims(2_001), top_n=3)
    assert [p.index for p in ranked] == [9, 19, 29]


def test_top_n_zero_asks_for_nothing_and_gets_nothing():
    assert CageReranker(max_pool=2).rerank("q", pool(3), top_n=0) == []


@pytest.mark.parametrize(
    "value, error", [(0, ValueError), (-5, ValueError), (True, TypeError), (2.5, TypeError)]
)
def test_a_bad_bound_is_refused(value, error):
    with pytest.raises(error, match="max_pool must be"):
        CageReranker(max_pool=value)


def test_the_bound_survives_pickling():
    r = pickle.loads(pickle.dumps(CageReranker(method="vanilla", max_pool=7)))
    assert r.max_pool == 7


def test_the_langchain_wrapper_passes_its_bound_on():
    from langchain_core.documents import Document

    from cage_langchain import CageRerank

    docs = [Document(page_content=t, metadata={"retrieval_score": 0.5}) for t in pool(3)]
    assert CageRerank().max_pool == DEFAULT_MAX_POOL
    assert len(CageRerank(max_pool=3, method="vanilla").compress_documents(docs, "q")) == 3
    with pytest.raises(ValueError, match="a pool of 3 passages is larger than max_pool=2"):
        CageRerank(max_pool=2, method="vanilla").compress_documents(docs, "q")


def test_the_llamaindex_wrapper_passes_its_bound_on():
    from llama_index.core.schema import NodeWithScore, TextNode

    from cage_llamaindex import CageRerank

    nodes = [NodeWithScore(node=TextNode(text=t), score=0.5) for t in pool(3)]
    assert CageRerank().max_pool == DEFAULT_MAX_POOL
    assert (
        len(CageRerank(max_pool=3, method="vanilla").postprocess_nodes(nodes, query_str="q")) == 3
    )
    with pytest.raises(ValueError, match="a pool of 3 passages is larger than max_pool=2"):
        CageRerank(max_pool=2, method="vanilla").postprocess_nodes(nodes, query_str="q")


def test_the_langchain_wrapper_refuses_an_unscored_pool_over_its_bound_before_embedding_it():
    # not marked models: embedding the pool with MiniLM here would fail the test
    from langchain_core.documents import Document

    from cage_langchain import CageRerank

    docs = [Document(page_content=t) for t in pool(3)]  # no retriever score: the embedding path
    with pytest.raises(ValueError, match="a pool of 3 passages is larger than max_pool=2"):
        CageRerank(max_pool=2, method="vanilla").compress_documents(docs, "q")


def test_the_llamaindex_wrapper_refuses_an_unscored_pool_over_its_bound_before_embedding_it():
    # not marked models: embedding the pool with MiniLM here would fail the test
    from llama_index.core.schema import NodeWithScore, TextNode

    from cage_llamaindex import CageRerank

    nodes = [NodeWithScore(node=TextNode(text=t), score=None) for t in pool(3)]
    with pytest.raises(ValueError, match="a pool of 3 passages is larger than max_pool=2"):
        CageRerank(max_pool=2, method="vanilla").postprocess_nodes(nodes, query_str="q")
