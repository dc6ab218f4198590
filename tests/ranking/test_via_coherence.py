"""A result's via and coherence tell the same truth on every path a pool can take.

The invariant: a passage has a non-zero coherence exactly when it has a via; the coherence is
the strength, in [0, 1], of the link its via names (1 for a title mention or the adjacent
chunk of one document, 0.5 for another chunk of it, ``1 − e^−E`` for shared entities), and
the via points at an earlier rank. Checked on small real pools (hand-made entity graphs, as
the link tests use) of every kind — titled, titled gated, bridge (the chain off: the core of
the most relevant passages), untitled, untitled gated, document, paper — and for methods that
are not CAGE.
"""

import math

import numpy as np
import pytest
from graphs import entity_graph

from cage_core import CageConfig, CageReranker, Passage
from cage_core.config import GateConfig
from cage_core.config.kinds import with_settings
from cage_core.methods.cage import score_pool
from cage_core.passage import LINK_KINDS, Via
from cage_core.ranking.explanation import Explanation, entity_strength, explain_ranking
from cage_core.scoring import ranking

PAPER = CageConfig.preset("paper")

SKY = [
    Passage("Sky Harbor is a 1931 film directed by Ann Reeve.", title="Sky Harbor"),
    Passage("Ann Reeve was born in Toronto.", title="Ann Reeve"),
    Passage("The sky is blue.", title="Sky color"),
    Passage("Toronto is a city in Canada.", title="Toronto"),
]
SKY_GRAPHS = [
    entity_graph([("Ann Reeve", "PERSON")], light=True),
    entity_graph([("Ann Reeve", "PERSON"), ("Toronto", "GPE")], light=True),
    entity_graph([], light=True),
    entity_graph([("Toronto", "GPE"), ("Canada", "GPE")], light=True),
]
CURIE = [
    Passage("Marie Curie was a physicist born in Warsaw. She studied in Paris."),
    Passage("Warsaw is the capital of Poland, on the Vistula."),
    Passage("Pierre Curie was a physicist who married Marie Curie."),
    Passage("The Vistula is the longest river in Poland."),
    Passage("Bananas are a yellow fruit."),
]
CURIE_GRAPHS = [
    entity_graph([("Marie Curie", "PERSON"), ("Warsaw", "GPE"), ("Paris", "GPE")], light=True),
    entity_graph([("Warsaw", "GPE"), ("Poland", "GPE"), ("Vistula", "LOC")], light=True),
    entity_graph([("Pierre Curie", "PERSON"), ("Marie Curie", "PERSON")], light=True),
    entity_graph([("Vistula", "LOC"), ("Poland", "GPE")], light=True),
    entity_graph([], light=True),
]
REPORTS = [
    Passage("Acme Foods Ltd. is a food company founded in 1990.", doc_id="acme", position=0),
    Passage("In March 2021 the company raised its dividend.", doc_id="acme", position=1),
    Passage("Bolt Motors builds cars in Ohio.", doc_id="bolt", position=0),
    Passage("The dividend rose again after that, the company said.", doc_id="acme", position=3),
    Passage("Bananas are a yellow fruit.", doc_id="fruit", position=0),
]
REPORT_GRAPHS = [
    entity_graph([("Acme Foods Ltd.", "ORG"), ("1990", "DATE")], light=True),
    entity_graph([("March 2021", "DATE")], light=True),
    entity_graph([("Bolt Motors", "ORG"), ("Ohio", "GPE")], light=True),
    entity_graph([], light=True),
    entity_graph([], light=True),
]
CHAIN_OFF = CageConfig().replace(chain=CageConfig().chain.replace(length=0))
GATED = CageConfig(gate=GateConfig(titled=True, untitled=True))

