"""The 0–1 score of the wrappers reads the whole pool's best similarity, whatever ``top_n``."""

import pytest

from cage_core import CageReranker
from cage_core.integrations.scored_rerank import scored_rerank
from cage_core.passage import as_passages
from cage_core.relevance import pool_relevance

pytestmark = pytest.mark.models

QUERY = "Which waterway passes the Polish capital?"
TEXTS = [
    "The Vistula river flows through Warsaw.",  # the most similar by cosine
    "Polish shoe polish passes which test? A capital letter, a waterway of ink.",  # BM25's best
    "Bananas are yellow fruit rich in potassium.",
]


def test_a_top_n_below_the_most_similar_passage_keeps_the_pool_evidence():
    reranker = CageReranker(method="bm25")
    passages = as_passages(TEXTS)
    similarities = reranker.similarities(QUERY, passages)
    assert similarities.argmax() == 0  # the pool's best similarity is passage 0's

    [(top, score)] = scored_rerank(reranker, QUERY, passages, 1, None, None)

    assert top.index == 1  # BM25 ranks the word-matching passage first
    assert score == pool_relevance([top.score], similarities)[0]
    assert score == scored_rerank(reranker, QUERY, passages, None, None, None)[0][1]
    assert score != pool_relevance([top.score], [top.similarity])[0]  # not the top's alone


def test_no_passages_give_no_results():
    assert scored_rerank(CageReranker(method="bm25"), QUERY, [], 3, None, None) == []
