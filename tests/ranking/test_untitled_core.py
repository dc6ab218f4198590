"""The default coherence on pools without titles (cage_core.ranking.untitled_core): exact
expectations."""

import numpy as np
import pytest

from cage_core import CageConfig, Passage
from cage_core.config import ChainConfig, UntitledConfig
from cage_core.methods.cage import score_pool
from cage_core.names.subjects import Subject, subject_aliases
from cage_core.passage import Via
from cage_core.ranking.explanation import evidence_chain
from cage_core.ranking.untitled_core import (
    SubjectLinks,
    query_named_subjects,
    short_chain,
    subject_core_scores,
    subject_forms,
    subject_links,
    subject_mentions,
    untitled_subject,
)
from cage_core.scoring import ranking, standardize


def links_of(mentions, entities=None, named=None, query_named=None):
    """The SubjectLinks of a k-passage pool from its matrices (zeros where not given)."""
    k = len(mentions)
    return SubjectLinks(
        np.asarray(mentions, dtype=float),
        np.zeros((k, k)) if entities is None else np.asarray(entities, dtype=float),
        np.zeros(k) if named is None else np.asarray(named, dtype=float),
        np.zeros(k) if query_named is None else np.asarray(query_named, dtype=float),
    )


def test_a_full_name_of_three_capitalised_words_also_goes_by_its_short_forms():
    assert subject_aliases("Barton Lee Hazlewood") == (
        "barton hazlewood",
        "barton lee",
        "barton lee hazlewood",
        "lee hazlewood",
    )
    assert subject_aliases("Marie Curie") == ("marie curie",)
    assert subject_aliases("2009 Big 12 Conference") == ("2009 big 12 conference",)  # not all words
    assert subject_aliases("  ") == ()


def test_titles_and_suffixes_are_dropped_before_the_short_forms_are_taken():
    assert subject_aliases("Sir Arthur Ignatius Conan Doyle KStJ") == (
        "arthur conan doyle",
        "arthur doyle",
        "arthur ignatius",
        "arthur ignatius conan doyle",
        "conan doyle",
        "sir arthur ignatius conan doyle kstj",
    )
    assert subject_aliases("Paul John Manafort Jr") == (
        "john manafort",
        "paul john",
        "paul john manafort",
        "paul john manafort jr",
        "paul manafort",
    )
    assert subject_aliases("Gerard Marsden MBE") == ("gerard marsden", "gerard marsden mbe")


def test_a_passage_goes_by_its_subject_its_short_forms_and_the_names_its_opening_gives():
    texts = ["Daryl Franklin Hohl, known professionally as Daryl Hall, is a singer.", "He sang."]
    assert subject_forms(["Daryl Franklin Hohl", ""], texts, aliases=True) == [
        ("daryl franklin", "daryl franklin hohl", "daryl hohl", "franklin hohl", "Daryl Hall"),
        (),
    ]
    assert subject_forms(["Daryl Franklin Hohl", ""], texts, aliases=False) == [
        ("Daryl Franklin Hohl",),
        (),
    ]


def test_subject_links_hold_the_query_parts_and_the_mentions():
    subjects = ["Kiss and Tell", "Kiss", "Shirley Temple Black", "Shirley Temple", ""]
    texts = [
        "Kiss and Tell stars Shirley Temple.",
        "Kiss is an album.",
        "Shirley Temple Black was an actress.",
        "Shirley Temple is a drink.",
        "Nothing here.",
    ]
    links = subject_links(
        "Who starred in Kiss and Tell?",
        subjects,
        texts,
        np.array([1.0, 2.0, 0.0, 0.5, 0.0]),
        np.zeros((5, 5)),
        aliases=True,
    )
    assert links.query_subjects.tolist() == [
        1.0,
        0.0,
        0.0,
        0.0,
        0.0,
    ]  # "Kiss" is inside "Kiss and Tell"
    assert links.query_named.tolist() == [1.0, 1.0, 0.0, 0.0, 0.0]
    assert links.mentions[0].tolist() == [0.0, 1.0, 1.0, 1.0, 0.0]  # "Kiss", both Shirley Temples