POOLS = {  # name: (query, passages, similarities, graphs, config, the path it takes)
    "titled": (
        "Where was the director of Sky Harbor born?",
        SKY,
        [0.9, 0.2, 0.5, 0.3],
        SKY_GRAPHS,
        CageConfig(),
        "titled",
    ),
    "titled gated": (  # no passage names another's title; two share an entity
        "Is the sky blue?",
        [
            SKY[2],
            Passage("Bananas are yellow.", title="Banana"),
            SKY[1],
            Passage("Maple Leaf Gardens is an arena.", title="Maple Leaf Gardens"),
        ],
        [0.7, 0.1, 0.4, 0.3],
        [SKY_GRAPHS[2], entity_graph([], light=True), SKY_GRAPHS[1], SKY_GRAPHS[3]],
        GATED,
        "titled, gated: weak_title_evidence",
    ),
    "bridge": (
        "Where was the director of Sky Harbor born?",
        SKY,
        [0.9, 0.2, 0.5, 0.3],
        SKY_GRAPHS,
        CHAIN_OFF,
        "titled",
    ),
    "untitled": (
        "In which country was Marie Curie born?",
        CURIE,
        [0.6, 0.3, 0.5, 0.2, 0.1],
        CURIE_GRAPHS,
        CageConfig(),
        "untitled",
    ),
    "untitled gated": (
        "Which city is a capital?",
        CURIE,
        [0.6, 0.3, 0.5, 0.2, 0.1],
        CURIE_GRAPHS,
        GATED,
        "untitled, gated: weak_link_evidence",
    ),
    "document": (
        "Did Acme Foods Ltd. raise its dividend?",
        REPORTS,
        [0.5, 0.45, 0.6, 0.3, 0.1],
        REPORT_GRAPHS,
        CageConfig(),
        "document",
    ),
}


def _holds(ranked) -> None:
    """The invariant of the module docstring, on one result."""
    for r in ranked:
        assert (r.coherence != 0) == (r.via is not None), r
        assert 0.0 <= r.coherence <= 1.0
        if r.via is not None:
            assert r.via.kind in LINK_KINDS and 0 <= r.via.rank < r.rank


@pytest.mark.parametrize("name", list(POOLS))
def test_a_passage_has_a_coherence_exactly_when_it_has_a_via_on_every_path(name):
    query, passages, sims, graphs, config, path = POOLS[name]
    ranked = CageReranker(config).rerank(query, passages, query_similarities=sims, graphs=graphs)
    assert {str(r.path) for r in ranked} == {path}
    assert {(r.path.kind, r.path.method) for r in ranked} == {(path.split(",")[0], "cage")}
    _holds(ranked)
    assert any(r.via is not None for r in ranked)  # every pool here has a link to explain


@pytest.mark.parametrize("method", ["grapher", "tegr", "hybrid", "cage-contra"])
def test_methods_that_are_not_cage_keep_the_same_invariant(method):
    query, passages, sims, graphs, _, _ = POOLS["untitled"]
    reranker = CageReranker(method=method)
    _holds(reranker.rerank(query, passages, query_similarities=sims, graphs=graphs))


def test_the_fusions_own_coherence_is_not_what_a_result_reports():
    """With the chain off, every core passage gets the fusion coherence of the best link
    outside the core (:func:`~cage_core.ranking.links.coherence_to_core`), linked or not:
    "The sky is blue." links to nothing, yet its fusion coherence is 1.55."""
    query, passages, sims, graphs, config, _ = POOLS["bridge"]
    scores = score_pool(query, passages, np.array(sims), graphs, config)
    assert ranking(scores.fused).tolist() == [0, 2, 1, 3]
    assert scores.coherence[[0, 2]] == pytest.approx([1.549, 1.549], abs=1e-3)
    ranked = CageReranker(config).rerank(query, passages, query_similarities=sims, graphs=graphs)
    assert [(r.index, r.via, r.coherence) for r in ranked] == [
        (0, None, 0.0),
        (2, None, 0.0),  # the sky: no link to anything
        (1, Via("Ann Reeve", 0, "title"), 1.0),
        (3, Via("Toronto", 2, "title"), 1.0),
    ]


