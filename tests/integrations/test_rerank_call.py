"""The steps both CageRerank wrappers share: the reranker built once from their settings, a
routed pool's similarities, the pool embedded sync or async alike with one fallback warning,
and the ranked results' metadata copied with the scores."""

import asyncio
import logging
from types import SimpleNamespace

import numpy as np
import pytest

from cage_core import CageConfig
from cage_core.integrations.document_routing import ROUTE_SCORE_KEY
from cage_core.integrations.rerank_call import (
    embedded_similarities,
    lazy_reranker,
    ranked_items,
    routed_pool,
    routed_similarities,
)
from cage_core.integrations.steps import arun, run

pytestmark = pytest.mark.models

QUERY = "Which river flows through Warsaw?"
TEXTS = [
    "Bananas are yellow fruit rich in potassium.",
    "The Vistula river flows through Warsaw.",
    "Warsaw is the capital of Poland.",
]
LOGGER = logging.getLogger("tests.rerank_call")


def _owner(**settings):
    values = dict(
        _reranker=None,
        _warned_fallback=False,
        config=CageConfig(),
        alpha=None,
        spacy_model=None,
        method="vanilla",
        max_pool=50,
        top_n=2,
        graph_key="cage_graph",
        integrity_key=None,
    )
    return SimpleNamespace(**{**values, **settings})


def test_the_reranker_is_built_once_from_the_settings_with_alpha_over_the_config():
    owner = _owner(alpha=0.4, max_pool=7)

    reranker = lazy_reranker(owner)

    assert reranker.config.alpha == 0.4
    assert reranker.max_pool == 7
    assert lazy_reranker(owner) is reranker


def test_a_routed_pool_reads_its_route_scores_or_says_why_it_cannot():
    scored = [{ROUTE_SCORE_KEY: 0.5}, {ROUTE_SCORE_KEY: 0.25}]

    sims, reason = routed_similarities(scored, "nodes")
    assert sims.tolist() == [0.5, 0.25] and reason == ""

    assert routed_similarities([*scored, {}], "documents") == (
        None,
        "the routed documents came without cage_route_score",
    )


def test_the_pool_is_embedded_alike_sync_and_async_and_the_fallback_is_warned_once(caplog):
    owner = _owner()
    pool, route = routed_pool(owner, QUERY, TEXTS, [{} for _ in TEXTS])
    assert route is None

    with caplog.at_level(logging.WARNING, logger=LOGGER.name):
        sync = run(embedded_similarities(owner, LOGGER, pool, "no scores", "Fix it."))
        both = asyncio.run(arun(embedded_similarities(owner, LOGGER, pool, "no scores", "Fix.")))

    assert np.array_equal(sync, both)
    assert np.array_equal(sync, lazy_reranker(owner).similarities(QUERY, TEXTS))
    [warning] = caplog.messages
    assert warning.startswith("CageRerank: no scores, so the query and 3 passages were embedded")
    assert "Fix it. (warned once per CageRerank)" in warning


def test_nothing_is_warned_when_embedding_was_asked_for(caplog):
    owner = _owner()
    pool, _ = routed_pool(owner, QUERY, TEXTS, [{} for _ in TEXTS])

    with caplog.at_level(logging.WARNING, logger=LOGGER.name):
        run(embedded_similarities(owner, LOGGER, pool, "", "Fix it."))

    assert caplog.messages == []
    assert owner._warned_fallback is False


def test_ranked_items_carry_a_copy_of_the_metadata_with_the_scores_best_first():
    owner = _owner(top_n=2)
    metadatas = [{"source": f"s{i}"} for i in range(len(TEXTS))]
    pool, route = routed_pool(owner, QUERY, TEXTS, metadatas)
    pool = pool.with_similarities([0.1, 0.9, 0.5])

    items = ranked_items(owner, pool, metadatas, route)

    assert [i.index for i in items] == [1, 2]  # "vanilla": the cosine order
    assert [i.metadata["source"] for i in items] == ["s1", "s2"]
    assert [i.metadata["relevance_score"] for i in items] == [i.score for i in items]
    assert [i.metadata["cage_rank"] for i in items] == [0, 1]
    assert metadatas == [{"source": f"s{i}"} for i in range(len(TEXTS))]  # untouched