def test_a_subject_from_the_entity_fallback_links_nothing_in_an_untitled_pool():
    assert untitled_subject(Subject("America East", "entity")) == ""
    assert untitled_subject(Subject("Vermont Catamounts", "first_sentence")) == "Vermont Catamounts"


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
    named = query_named_subjects(
        "Which Roald Dahl story inspired Matilda? Boys!", subjects, relevance
    )
    assert named.tolist() == [0.0, 1.0, 1.0, 0.0]


def test_a_subject_named_only_inside_a_longer_named_subject_does_not_gain():
    subjects = ["Kiss", "Kiss and Tell", "Shirley Temple Black"]
    relevance = np.array([1.0, 0.5, 0.0])
    query = "Who played Corliss Archer in Kiss and Tell?"
    assert query_named_subjects(query, subjects, relevance).tolist() == [0.0, 1.0, 0.0]


def test_each_part_of_the_query_brings_one_passage_whichever_name_matched_it():
    subjects = [
        "Giuseppe Verdi",
        "Giuseppe Fortunino Francesco Verdi",
        "Charles Louis Ambroise Thomas",
    ]
    relevance = np.array([2.0, 1.0, 0.0])  # a film named after Verdi, the composer, Thomas
    query = "Are Giuseppe Verdi and Ambroise Thomas both opera composers?"
    assert query_named_subjects(query, subjects, relevance, aliases=True).tolist() == [
        1.0,
        0.0,
        1.0,
    ]
    assert query_named_subjects(query, subjects, relevance).tolist() == [1.0, 0.0, 0.0]
    texts = ["", "", "Damon Gough, known by the stage name Badly Drawn Boy, is a singer."]
    named = query_named_subjects(
        "Is Badly Drawn Boy a band?",
        ["A", "B", "Damon Michael Gough"],
        relevance,
        texts=texts,
        aliases=True,
    )
    assert named.tolist() == [0.0, 0.0, 1.0]


def test_the_forward_hop_from_the_best_core_passage_counts_most():
    relevance = np.array([3.0, 2.0, 1.0, 0.0, 0.0])
    mentions = np.zeros((5, 5))
    mentions[0, 3] = 1.0  # the best core passage names passage 3's subject (forward hop)
    mentions[4, 1] = 1.0  # passage 4 names the second core passage's subject (backward)
    config = UntitledConfig(
        query_subject_weight=1.0, forward_weight=1.5, backward_weight=0.5, core_decay=0.5, alpha=0.4
    )
    r, core, coherence, links = subject_core_scores(
        relevance, links_of(mentions), core_size=3, entity_weight=0.5, config=config
    )
    assert core.tolist() == [0, 1, 2]
    assert links[3, 0] == 1.5 and links[0, 3] == 0.5 and links[4, 1] == 0.5 and links[1, 4] == 1.5
    # c_3 = 1.5 (core rank 0, weight 1); c_4 = 0.5 · 0.5 (core rank 1); core members get max = 1.5
    assert coherence.tolist() == [1.5, 1.5, 1.5, 1.5, 0.25]
    assert r.tolist() == relevance.tolist()