def test_coherence_is_the_strength_of_the_link_the_via_names():
    passages = [Passage(t) for t in ("a", "b", "c", "d")]
    graphs = [
        entity_graph([("ACME Corp", "ORG"), ("Paris", "GPE")], light=True),
        entity_graph([("Acme Corp", "ORG"), ("Paris", "GPE")], light=True),
        entity_graph([("Paris", "GPE")], light=True),
        entity_graph([("London", "GPE")], light=True),
    ]
    scores = score_pool("Where?", passages, np.array([0.4, 0.3, 0.2, 0.1]), graphs, CageConfig())
    explained = explain_ranking("Where?", passages, scores, [0, 1, 2, 3])
    # pool-IDF ln(1 + k/df): Acme Corp in 2 of 4 passages ln 3, Paris in 3 of 4 ln(7/3)
    assert [e.via for e in explained] == [
        None,
        Via("Acme Corp", 0, "entity"),
        Via("Paris", 0, "entity"),
        None,
    ]
    coherence = [e.coherence for e in explained]
    assert coherence == pytest.approx([0.0, 1 - 1 / 7, 1 - 3 / 7, 0.0])  # 1 − e^−E
    assert entity_strength(math.log(3)) == pytest.approx(2 / 3)
    cut = explain_ranking("Where?", passages, scores, [0, 1, 2, 3], ranks=2)
    assert cut[2:] == [Explanation(None, 0.0)] * 2  # ranks not explained get neither
    sky = POOLS["titled"]
    scores = score_pool(sky[0], SKY, np.array(sky[2]), SKY_GRAPHS, CageConfig())
    assert explain_ranking(sky[0], SKY, scores, [0, 1])[1] == Explanation(
        Via("Ann Reeve", 0, "title"),
        1.0,  # Sky Harbor's text names Ann Reeve's title
    )


def test_a_chunk_lifted_above_the_chunk_that_lifted_it_is_explained_at_that_chunk():
    """Chunk 1 of a document is lifted (+ adjacent_weight) by chunk 0, an anchor, past it: the
    fusion's coherence of chunk 1 is 1.5, but no earlier passage links it; chunk 0, ranked
    after it, reports the document link back to it."""
    passages = [
        Passage("Northwind Traders is a retail company.", doc_id="nw", position=0),
        Passage("The company paid a dividend.", doc_id="nw", position=1),
        Passage("Contoso builds ships.", doc_id="co", position=0),
        Passage("Bananas are a yellow fruit.", doc_id="fr", position=0),
    ]
    graphs = [entity_graph([], light=True) for _ in passages]
    sims = [0.9, 0.5, 0.85, 0.1]
    query = "xyzzy?"  # names no document and shares no word: relevance is the similarity
    scores = score_pool(query, passages, np.array(sims), graphs, CageConfig())
    assert scores.coherence.tolist() == [0.0, 1.5, 0.0, 0.0]
    ranked = CageReranker().rerank(query, passages, query_similarities=sims, graphs=graphs)
    assert [(r.index, r.via, r.coherence) for r in ranked] == [
        (1, None, 0.0),
        (0, Via("same document: Northwind Traders, previous chunk", 0, "document"), 1.0),
        (2, None, 0.0),
        (3, None, 0.0),
    ]


@pytest.mark.models  # trains the R-GCN (torch)
def test_the_papers_path_keeps_the_invariant_though_its_fusion_coherence_is_a_cosine():
    full = [entity_graph([("Ann Reeve", "PERSON")]), entity_graph([("Ann Reeve", "PERSON")])]
    config = with_settings(
        PAPER, {"encoder.epochs": 1, "encoder.vector_dim": 4}
    )  # the graphs' 4-d vectors
    query, sims = "Where was the director of Sky Harbor born?", [0.9, 0.2]
    scores = score_pool(query, SKY[:2], np.array(sims), full, config)
    assert scores.kind == "paper"
    ranked = CageReranker(config).rerank(query, SKY[:2], query_similarities=sims, graphs=full)
    _holds(ranked)
    assert ranked[1].via == Via("Ann Reeve", 0, "title") and ranked[1].coherence == 1.0
