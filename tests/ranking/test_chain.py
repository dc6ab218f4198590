"""Evidence-chain selection (cage_core.ranking.chain): exact picks on hand-made pools."""

import numpy as np
import pytest
from graphs import entity_graph

from cage_core import CageConfig, Passage
from cage_core.config import ChainConfig
from cage_core.methods.cage import score_pool
from cage_core.ranking.chain import ChainLinks, ChainStep, select_chain
from cage_core.ranking.lift import chain_first
from cage_core.ranking.links import title_mentions, titles_named_in


def _links(k, mentions=(), entities=(), named=()):
    m = np.zeros((k, k))
    for s, j in mentions:
        m[s, j] = 1.0
    e = np.zeros((k, k))
    for a, b, w in entities:
        e[a, b] = e[b, a] = w
    q = np.zeros(k)
    q[list(named)] = 1.0
    return ChainLinks(m, e, q)


def test_the_passage_a_selected_one_names_follows_it_despite_low_relevance():
    relevance = np.array([2.0, 1.5, 1.4, -1.0])
    chain = select_chain(relevance, _links(4, mentions=[(0, 3)]), ChainConfig(length=3))
    # gain of 3 after picking 0: -1 + 6 = 5 > 1.5
    assert chain == (ChainStep(0, None), ChainStep(3, 0), ChainStep(1, None))


def test_both_titles_the_query_names_are_selected_before_a_more_relevant_passage():
    relevance = np.array([2.0, 1.0, 0.8])
    chain = select_chain(relevance, _links(3, named=[1, 2]), ChainConfig(length=3))
    # gains with the query-title bonus 1.5: [2.0, 2.5, 2.3]
    assert [s.index for s in chain] == [1, 2, 0]


def test_shared_entities_count_up_to_the_cap():
    relevance = np.array([2.0, 0.0, 0.5])
    config = ChainConfig(length=2, entity_weight=0.5, entity_cap=2.0)
    # passage 1 shares weight 30 with passage 0 but counts 0.5 * 2 = 1 < passage 2's 0.5 + 0.6
    chain = select_chain(relevance, _links(3, entities=[(0, 1, 30.0), (0, 2, 1.2)]), config)
    assert chain == (ChainStep(0, None), ChainStep(2, 0))


def test_a_chain_config_has_no_setting_that_only_runs_off():
    with pytest.raises(TypeError, match="redundancy_overlap"):  # not chosen by CV, removed in 0.4
        ChainConfig(redundancy_overlap=0.6)


def test_ties_go_to_the_earlier_position_and_length_is_bounded_by_the_pool():
    chain = select_chain(np.zeros(2), _links(2), ChainConfig(length=5))
    assert chain == (ChainStep(0, None), ChainStep(1, None))
    assert select_chain(np.zeros(3), _links(3), ChainConfig(length=0)) == ()


def test_title_mentions_are_directed_and_query_titles_are_whole_words():
    titles = ["Kiss and Tell (1945 film)", "Shirley Temple", "Temple"]
    texts = [
        "Kiss and Tell stars Shirley Temple.",
        "Shirley Temple was Chief of Protocol.",
        "A temple.",
    ]
    m = title_mentions(titles, texts)
    assert m.tolist() == [[0, 1, 1], [0, 0, 1], [0, 0, 0]]
    assert titles_named_in("Who starred in Kiss and Tell?", titles).tolist() == [1, 0, 0]
    assert titles_named_in("Kiss and Telling", titles).tolist() == [0, 0, 0]


def test_chain_first_ranks_the_chain_in_order_then_the_rest_by_score():
    fused = np.array([0.1, 0.9, 0.5, 0.7])
    lifted = chain_first(fused, (ChainStep(2, None), ChainStep(0, 2)))
    assert lifted.tolist() == [0.9 + 1, 0.9, 0.9 + 2, 0.7]
    assert np.argsort(-lifted, kind="stable").tolist() == [2, 0, 1, 3]


def test_default_ranking_puts_the_bridge_passage_second():
    passages = [
        Passage("Sky Harbor is a 1931 film directed by Ann Reeve.", title="Sky Harbor"),
        Passage("Ann Reeve was born in Toronto.", title="Ann Reeve"),
        Passage("The sky is blue over the harbor.", title="Sky color"),
        Passage("Bananas are yellow.", title="Banana"),
    ]
    graphs = [
        entity_graph(["Ann Reeve"]),
        entity_graph(["Ann Reeve", "Toronto"]),
        entity_graph([]),
        entity_graph([]),
    ]
    s = score_pool(
        "Where was the director of Sky Harbor born?",
        passages,
        np.array([0.9, 0.2, 0.5, 0.1]),
        graphs,
        CageConfig(lexical_weight=0.0),
    )
    assert [step.index for step in s.chain] == [0, 1, 2]
    assert s.chain[1].linked_to == 0
    assert np.argsort(-s.fused, kind="stable").tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("length", -1, "length must be in"),
        ("title_weight", float("nan"), "title_weight must be in"),
        ("entity_cap", -0.5, "entity_cap must be in"),
    ],
)
def test_invalid_chain_settings_are_refused(field, value, message):
    with pytest.raises(ValueError, match=message):
        ChainConfig(**{field: value})
    with pytest.raises(TypeError, match="chain must be a ChainConfig"):
        CageConfig(chain={"length": 2})


def test_a_pool_without_titles_gets_no_chain_but_links_by_derived_subjects():
    passages = [
        Passage("Sky Harbor is a 1931 film directed by Ann Reeve."),
        Passage("Ann Reeve was a director born in Toronto."),
        Passage("The harbor of the sky is blue."),
        Passage("Bananas are yellow."),
    ]
    graphs = [entity_graph([]), entity_graph([]), entity_graph([]), entity_graph([])]
    sims = np.array([0.9, 0.1, 0.5, 0.3])
    s = score_pool(
        "Where was the director of Sky Harbor born?",
        passages,
        sims,
        graphs,
        CageConfig(lexical_weight=0.0),
    )
    assert s.chain == ()
    # "Ann Reeve", the first-sentence subject of passage 1, is named by passage 0: a directed
    # link, forward from 0 to 1 (2.0), backward from 1 to 0 (1.0; cage_core.ranking.untitled_core)
    assert s.matrix[1, 0] == 2.0 and s.matrix[0, 1] == 1.0


def test_the_chain_takes_title_hops_from_given_titles_only():
    passages = [
        Passage("Sky Harbor is a 1931 film directed by Ann Reeve.", title="Sky Harbor"),
        Passage("Ann Reeve was a director born in Toronto."),
        Passage("The harbor of the sky is blue.", title="Sky color"),
        Passage("Bananas are yellow.", title="Banana"),
    ]
    graphs = [entity_graph([]), entity_graph([]), entity_graph([]), entity_graph([])]
    s = score_pool(
        "Where was the director of Sky Harbor born?",
        passages,
        np.array([0.9, 0.1, 0.5, 0.3]),
        graphs,
        CageConfig(lexical_weight=0.0, chain=ChainConfig(length=2)),
    )
    assert s.matrix[0, 1] == 1.0  # the derived subject "Ann Reeve" links passage 1 to 0 ...
    assert [step.index for step in s.chain] == [0, 2]  # ... but gives it no title hop in the chain
