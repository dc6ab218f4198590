"""Reciprocal-rank-fusion values are told from similarities exactly
(cage_core.integrations.fused_scores), so no reranker reads a fusion value as a similarity."""

import numpy as np
import pytest

from cage_core.integrations.fused_scores import MAX_LISTS, RRF_K, rank_fusion_values


def rrf(*ranks: int) -> float:
    """A node's fused score when lists ranked it at ``ranks`` (0-based, as QueryFusionRetriever)."""
    return sum(1.0 / (rank + RRF_K) for rank in ranks)


def test_query_fusion_retrievers_scores_are_recognised():
    # two legs (vector + BM25), num_queries=1: what QueryFusionRetriever gives a pool
    assert rank_fusion_values([rrf(0, 1), rrf(1, 0), rrf(2), rrf(3, 4), rrf(9)])


def test_sums_of_up_to_max_lists_terms_are_recognised():
    assert rank_fusion_values([rrf(*range(MAX_LISTS)), rrf(5, 17, 40), rrf(200)])


def test_minilm_cosines_are_not_fusion_values():
    assert not rank_fusion_values([0.4649, 0.2558, 0.2014, 0.0281])


def test_small_similarities_of_an_off_topic_pool_are_not_fusion_values():
    cosines = np.random.default_rng(7).uniform(0.001, 0.06, size=10)
    assert not rank_fusion_values(cosines)


@pytest.mark.parametrize("scores", [[], [float("nan"), rrf(0)], [0.0, rrf(0)], [-rrf(0)]])
def test_empty_missing_or_non_positive_scores_are_not_fusion_values(scores):
    assert not rank_fusion_values(scores)


def test_one_value_that_is_no_fusion_sum_spoils_the_pool():
    assert not rank_fusion_values([rrf(0, 1), rrf(2), rrf(3) + 1e-6])