def test_a_named_subject_enters_the_core_ahead_of_a_more_relevant_passage():
    relevance = np.array([3.0, 2.0, 1.5, 1.0])
    config = UntitledConfig(query_subject_weight=1.0)
    r, core, _, _ = subject_core_scores(
        relevance,
        links_of(np.zeros((4, 4)), named=[0, 0, 0, 1]),
        core_size=3,
        entity_weight=0.5,
        config=config,
    )
    assert r.tolist() == [3.0, 2.0, 1.5, 2.0]
    assert core.tolist() == [0, 1, 3]  # 3 ties 1 at 2.0 and comes later in the pool


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("query_subject_weight", -1.0, "query_subject_weight must be in"),
        ("forward_weight", float("inf"), "forward_weight must be in"),
        ("core_decay", 1.5, "core_decay must be in"),
        ("alpha", -0.1, "alpha must be in"),
        ("chain_window", -1, "chain_window must be in"),
        ("chain_length", 0, "chain_length must be in"),
        ("chain_mention_weight", -1.0, "chain_mention_weight must be in"),
        ("chain_entity_cap", float("nan"), "chain_entity_cap must be"),
    ],
)
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
    config = CageConfig(lexical_weight=0.0, untitled=UntitledConfig(chain_window=0))  # core alone
    scores = score_pool(COMPARISON, passages, sims, graphs, config)
    assert scores.chain == ()
    # Zenith Books (4th by similarity) gains 1.0 as a subject the query names: r' = z + Q puts
    # it third, in the core, which leads the ranking
    assert scores.relevance.tolist() == (standardize(sims) + np.array([1.0, 0, 0, 1.0, 0])).tolist()
    assert ranking(scores.fused)[:3].tolist() == [0, 1, 3]
    without = score_pool(
        COMPARISON,
        passages,
        sims,
        graphs,
        config.replace(untitled=config.untitled.replace(query_subject_weight=0.0)),
    )
    assert ranking(without.fused)[:3].tolist() == [0, 1, 2]


def test_the_subject_core_replaces_the_chain_only_while_the_chain_is_on(parser):
    passages = [Passage(text) for text in POOL]
    graphs = parser.parse(POOL)
    sims = np.array([0.9, 0.8, 0.7, 0.6, 0.5])
    nochain = CageConfig(lexical_weight=0.0, chain=ChainConfig(length=0))
    scores = score_pool(COMPARISON, passages, sims, graphs, nochain)
    assert scores.relevance.tolist() == standardize(sims).tolist()  # no query-subject gain
    titled = [Passage(text, title=f"Title {i}") for i, text in enumerate(POOL)]
    chained = score_pool(COMPARISON, titled, sims, graphs, CageConfig(lexical_weight=0.0))
    assert len(chained.chain) == 3  # a pool with titles keeps the chain


def test_the_short_chain_takes_named_subjects_then_the_strongest_link_within_the_window():
    relevance = np.array([3.0, 2.0, 1.5, 1.0, 0.5, 0.0])
    fused = np.array([6.0, 5.0, 4.0, 3.0, 2.0, 1.0])  # the window of 5 leaves out passage 5
    mentions = np.zeros((6, 6))
    mentions[0, 4] = 1.0  # the first chain passage names passage 4's subject
    mentions[0, 5] = 1.0  # ... and passage 5's, outside the window
    entities = np.zeros((6, 6))
    entities[0, 1] = entities[1, 0] = 5.0  # shares entities with the first chain passage
    named = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0])
    config = UntitledConfig(
        chain_window=5,
        chain_length=3,
        chain_mention_weight=4.0,
        chain_entity_weight=1.0,
        chain_entity_cap=1.0,
    )
    # 0: highest r'; 3: named by the query; then 4 (0.5 + 4) over 1 (2 + 1 · min(5, 1))

    links = links_of(mentions, entities, named)

    def chain(**changes):
        return short_chain(fused, relevance, links, config.replace(**changes)).tolist()

    assert chain() == [0, 3, 4]
    assert chain(chain_entity_cap=3.0) == [0, 3, 1]  # passage 1 now gains 2 + 3 = 5 > 4.5
    assert chain(chain_length=2) == [0, 3]
    assert chain(chain_window=0) == []
    with pytest.raises(ValueError, match="k = 6 passages"):
        short_chain(fused[:5], relevance, links, config)


def test_the_short_chain_passes_over_another_passage_about_a_query_name():
    relevance = np.array([3.0, 2.0, 1.5, 1.2])
    fused = np.array([4.0, 3.0, 2.0, 1.0])
    query_named = np.array([1.0, 0.0, 1.0, 0.0])  # the query names 0's and 2's subjects ...
    links = links_of(np.zeros((4, 4)), named=[1, 0, 0, 0], query_named=query_named)
    config = UntitledConfig(
        chain_window=4, chain_length=3, chain_query_named_penalty=0.0
    )  # ... and 0 is the passage it brings

    def chain(**changes):
        return short_chain(fused, relevance, links, config.replace(**changes)).tolist()

    assert chain() == [0, 1, 2]  # relevance alone
    assert chain(chain_query_named_penalty=1.0) == [0, 1, 3]  # 2 gains 1.5 − 1, under 1.2


