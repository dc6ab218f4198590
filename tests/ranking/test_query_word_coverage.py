"""The question's words one passage of a pool holds: the lexical half of the pool's evidence
in the frameworks' score (:mod:`cage_core.relevance`)."""

import pytest

from cage_core.ranking.pool_bm25 import query_word_coverage

QUESTION = "Which river flows through Warsaw?"  # which, river, flows, through, warsaw


def test_the_share_of_the_question_words_the_best_passage_holds():
    texts = ["The Vistula river flows through Warsaw.", "Warsaw is the capital of Poland."]
    assert query_word_coverage(QUESTION, texts) == 0.8  # all but "which", in one passage


def test_words_spread_over_passages_count_once_per_passage_not_together():
    texts = ["The river is long.", "It flows north.", "Warsaw lies on it."]
    assert query_word_coverage(QUESTION, texts) == 0.2


def test_case_repeats_and_stop_words_do_not_count():
    assert query_word_coverage("Warsaw warsaw WARSAW, the city", ["warsaw"]) == 0.5
    assert query_word_coverage("Is it the one?", ["The one."]) == 1.0  # "one" alone counts


def test_nothing_to_match_is_zero():
    assert query_word_coverage(QUESTION, []) == 0.0
    assert query_word_coverage("Is it?", ["It is."]) == 0.0  # no word of the question counts
    assert query_word_coverage(QUESTION, ["Bananas are yellow."]) == 0.0


def test_a_single_string_is_refused():
    with pytest.raises(TypeError):
        query_word_coverage(QUESTION, "The Vistula river flows through Warsaw.")
