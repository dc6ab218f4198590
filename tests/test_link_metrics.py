"""The link metrics: pair AP and AUC over gold–gold pairs, and the second-hop hit rate."""

import math

import numpy as np
import pytest

from cage_core.link_metrics import (
    LinkMetrics,
    first_hop,
    mean_metrics,
    pair_auc,
    pair_average_precision,
    rescue,
    second_hop,
)


def symmetric(k, entries):
    m = np.zeros((k, k))
    for (i, j), v in entries.items():
        m[i, j] = m[j, i] = v
    return m


GOLD = np.array([True, True, False, False])  # one positive pair (0, 1) among 6


def test_ap_is_one_when_the_gold_pair_scores_highest():
    s = symmetric(4, {(0, 1): 0.9, (0, 2): 0.5, (2, 3): 0.1})
    assert pair_average_precision(s, GOLD) == 1.0
    assert pair_auc(s, GOLD) == 1.0


def test_ap_is_the_precision_at_the_rank_of_the_gold_pair():
    s = symmetric(4, {(0, 1): 0.5, (0, 2): 0.9, (1, 3): 0.7})
    assert pair_average_precision(s, GOLD) == pytest.approx(1 / 3)
    assert pair_auc(s, GOLD) == pytest.approx(3 / 5)  # beats the 3 zero pairs of 5 negatives


def test_tied_scores_form_one_threshold_and_count_half_in_auc():
    s = np.zeros((4, 4))  # all 6 pairs tie
    assert pair_average_precision(s, GOLD) == pytest.approx(1 / 6)
    assert pair_auc(s, GOLD) == 0.5


def test_pair_metrics_are_undefined_without_positive_or_negative_pairs():
    s = symmetric(3, {(0, 1): 1.0})
    assert math.isnan(pair_average_precision(s, np.array([True, False, False])))
    assert math.isnan(pair_auc(s, np.array([True, True, True])))


def test_second_hop_starts_from_the_gold_passage_closest_to_the_question():
    sims = np.array([0.2, 0.8, 0.9, 0.1])
    assert first_hop(GOLD, sims) == 1  # passage 2 is closer but not gold
    hit = symmetric(4, {(1, 0): 0.6, (1, 2): 0.5})
    miss = symmetric(4, {(1, 0): 0.4, (1, 2): 0.5, (0, 2): 1.0})
    assert second_hop(hit, GOLD, sims) == 1.0
    assert second_hop(miss, GOLD, sims) == 0.0


def test_second_hop_credits_a_tie_by_its_share_of_gold():
    sims = np.array([0.9, 0.1, 0.1, 0.1])
    assert second_hop(np.zeros((4, 4)), GOLD, sims) == pytest.approx(1 / 3)
    assert math.isnan(second_hop(np.zeros((4, 4)), np.array([True, False, False, False]), sims))


def test_rescue_asks_which_passage_outside_the_core_links_best_to_it():
    sims = np.array([0.9, 0.8, 0.7, 0.1, 0.2])  # the core is passages 0, 1, 2
    gold = np.array([True, False, False, True, False])
    to_gold = symmetric(5, {(3, 0): 0.5, (4, 1): 0.4, (3, 4): 1.0})  # 3-4 is not a link to the core
    to_other = symmetric(5, {(3, 0): 0.5, (4, 1): 0.6})
    assert rescue(to_gold, gold, sims) == 1.0
    assert rescue(to_other, gold, sims) == 0.0
    assert rescue(np.zeros((5, 5)), gold, sims) == 0.5
    assert math.isnan(rescue(to_gold, np.array([True, True, False, False, False]), sims))


def test_means_skip_undefined_values():
    nan = float("nan")
    m = mean_metrics([LinkMetrics(1.0, nan, 0.0, 1.0), LinkMetrics(0.5, 0.5, nan, 0.0)])
    assert (m.ap, m.auc, m.hop, m.rescue) == (0.75, 0.5, 0.0, 0.5)


def test_a_wrongly_shaped_matrix_is_refused():
    with pytest.raises(ValueError, match=r"shape \[4, 4\]"):
        pair_auc(np.zeros((3, 3)), GOLD)
