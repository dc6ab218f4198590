"""Bridge coherence and the default fusion, on hand-made inputs with exact expectations."""

import math

import numpy as np
import pytest
from graphs import entity_graph

from cage_core import CageConfig, CageReranker, Passage
from cage_core.config import ChainConfig
from cage_core.methods.cage import score_pool
from cage_core.ranking.links import (
    bare_title,
    bridge_coherence,
    pool_links,
    shared_entity_links,
    title_links,
)
from cage_core.scoring import standardize


def test_bare_title_drops_qualifiers():
    assert bare_title("Kiss and Tell (1945 film)") == "kiss and tell"
    assert bare_title("Shirley Temple") == "shirley temple"


def test_title_links_are_whole_word_and_symmetric():
    titles = ["Kiss and Tell (1945 film)", "Shirley Temple", "Temple"]
    texts = [
        "A comedy starring Shirley Temple as Corliss Archer.",
        "An actress, later a diplomat.",
        "Templeton is a town.",
    ]  # "Temple" inside "Templeton" is not a mention
    L = title_links(titles, texts)
    assert L.tolist() == [[0, 1, 1], [1, 0, 0], [1, 0, 0]]


def test_shared_entity_links_use_pool_idf_and_skip_query_entities():
    graphs = [
        entity_graph(
            [("Shirley Temple", "PERSON"), ("Kiss and Tell", "WORK_OF_ART"), ("1945", "DATE")]
        ),
        entity_graph([("Shirley Temple", "PERSON"), ("1945", "DATE")]),
        entity_graph([("Kiss and Tell", "WORK_OF_ART")]),
    ]
    E = shared_entity_links(graphs, query="Who starred in Kiss and Tell?")
    # "shirley temple" is in 2 of 3 passages: ln(1 + 3/2); "kiss and tell" is named by the
    # query; dates are not bridges.
    assert E[0, 1] == E[1, 0] == pytest.approx(math.log(2.5))
    assert E[0, 2] == 0.0 and E[1, 2] == 0.0


def test_bridge_coherence_measures_links_to_the_core():
    L = np.array([[0, 0, 1, 0], [0, 0, 0, 0.5], [1, 0, 0, 0], [0, 0.5, 0, 0]], dtype=float)
    relevance = np.array([3.0, 2.0, 1.0, 0.0])
    coh = bridge_coherence(L, relevance, core_size=2)  # core = passages 0 and 1
    assert coh.tolist() == [1.0, 1.0, 1.0, 0.5]  # core members get the best outside value
    assert bridge_coherence(L, relevance, core_size=4).tolist() == [0.0] * 4  # all core


def test_standardize():
    assert standardize(np.array([1.0, 2.0, 3.0])).tolist() == pytest.approx(
        [-1.2247449, 0.0, 1.2247449]
    )
    assert standardize(np.array([5.0, 5.0])).tolist() == [0.0, 0.0]


def test_default_fusion_formula_by_hand():
    passages = [
        Passage("Sky Harbor is a 1931 film directed by Ann Reeve.", title="Sky Harbor"),
        Passage("Ann Reeve was born in Toronto.", title="Ann Reeve"),
        Passage("The sky is blue.", title="Sky color"),
        Passage("Bananas are yellow.", title="Banana"),
    ]
    graphs = [
        entity_graph([("Ann Reeve", "PERSON")]),
        entity_graph([("Ann Reeve", "PERSON"), ("Toronto", "GPE")]),
        entity_graph([]),
        entity_graph([]),
    ]
    sims = np.array([0.9, 0.2, 0.5, 0.1])
    config = CageConfig(
        lexical_weight=0.0, core_size=1, chain=ChainConfig(length=0)
    )  # the core: top 1
    s = score_pool("Where was the director of Sky Harbor born?", passages, sims, graphs, config)
    relevance = standardize(sims)
    # passage 1 names no title of the core (passage 0) but passage 0 names "Ann Reeve", and
    # both share the entity Ann Reeve (ln(1 + 4/2) = ln 3, weight 0.5)
    link = 1.0 + 0.5 * math.log(3.0)
    assert s.matrix[0, 1] == pytest.approx(link)
    assert s.coherence.tolist() == pytest.approx([link, link, 0.0, 0.0])
    assert s.fused.tolist() == pytest.approx((relevance + 2 * s.coherence) / 3)
    # the bridge passage overtakes the more similar distractor
    assert np.argsort(-s.fused).tolist() == [0, 1, 2, 3]
    assert np.argsort(-sims).tolist() == [0, 2, 1, 3]


def test_bridge_rescue_end_to_end_with_real_parses(nlp):
    r = CageReranker(nlp=nlp, embedder=lambda t: None)
    passages = [
        Passage(
            "Kiss and Tell is a 1945 comedy film starring Shirley Temple as Corliss Archer.",
            title="Kiss and Tell (1945 film)",
        ),
        Passage(
            "Shirley Temple Black was an actress who later served as Chief of Protocol.",
            title="Shirley Temple",
        ),
        Passage("Meet Corliss Archer is a radio sitcom.", title="Meet Corliss Archer"),
        Passage("A Kiss for Corliss is a 1949 film.", title="A Kiss for Corliss"),
        Passage("Bananas are yellow.", title="Banana"),
        Passage("Janet Waldo voiced Corliss Archer on the radio.", title="Janet Waldo"),
        Passage("Kiss Me Kate is a musical.", title="Kiss Me Kate"),
        Passage("The film premiered in New York.", title="Premiere"),
    ]
    sims = [0.67, 0.20, 0.55, 0.57, 0.05, 0.40, 0.35, 0.30]
    out = r.rerank(
        "What government position was held by the woman who portrayed Corliss Archer "
        "in the film Kiss and Tell?",
        passages,
        top_n=5,
        query_similarities=sims,
    )
    # the evidence chain: the most relevant passage, then the bridge passage it names
    # (Shirley Temple) although its cosine is the second lowest, then relevance again
    assert [o.index for o in out[:2]] == [0, 1]
    assert out[2].index == 3


def test_pool_links_named_by_keeps_the_rankings_names_and_refuses_a_wrong_size():
    links = pool_links(
        "q",
        ["", ""],
        ["Ann Reeve sang.", "Ann Reeve was born in Toronto."],
        [entity_graph([]), entity_graph([])],
    )
    named = links.named_by(["Toronto", "Ann Reeve"], np.array([[0.0, 1.0], [0.0, 0.0]]))
    assert (named.link_names, named.name_pairs, named.title_pairs) == (
        ("Toronto", "Ann Reeve"),
        ((0, 1),),
        (),
    )
    with pytest.raises(ValueError, match="named_by needs 2 names"):
        links.named_by(["Toronto"], np.zeros((2, 2)))