def test_an_untitled_config_has_no_setting_that_only_runs_off():
    with pytest.raises(TypeError, match="chain_same_subject_penalty"):  # not chosen by CV (0.4)
        UntitledConfig(chain_same_subject_penalty=1.0)


BRIDGE = "Which river flows through the city where Acme Records was founded?"
BRIDGE_POOL = [
    "Acme Records is an American record label founded in 1950 in Nashville.",
    "Many record labels sell vinyl.",
    "Vinyl and books were first sold together in shops.",
    "Nashville is a city on the Cumberland River in Tennessee.",
    "The London Book Fair was first held in 1971.",
]


def test_the_short_chain_lifts_the_bridge_passage_of_an_untitled_pool_into_its_top_three(parser):
    passages = [Passage(text) for text in BRIDGE_POOL]
    graphs = parser.parse(BRIDGE_POOL)
    sims = np.array([0.9, 0.8, 0.7, 0.6, 0.5])
    config = CageConfig(lexical_weight=0.0)
    alone = score_pool(
        BRIDGE, passages, sims, graphs, config.replace(untitled=UntitledConfig(chain_window=0))
    )
    assert ranking(alone.fused).tolist() == [0, 1, 2, 3, 4]
    # Acme Records' text names Nashville, 4th by relevance: its gain -0.71 + 6 + 1.25 (shared
    # entity) beats the 0.71 of passage 1, so it follows Acme Records
    scores = score_pool(BRIDGE, passages, sims, graphs, config)
    assert scores.chain == ()
    assert ranking(scores.fused).tolist() == [0, 3, 1, 2, 4]
    # a window of 3 leaves Nashville out: the chain only reorders the subject core's top 3
    narrow = score_pool(
        BRIDGE, passages, sims, graphs, config.replace(untitled=UntitledConfig(chain_window=3))
    )
    assert ranking(narrow.fused).tolist() == [0, 1, 2, 3, 4]


def test_the_short_chain_puts_both_compared_entities_first(parser):
    passages = [Passage(text) for text in POOL]
    graphs = parser.parse(POOL)
    sims = np.array([0.9, 0.8, 0.7, 0.6, 0.5])
    scores = score_pool(COMPARISON, passages, sims, graphs, CageConfig(lexical_weight=0.0))
    assert ranking(scores.fused)[:2].tolist() == [0, 3]  # Acme Records, then Zenith Books


def test_an_untitled_passage_is_explained_by_the_subject_the_ranking_linked_it_by(parser):
    texts = [
        "Sisters is a drama series starring Sela Ward.",
        "Many television series were filmed in Los Angeles.",
        "Sela Ann Ward is an actress born in Meridian, Mississippi.",
        "Meridian is a city in Mississippi.",
    ]
    query = "Which city was the star of Sisters born in?"
    passages, graphs = [Passage(t) for t in texts], parser.parse(texts)
    scores = score_pool(
        query, passages, np.array([0.9, 0.7, 0.5, 0.4]), graphs, CageConfig(lexical_weight=0.0)
    )
    order = ranking(scores.fused)
    # "Sela Ward" is a short form of the derived subject "Sela Ann Ward": the chain follows it
    assert order.tolist() == [0, 2, 3, 1]
    assert evidence_chain(query, passages, graphs, order, scores.links) == [
        None,
        Via("Sela Ann Ward", 0, "title"),  # a subject the ranking linked by
        Via("Meridian", 1, "title"),
        None,
    ]
    # without the ranking's links only given titles (none here) and shared entities link
    assert evidence_chain(query, passages, graphs, order)[:2] == [None, None]
