"""The default coherence on pools without titles (cage_core.subject_core): exact expectations."""

import numpy as np
import pytest

from cage_core import CageConfig, Passage
from cage_core.config import ChainConfig, UntitledConfig
from cage_core.fusion import score_pool, standardize
from cage_core.passage_subject import subject_aliases
from cage_core.scoring import ranking
from cage_core.subject_core import query_named_subjects, subject_core_scores, subject_mentions


def test_a_full_name_of_three_capitalised_words_also_goes_by_its_short_forms():
    assert subject_aliases("Barton Lee Hazlewood") == (
        "barton hazlewood", "barton lee", "barton lee hazlewood", "lee hazlewood")
    assert subject_aliases("Marie Curie") == ("marie curie",)
    assert subject_aliases("2009 Big 12 Conference") == ("2009 big 12 conference",)  # not all words
    assert subject_aliases("  ") == ()


def test_a_text_naming_a_short_form_of_a_subject_links_to_it_only_with_aliases():
    subjects = ["Bobbi Bacha", "Sela Ann Ward"]
    texts = ["Bobbi Bacha is played by actress Sela Ward.", "Sela Ann Ward is an American actress."]
    assert subject_mentions(subjects, texts, aliases=True).tolist() == [[0.0, 1.0], [0.0, 0.0]]
    assert subject_mentions(subjects, texts, aliases=False).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    with pytest.raises(ValueError, match="2 subjects for 1 texts"):
        subject_mentions(subjects, texts[:1], aliases=True)


def test_only_the_most_relevant_passage_about_a_named_subject_gains():
    subjects = ["Roald Dahl", "Roald Dahl", "Matilda", "Boy"]  # "Boy" is not named as a word
    relevance = np.array([0.5, 1.0, 0.2, 0.9])
    named = query_named_subjects("Which Roald Dahl story inspired Matilda? Boys!", subjects, relevance)
    assert named.tolist() == [0.0, 1.0, 1.0, 0.0]


def test_the_forward_hop_from_the_best_core_passage_counts_most():
    relevance = np.array([3.0, 2.0, 1.0, 0.0, 0.0])
    mentions = np.zeros((5, 5))
    mentions[0, 3] = 1.0  # the best core passage names passage 3's subject (forward hop)
    mentions[4, 1] = 1.0  # passage 4 names the second core passage's subject (backward)
    config = UntitledConfig(query_subject_weight=1.0, forward_weight=1.5, backward_weight=0.5,
                            core_decay=0.5, alpha=0.4)
    r, core, coherence, links = subject_core_scores(
        relevance, mentions, np.zeros((5, 5)), np.zeros(5), core_size=3, entity_weight=0.5, config=config)
    assert core.tolist() == [0, 1, 2]
    assert links[3, 0] == 1.5 and links[0, 3] == 0.5 and links[4, 1] == 0.5 and links[1, 4] == 1.5
    # c_3 = 1.5 (core rank 0, weight 1); c_4 = 0.5 · 0.5 (core rank 1); core members get max = 1.5
    assert coherence.tolist() == [1.5, 1.5, 1.5, 1.5, 0.25]
    assert r.tolist() == relevance.tolist()


def test_a_named_subject_enters_the_core_ahead_of_a_more_relevant_passage():
    relevance = np.array([3.0, 2.0, 1.5, 1.0])
    config = UntitledConfig(query_subject_weight=1.0)
    r, core, _, _ = subject_core_scores(relevance, np.zeros((4, 4)), np.zeros((4, 4)),
                                        np.array([0.0, 0.0, 0.0, 1.0]), core_size=3, entity_weight=0.5,
                                        config=config)  # fmt: skip
    assert r.tolist() == [3.0, 2.0, 1.5, 2.0]
    assert core.tolist() == [0, 1, 3]  # 3 ties 1 at 2.0 and comes later in the pool


@pytest.mark.parametrize("field, value, message", [
    ("query_subject_weight", -1.0, "query_subject_weight must be in"),
    ("forward_weight", float("inf"), "forward_weight must be in"),
    ("core_decay", 1.5, "core_decay must be in"),
    ("alpha", -0.1, "alpha must be in"),
])  # fmt: skip
def test_invalid_untitled_settings_are_refused(field, value, message):
    with pytest.raises(ValueError, match=message):
        UntitledConfig(**{field: value})
    with pytest.raises(TypeError, match="aliases must be a bool"):
        UntitledConfig(aliases=1)
    with pytest.raises(TypeError, match="untitled must be an UntitledConfig"):
        CageConfig(untitled={"alpha": 0.5})


COMPARISON = "Which was founded first, Acme Records or Zenith Books?"
POOL = [
    "Acme Records is an American record label founded in 1950 in Nashville.",
    "In 1950 records and books were first sold together in shops.",
    "Many record labels were founded in Nashville in the 1950s.",
    "Zenith Books is a British publisher founded in 1962 in London.",
    "The London Book Fair was first held in 1971.",
]


def test_both_compared_entities_of_an_untitled_pool_enter_its_top_three(parser):
    passages = [Passage(text) for text in POOL]
    graphs = parser.parse(POOL)
    sims = np.array([0.9, 0.8, 0.7, 0.6, 0.5])
    config = CageConfig(lexical_weight=0.0)
    scores = score_pool(COMPARISON, passages, sims, graphs, config)
    assert scores.chain == ()
    # Zenith Books (4th by similarity) gains 1.0 as a subject the query names: r' = z + Q puts
    # it third, in the core, which leads the ranking
    assert scores.relevance.tolist() == (standardize(sims) + np.array([1.0, 0, 0, 1.0, 0])).tolist()
    assert ranking(scores.fused)[:3].tolist() == [0, 1, 3]
    without = score_pool(COMPARISON, passages, sims, graphs,
                         config.replace(untitled=UntitledConfig(query_subject_weight=0.0)))
    assert ranking(without.fused)[:3].tolist() == [0, 1, 2]


def test_the_subject_core_replaces_the_chain_only_while_the_chain_is_on(parser):
    passages = [Passage(text) for text in POOL]
    graphs = parser.parse(POOL)
    sims = np.array([0.9, 0.8, 0.7, 0.6, 0.5])
    nochain = CageConfig(lexical_weight=0.0, chain=ChainConfig(length=0))
    scores = score_pool(COMPARISON, passages, sims, graphs, nochain)
    assert scores.relevance.tolist() == standardize(sims).tolist()  # no query-subject gain
    titled = [Passage(text, title=f"T{i}") for i, text in enumerate(POOL)]
    chained = score_pool(COMPARISON, titled, sims, graphs, CageConfig(lexical_weight=0.0))
    assert len(chained.chain) == 3  # a pool with titles keeps the chain
