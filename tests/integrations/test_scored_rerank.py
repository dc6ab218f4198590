"""The 0–1 score of the wrappers reads the whole pool's best similarity and the question's
words its best-matching passage holds, whatever ``top_n``."""

import pytest

from cage_core import CageReranker
from cage_core.integrations.rerank_call import evidence_similarities, pool_coverage, scored_rerank
from cage_core.names.routes import DocumentRoute, NamedDocument
from cage_core.passage import Passage, as_passages
from cage_core.ranking.pool_bm25 import named_word_coverage, query_word_coverage
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

    [(top, score)] = scored_rerank(reranker, reranker.checked_pool(QUERY, passages), 1)

    assert top.index == 1  # BM25 ranks the word-matching passage first
    coverage = query_word_coverage(QUERY, TEXTS)
    assert score == pool_relevance([top.score], similarities, coverage)[0]
    assert score == scored_rerank(reranker, reranker.checked_pool(QUERY, passages), None)[0][1]
    assert score != pool_relevance([top.score], [top.similarity], coverage)[0]  # not the top's


def test_the_coverage_is_read_from_the_whole_pool_not_the_top_n():
    reranker = CageReranker(method="vanilla")  # cosine order: the Vistula passage first
    passages = as_passages(TEXTS)
    similarities = reranker.similarities(QUERY, passages)

    pool = reranker.checked_pool(QUERY, passages, similarities)
    [(top, score)] = scored_rerank(reranker, pool, 1)

    assert top.index == 0
    # the question's words "which", "waterway", "passes", "polish", "capital": the top passage
    # holds none of them, passage 1 (below top_n) all five
    assert query_word_coverage(QUERY, TEXTS[:1]) == 0.0
    assert score == pool_relevance([top.score], similarities, 1.0)[0]


VISTULA = (  # a question, its pool, its route to the document it names
    "What does the Vistula guide say about the capital?",
    [
        Passage("The capital lies on both banks.", doc_id="vistula.md"),
        Passage("Bananas are yellow fruit.", doc_id="fruit.md"),
    ],
    DocumentRoute(
        (NamedDocument("vistula.md", "Vistula guide", 1.0, ("Vistula", "guide")),),
        "What does say about the capital?",
    ),
)


def test_a_routed_pool_counts_the_naming_words_as_held_by_the_named_document():
    reranker = CageReranker(method="vanilla")
    query, passages, route = VISTULA
    pool = reranker.checked_pool(query, passages, route=route)

    [(top, score), _] = scored_rerank(reranker, pool, None)

    texts = [p.text for p in passages]
    coverage = named_word_coverage(query, route.question, texts, [True, False])
    assert coverage == 3 / 7 > query_word_coverage(query, texts) == 1 / 7  # + vistula, guide
    assert score == pool_relevance([top.score], reranker.pool_similarities(pool), coverage)[0]
    assert pool_coverage(pool) == 3 / 7  # what a benchmark reads to recompute the score
    assert pool_coverage(reranker.checked_pool(query, passages)) == 1 / 7  # unrouted


def test_no_passages_give_no_results():
    reranker = CageReranker(method="bm25")
    assert scored_rerank(reranker, reranker.checked_pool(QUERY, []), 3) == []


def test_a_routed_pool_reads_the_best_similarity_of_the_question_as_asked_too():
    reranker = CageReranker(method="vanilla")
    routed = reranker.checked_pool(VISTULA[0], VISTULA[1], route=VISTULA[2])
    pool = routed.with_similarities([0.30, 0.10], asked=[0.70, 0.20])

    [(top, score), _] = scored_rerank(reranker, pool, None)

    coverage = pool_coverage(pool)
    assert score == pool_relevance([top.score], [0.70], coverage)[0]  # as asked: 0.70
    assert score > pool_relevance([top.score], [0.30], coverage)[0]  # shortened: 0.30
    assert evidence_similarities(pool).tolist() == [0.30, 0.10, 0.70, 0.20]
    assert [r.index for r, _ in scored_rerank(reranker, pool, None)] == [0, 1]  # order: sims


def test_similarities_as_asked_are_ignored_for_a_pool_that_was_not_routed():
    reranker = CageReranker(method="vanilla")
    pool = reranker.checked_pool(QUERY, as_passages(TEXTS))

    scored = pool.with_similarities([0.5, 0.2, 0.1], asked=[0.9, 0.9, 0.9])

    assert scored.asked_similarities is None
    assert evidence_similarities(scored).tolist() == [0.5, 0.2, 0.1]
