"""Named documents first: the lift of a routed pool's scores, and the reranker's route."""

from __future__ import annotations

import numpy as np
import pytest

from cage_core import Passage
from cage_core.names.routes import DocumentRoute, NamedDocument
from cage_core.ranking.asks import asked_parts
from cage_core.ranking.named_documents import (
    NAMED_MARGIN,
    NAMED_RELEVANCE_WEIGHT,
    OTHER_KEPT_RANK,
    document_leads,
    named_first,
    named_order,
    named_pool_order,
    other_kept,
    own_relevance,
    reads_as_asked,
)
from cage_core.ranking.pool_scores import PoolScores
from cage_core.scoring import ranking


def test_named_passages_come_first_each_part_in_its_own_order() -> None:
    fused = np.array([0.9, 0.2, 0.5, 0.1, 0.7])
    named = [False, True, False, True, False]
    lifted = named_first(fused, named)
    assert list(ranking(lifted)) == [1, 3, 0, 4, 2]
    assert lifted[3] == pytest.approx(0.9 + NAMED_MARGIN)
    assert list(lifted[[0, 2, 4]]) == [0.9, 0.5, 0.7]


def test_no_named_passage_or_only_named_ones_leaves_the_scores() -> None:
    fused = np.array([0.3, 0.1])
    assert list(named_first(fused, [False, False])) == [0.3, 0.1]
    assert list(named_first(fused, [True, True])) == [0.3, 0.1]


def test_named_passages_already_ahead_are_not_lifted() -> None:
    assert list(named_first(np.array([0.9, 0.1]), [True, False])) == [0.9, 0.1]


def test_named_passages_are_ordered_by_fused_score_plus_half_their_relevance() -> None:
    fused = np.array([0.9, 0.2, 0.5, 0.1])
    named = [False, True, False, True]
    relevance = np.array([3.0, 0.0, 3.0, 1.0])  # the others' relevance changes nothing
    ordered = named_order(fused, named, ["a", "b", "a", "b"], relevance)
    assert NAMED_RELEVANCE_WEIGHT == 0.5
    assert list(ranking(ordered)) == [3, 1, 0, 2]
    assert ordered[3] == pytest.approx((0.1 + 0.5) / 1.5 + (0.9 - 0.2 / 1.5) + NAMED_MARGIN)
    assert list(ordered[[0, 2]]) == [0.9, 0.5]
    assert list(ranking(named_order(fused, named, ["a", "b", "a", "b"]))) == [1, 3, 0, 2]


TWO_ASKS = "What does the policy set, and how long does the nomination period stay open?"


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        (TWO_ASKS, 2),
        ("Consider the Birch agreement; is consent required to assign it?", 1),
        ("Which cipher does the chapter name?", 1),
        ("Summarize the changes of 2021.", 0),
        ("How is it upgraded, and from which release on is that possible?", 2),
        ("Under the election process, who may vote, and by which meeting?", 2),
        ("In which year was the agreement signed?", 1),
        ("What was signed, and by whom?", 2),
        ("Consider the agreement in the schedule; is it assigned?", 1),
    ],
)
def test_a_question_asks_as_many_things_as_its_clauses_that_open_with_a_question_word(
    question: str, asks: int
) -> None:
    assert asked_parts(question) == asks


def test_a_two_ask_question_about_one_document_keeps_another_documents_best_in_the_top_5() -> None:
    fused = np.array([0.9, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7])  # 0: the best of no named doc
    named = [False, True, True, True, True, True, True, False]
    documents = ["other", *["named"] * 6, "third"]
    kept = ranking(named_order(fused, named, documents, question=TWO_ASKS))
    assert OTHER_KEPT_RANK == 5
    assert list(kept[:6]) == [6, 5, 4, 3, 0, 2]
    asked_once = ranking(named_order(fused, named, documents, question="What does it set?"))
    assert list(asked_once[:6]) == [6, 5, 4, 3, 2, 1]
    two_documents = ["other", *["a"] * 3, *["b"] * 3, "third"]
    assert 0 not in ranking(named_order(fused, named, two_documents, question=TWO_ASKS))[:5]


