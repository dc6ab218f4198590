"""A rerank call is checked once, where it enters: ``checked_pool`` gives the typed pool that
the ranking takes as it is, its route held as the pool's question and named passages
(cage_core.call_checks, CageReranker.checked_pool)."""

from __future__ import annotations

import numpy as np
import pytest

from cage_core import CageReranker, Passage
from cage_core.call_checks import checked_pool
from cage_core.names.routes import DocumentRoute, NamedDocument

QUESTION = "Under the Acme lease, when is rent due?"
ROUTE = DocumentRoute(
    (NamedDocument("acme.md", "Acme lease", 3.0, ("Acme", "lease")),),
    "Under the, when is rent due?",
)
POOL = [
    Passage("Rent is due on the first day of each month.", doc_id="acme.md", position=0),
    "Bananas are yellow.",
    Passage("Rent is due weekly.", doc_id="borealis.md", position=0),
]
SIMS = [0.4, 0.1, 0.6]


def test_strings_become_passages_and_passages_are_kept_as_given() -> None:
    pool = checked_pool(QUESTION, POOL, max_pool=10)
    assert pool.passages == (POOL[0], Passage("Bananas are yellow."), POOL[2])
    assert pool.passages[0] is POOL[0]
    assert pool.query == pool.question == QUESTION
    assert pool.similarities is None
    assert pool.named is None and not pool.routed


def test_a_route_becomes_the_pools_question_and_named_passages() -> None:
    pool = CageReranker(method="vanilla").checked_pool(QUESTION, POOL, route=ROUTE)
    assert pool.query == QUESTION
    assert pool.question == "Under the, when is rent due?"
    assert pool.named == (True, False, False)
    assert pool.routed


def test_an_empty_route_is_no_route() -> None:
    pool = CageReranker(method="vanilla").checked_pool(
        QUESTION, POOL, route=DocumentRoute((), QUESTION)
    )
    assert pool.named is None and pool.question == QUESTION


def test_similarities_are_checked_once_into_float64() -> None:
    pool = checked_pool(QUESTION, POOL, max_pool=None, similarities=[1, 0, 0.5])
    assert pool.similarities is not None
    assert pool.similarities.dtype == np.float64
    assert list(pool.similarities) == [1.0, 0.0, 0.5]
    later = checked_pool(QUESTION, POOL, max_pool=None).with_similarities(np.float32([0.5] * 3))
    assert later.similarities is not None and later.similarities.dtype == np.float64


@pytest.mark.parametrize(
    "query, passages, max_pool, sims, error, message",
    [
        (7, POOL, None, None, TypeError, "query must be a str, got int"),
        ("", POOL, None, None, ValueError, "the query is blank"),
        (" \n\t", [], None, None, ValueError, "the query is blank"),  # whatever the pool
        (QUESTION, "one string", None, None, TypeError, "not a single string"),
        (QUESTION, [b"bytes"], None, None, TypeError, r"passages\[0\] is a bytes"),
        (QUESTION, POOL, 2, None, ValueError, "a pool of 3 passages is larger than max_pool=2"),
        (QUESTION, POOL, None, [0.1, 0.2], ValueError, "one value for each of the 3 passages"),
        (QUESTION, POOL, None, [0.1, float("nan"), 0.2], ValueError, "NaN/inf at positions"),
    ],
)
def test_a_bad_argument_is_refused_where_the_call_enters(
    query, passages, max_pool, sims, error, message
) -> None:
    with pytest.raises(error, match=message):
        checked_pool(query, passages, max_pool, sims)


def test_with_similarities_checks_the_values_it_is_given() -> None:
    pool = checked_pool(QUESTION, POOL, max_pool=None)
    with pytest.raises(ValueError, match="one value for each of the 3 passages"):
        pool.with_similarities([0.5])


def test_rank_pool_of_the_checked_pool_is_rerank() -> None:
    reranker = CageReranker(method="vanilla")  # ranks by the similarities: no model loads
    ranked = reranker.rerank(QUESTION, POOL, query_similarities=SIMS, route=ROUTE)
    pool = reranker.checked_pool(QUESTION, POOL, SIMS, ROUTE)
    assert reranker.rank_pool(pool) == ranked
    assert [r.index for r in ranked] == [0, 2, 1]  # the named passage first, then by similarity
    scores = reranker.score_pool(pool)
    assert np.array_equal(scores.fused, reranker.score(QUESTION, POOL, SIMS, route=ROUTE).fused)
