"""The question's words one passage of a pool holds: the lexical half of the pool's evidence
in the frameworks' score (:mod:`cage_core.relevance`)."""

import pytest

from cage_core.ranking.pool_bm25 import named_word_coverage, query_word_coverage

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


def test_a_passage_of_a_named_document_holds_the_words_that_name_it():
    query = "Warsaw guide: the river?"  # warsaw, guide, river
    question = "The river?"  # routing took "Warsaw guide" out
    texts = ["The river is wide.", "The river is wide."]

    assert query_word_coverage(query, texts) == 1 / 3  # "river" alone
    assert named_word_coverage(query, question, texts, [False, False]) == 1 / 3
    assert named_word_coverage(query, question, texts, [True, False]) == 1.0


def test_a_naming_word_the_question_keeps_must_be_held_by_the_passage_itself():
    query = "Which river guide describes the river?"  # which, river, guide, describes
    question = "Which describes the river?"  # "river" is the question's own word too

    coverage = named_word_coverage(query, question, ["Nothing of it."], [True])

    assert coverage == 0.25  # "guide" alone is held by being named


def test_named_marks_every_text():
    with pytest.raises(ValueError, match="named has 1 entries for 2 texts"):
        named_word_coverage("a river", "river", ["one", "two"], [True])