def test_the_best_passage_of_no_named_document_is_raised_to_fifth_place() -> None:
    fused = np.array([0.2, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3])
    named = [False, True, True, True, True, True, False, False]  # others: 0, 6 (the best), 7
    raised = other_kept(fused, fused, named)
    assert list(ranking(raised)) == [1, 2, 3, 4, 6, 5, 7, 0]
    assert raised[6] > 0.5 and np.array_equal(np.delete(raised, 6), np.delete(fused, 6))
    in_top = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4])
    assert np.array_equal(other_kept(in_top, in_top, [True, True, True, False, True, True]), in_top)
    assert np.array_equal(other_kept(in_top, in_top, [True] * 6), in_top)  # no other document
    short = np.array([0.5, 0.9, 0.1])
    assert np.array_equal(other_kept(short, short, [True, True, False]), short)


def test_a_relevance_of_another_length_is_refused() -> None:
    with pytest.raises(ValueError, match="relevance"):
        named_order(np.array([0.1, 0.2]), [True, False], ["a", "b"], np.array([1.0]))
    with pytest.raises(ValueError, match="finite"):
        named_order(np.array([0.1, 0.2]), [True, False], ["a", "b"], np.array([np.nan, 0.0]))


def _scores(kind: str | None) -> PoolScores:
    k = 2
    return PoolScores(
        np.array([1.0, -1.0]),
        np.zeros(k),
        np.zeros(k),
        np.zeros((k, k)),
        (),
        np.zeros(k),
        kind=kind,
    )


def test_only_cages_own_relevance_term_reorders_named_passages() -> None:
    assert list(own_relevance(_scores("document"))) == [1.0, -1.0]
    assert list(own_relevance(_scores("titled"))) == [1.0, -1.0]
    assert own_relevance(_scores("paper")) is None  # the paper's method stays the paper's
    assert own_relevance(_scores(None)) is None  # a method that is not CAGE: bare similarities


def test_a_mask_of_another_length_is_refused() -> None:
    with pytest.raises(ValueError, match="named"):
        named_first(np.array([0.1, 0.2]), [True])


CLAUSES = [
    Passage("Company may not assign this Agreement without prior written consent.", doc_id="acme"),
    Passage("MA may not assign this Agreement without the approval of Company.", doc_id="birch"),
    Passage("This Agreement is governed by the laws of Nevada.", doc_id="birch"),
    Passage("Licensee shall not assign its rights under this Agreement.", doc_id="conv"),
]


def test_the_reranker_puts_the_named_document_first_and_reads_the_shortened_question(
    reranker,
) -> None:
    question = "In the Birch Mount agreement, is consent required to assign it?"
    route = DocumentRoute(
        (NamedDocument("birch", "Birch MA", 9.0, ("birch", "mount")),),
        "In the agreement, is consent required to assign it?",
    )
    plain = reranker.rerank(question, CLAUSES)
    routed = reranker.rerank(question, CLAUSES, route=route)
    assert [r.index for r in routed[:2]] == [1, 2]
    assert {r.index for r in plain[:2]} != {1, 2}
    shortened = reranker.rerank(route.question, CLAUSES)
    assert [r.similarity for r in sorted(routed, key=lambda r: r.index)] == [
        r.similarity for r in sorted(shortened, key=lambda r: r.index)
    ]
    assert reranker.rerank(question, CLAUSES, route=DocumentRoute((), question)) == plain


def test_each_named_documents_best_passage_leads_when_two_are_named() -> None:
    fused = np.array([0.9, 0.8, 0.7, 0.6, 0.95])
    named = [True, True, True, True, False]
    documents = ["a", "a", "a", "b", "c"]
    leads = document_leads(fused, named, documents)
    assert list(leads) == [True, False, False, True, False]
    order = ranking(named_order(fused, named, documents))
    assert list(order) == [0, 3, 1, 2, 4]


def test_one_named_document_has_no_leads() -> None:
    named = [True, True, False]
    assert not document_leads(np.array([0.3, 0.2, 0.9]), named, ["a", "a", "b"]).any()


def test_the_reranker_leads_with_a_passage_of_each_of_two_named_documents(reranker) -> None:
    pool = [
        Passage("Birch may not assign this Agreement without consent.", doc_id="birch"),
        Passage("Birch shall assign no rights under this Agreement.", doc_id="birch"),
        Passage("Birch assignment requires the approval of Company.", doc_id="birch"),
        Passage("Conv is governed by the laws of Nevada.", doc_id="conv"),
    ]
    route = DocumentRoute(
        (
            NamedDocument("birch", "Birch", 9.0, ("birch",)),
            NamedDocument("conv", "Conv", 9.0, ("conv",)),
        ),
        "Is consent required to assign the agreements?",
    )
    ranked = reranker.rerank("Is consent required to assign Birch and Conv?", pool, route=route)
    assert {pool[r.index].doc_id for r in ranked[:2]} == {"birch", "conv"}


def test_the_other_passages_are_ordered_by_the_scores_for_the_question_as_asked() -> None:
    """The named passage leads by the shortened question's scores; the others follow in the
    order of their scores for the question as asked."""
    k = 3
    shortened = PoolScores(
        np.zeros(k), np.zeros(k), np.array([0.5, 0.9, 0.1]), np.zeros((k, k)), (), np.zeros(k)
    )
    asked = PoolScores(
        np.zeros(k), np.zeros(k), np.array([0.0, 0.2, 0.8]), np.zeros((k, k)), (), np.zeros(k)
    )
    pool = [Passage("team", doc_id="team"), Passage("a", doc_id="a"), Passage("b", doc_id="b")]
    named = [True, False, False]
    assert list(ranking(named_pool_order(shortened, named, pool, "q"))) == [0, 1, 2]
    assert list(ranking(named_pool_order(shortened, named, pool, "q", asked))) == [0, 2, 1]
    with pytest.raises(ValueError, match="asked"):
        named_pool_order(shortened, [True, False], pool[:2], "q", asked)


BRIDGE = [
    Passage("A junior ice hockey team founded in 2003.", doc_id="maineiacs"),
    Passage("The college team played its home games at this arena.", doc_id="college"),
    Passage("The Lewiston Maineiacs played their home games at this arena.", doc_id="colisee"),
]


def test_the_reranker_orders_the_other_documents_for_the_question_as_asked(reranker) -> None:
    """ "the arena where the Lewiston Maineiacs played", routed to the team's page: of two
    arenas the shortened question finds alike (the college's a little closer by the store's
    similarity), the one that names the team follows the team's page, as the question asked
    it."""
    question = "The arena where the Lewiston Maineiacs played can seat how many people?"
    route = DocumentRoute(
        (NamedDocument("maineiacs", "Lewiston Maineiacs", 9.0, ("lewiston", "maineiacs")),),
        "The arena where the played can seat how many people?",
    )
    similarities = [0.3, 0.65, 0.6]  # for route.question
    ranked = reranker.rerank(question, BRIDGE, route=route, query_similarities=similarities)
    assert [r.index for r in ranked] == [0, 2, 1]
    shortened = reranker.rerank(route.question, BRIDGE, query_similarities=similarities)
    order = [r.index for r in shortened]
    assert order.index(1) < order.index(2)  # without the team's name: the college's first


def test_the_question_as_asked_is_read_only_when_it_can_order_a_passage() -> None:
    """Scores for the question as asked order the passages of no named document: none to
    order when every passage is named, nothing new when the question was not shortened."""
    assert reads_as_asked([True, False], "the arena?", "the Maineiacs arena?")
    assert reads_as_asked([False, False], "the arena?", "the Maineiacs arena?")
    assert not reads_as_asked([True, True], "the arena?", "the Maineiacs arena?")
    assert not reads_as_asked([True, False], "the arena?", "the arena?")
