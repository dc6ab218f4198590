"""The path a pool takes: its kind, decided once, and the gate of that kind that fired, as a
typed value (:class:`RankingPath`) whose ``str`` is the display string.

Each kind and each gate on a small pool (hand-made entity graphs, as the link tests use),
with the path the scores record; a gated pool keeps its relevance order. Both framework
wrappers put the path on every result (``cage_path``).
"""

import dataclasses

import numpy as np
import pytest
from graphs import entity_graph

from cage_core import CageConfig, Passage, RankingPath
from cage_core.config import GateConfig
from cage_core.config.kinds import with_settings
from cage_core.methods import Pool, get_method, pool_scores
from cage_core.methods.cage import pool_kind, score_pool
from cage_core.ranking import relevance_gate
from cage_core.ranking.pool_scores import POOL_KINDS, PoolScores
from cage_core.scoring import ranking

PAPER = CageConfig.preset("paper")

SKY = [
    Passage("Sky Harbor is a 1931 film directed by Ann Reeve.", title="Sky Harbor"),
    Passage("Ann Reeve was born in Toronto.", title="Ann Reeve"),
    Passage("The sky is blue.", title="Sky color"),
]
SKY_GRAPHS = [
    entity_graph([("Ann Reeve", "PERSON")], light=True),
    entity_graph([("Ann Reeve", "PERSON"), ("Toronto", "GPE")], light=True),
    entity_graph([], light=True),
]
SKY_QUERY = "Where was the director of Sky Harbor born?"
SKY_SIMS = np.array([0.9, 0.2, 0.5])

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
CURIE_QUERY = "In which country was Marie Curie born?"
CURIE_SIMS = np.array([0.6, 0.3, 0.5, 0.2, 0.1])


def _path(query, passages, sims, graphs, config=None):
    """The scores of the pool and the display string of their path."""
    scores = score_pool(query, passages, np.array(sims), graphs, config or CageConfig())
    assert scores.path == RankingPath(scores.kind, scores.gate)  # no method: score_pool's own
    return scores, str(scores.path)


def test_a_path_is_a_frozen_kind_and_gate_with_a_display_string():
    gated = RankingPath("untitled", "few_subjects", "cage")
    assert (gated.kind, gated.gate, gated.method) == ("untitled", "few_subjects", "cage")
    assert str(gated) == f"{gated}" == "untitled, gated: few_subjects"
    assert str(RankingPath("titled", method="hybrid")) == "titled"
    assert str(RankingPath(method="tegr")) == "tegr"  # not CAGE: no pool kind, its name
    assert str(RankingPath()) == ""
    assert (
        gated == RankingPath("untitled", "few_subjects", "cage") != "untitled, gated: few_subjects"
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        gated.kind = "titled"


def _relevance_order(scores: PoolScores) -> bool:
    return [int(i) for i in ranking(scores.fused)] == [int(i) for i in ranking(scores.relevance)]


def test_pool_kind_follows_the_table_of_the_dispatch():
    untitled = [Passage("Warsaw is in Poland."), Passage("Paris is in France.")]
    documented = [Passage("A.", doc_id="d", position=0), Passage("B.", doc_id="d", position=1)]
    config = CageConfig()
    nochain = config.replace(chain=config.chain.replace(length=0))
    nodocs = config.replace(document=config.document.replace(enabled=False))
    assert pool_kind(SKY, config) == "titled"
    assert pool_kind(untitled, config) == "untitled"
    assert pool_kind(untitled, nochain) == "titled"  # the chain off: the titled kind's core
    assert pool_kind(documented, config) == "document"
    assert pool_kind(documented, nodocs) == "untitled"
    assert pool_kind(documented, CageConfig.preset("paper")) == "paper"  # first in the table
    assert POOL_KINDS == ("paper", "document", "untitled", "titled")


def test_a_titled_pool_whose_passages_name_each_other_takes_the_chain():
    scores, path = _path(SKY_QUERY, SKY, SKY_SIMS, SKY_GRAPHS)
    assert (scores.kind, scores.gate, path) == ("titled", None, "titled")
    assert [step.index for step in scores.chain][:2] == [0, 1]
    assert scores.chain[1].linked_to == 0  # "Ann Reeve", named by the first


def test_the_titled_gate_weak_title_evidence_keeps_the_relevance_order():
    query = "Is the sky blue?"  # names no title; no passage names the others' except one
    unlinked = [SKY[2], Passage("Bananas are yellow.", title="Banana"), SKY[1]]
    graphs = [entity_graph([], light=True), entity_graph([], light=True), SKY_GRAPHS[1]]
    gated = CageConfig(gate=GateConfig(titled=True))
    scores, path = _path(query, unlinked, [0.7, 0.1, 0.4], graphs, gated)
    assert (scores.kind, scores.gate) == ("titled", "weak_title_evidence")
    assert path == "titled, gated: weak_title_evidence"
    assert scores.chain == () and _relevance_order(scores)
    assert _path(query, unlinked, [0.7, 0.1, 0.4], graphs)[1] == "titled"  # the gate off


def test_an_untitled_pool_whose_query_names_a_subject_takes_the_subject_core():
    scores, path = _path(CURIE_QUERY, CURIE, CURIE_SIMS, CURIE_GRAPHS)
    assert (scores.kind, scores.gate, path) == ("untitled", None, "untitled")
    assert scores.coherence.any()


def test_the_untitled_gate_weak_link_evidence_fires_for_a_query_naming_no_subject():
    gated = CageConfig(gate=GateConfig(untitled=True))
    query = "Which city is a capital?"
    scores, path = _path(query, CURIE, CURIE_SIMS, CURIE_GRAPHS, gated)
    assert path == "untitled, gated: weak_link_evidence"
    assert _relevance_order(scores) and not scores.coherence.any()
    assert _path(query, CURIE, CURIE_SIMS, CURIE_GRAPHS)[1] == "untitled"  # the gate off


def test_the_untitled_gate_few_subjects_fires_for_report_chunks_without_their_document():
    acme = ("Acme Foods", "ORG")
    chunks = [
        ("Acme Foods is a food company founded in 1990.", [acme, ("1990", "DATE")]),
        ("In March 2021, the company raised its dividend.", [("March 2021", "DATE")]),
        ("In 2021 revenue grew, Acme Foods said.", [acme, ("2021", "DATE")]),
        ("To cut costs, Acme Foods closed two plants in Ohio.", [acme, ("Ohio", "GPE")]),
        ("The board met four times in 2021.", [("2021", "DATE")]),
        ("In 2019, Acme Foods opened a plant in Ohio.", [acme, ("Ohio", "GPE")]),
    ]
    passages = [Passage(text) for text, _ in chunks]
    graphs = [entity_graph(entities, light=True) for _, entities in chunks]
    sims = [0.3, 0.5, 0.35, 0.2, 0.45, 0.25]
    scores, path = _path("How did Acme Foods change its dividend?", passages, sims, graphs)
    assert (scores.kind, scores.gate) == ("untitled", "few_subjects")
    assert path == "untitled, gated: few_subjects"
    assert _relevance_order(scores) and not scores.coherence.any()


def test_the_untitled_gate_few_named_subjects_fires_for_abstract_chunks():
    texts = [
        "Hypoxia is a feature of solid tumours that drives metastasis.",
        "Metastasis is a multistep process, and hypoxia promotes it in mice.",
        "In tumours, oxygen levels fall as the tumours grow.",
        "Fibrosis is the result of a dysfunctional repair of tissue.",
    ]
    passages = [Passage(t) for t in texts]
    graphs = [entity_graph([], light=True) for _ in texts]
    query = "Do low oxygen levels make tumour cells spread?"
    scores, path = _path(query, passages, [0.3, 0.25, 0.4, 0.1], graphs)
    assert path == "untitled, gated: few_named_subjects"
    assert _relevance_order(scores) and not scores.coherence.any()


def test_every_gate_named_is_a_predicate_of_the_relevance_gate():
    for name in ("weak_title_evidence", "weak_link_evidence", "few_subjects", "few_named_subjects"):
        assert callable(getattr(relevance_gate, name)) and name in relevance_gate.__all__


def test_a_pool_with_document_structure_takes_the_document_view():
    passages = [
        Passage("Acme Foods Ltd. is a food company.", doc_id="acme", position=0),
        Passage("In 2021 the company raised its dividend.", doc_id="acme", position=1),
        Passage("Bolt Motors makes cars.", doc_id="bolt", position=0),
    ]
    acme = ("Acme Foods Ltd.", "ORG")
    graphs = [
        entity_graph([acme], light=True),
        entity_graph([], light=True),
        entity_graph([("Bolt Motors", "ORG")], light=True),
    ]
    scores, path = _path("Acme Foods Ltd. dividend?", passages, [0.5, 0.3, 0.4], graphs)
    assert (scores.kind, scores.gate, path) == ("document", None, "document")
    assert scores.documents is not None and scores.documents.leads == (0,)


def test_a_method_that_is_not_cage_reports_its_name_and_a_cage_variant_its_kind():
    pool = Pool(CURIE_QUERY, CURIE, CURIE_SIMS, CURIE_GRAPHS)
    bm25, hybrid, cage = (pool_scores(get_method(m), pool) for m in ("bm25", "hybrid", "cage"))
    assert (bm25.kind, bm25.gate, bm25.method) == (None, None, "bm25")  # kind: pool kinds only
    assert bm25.path == RankingPath(method="bm25") and str(bm25.path) == "bm25"
    assert hybrid.path == RankingPath("titled", None, "hybrid")  # CAGE, chain off
    assert cage.path == RankingPath("untitled", None, "cage")
    assert [str(s.path) for s in (hybrid, cage)] == ["titled", "untitled"]


@pytest.mark.models  # trains the R-GCN (torch)
def test_the_papers_mode_is_the_paper_kind():
    full = [entity_graph([("Ann Reeve", "PERSON")]), entity_graph([("Ann Reeve", "PERSON")])]
    config = with_settings(
        PAPER, {"encoder.epochs": 1, "encoder.vector_dim": 4}
    )  # the graphs' 4-d vectors
    scores, path = _path(SKY_QUERY, SKY[:2], SKY_SIMS[:2], full, config)
    assert (scores.kind, scores.gate, path) == ("paper", None, "paper")
    assert scores.matrix.shape == (2, 2)


TEXTS = [
    "Marie Curie was a physicist born in Warsaw.",
    "Warsaw is the capital of Poland.",
    "Bananas are a yellow fruit.",
]


@pytest.mark.models  # parses with spaCy
def test_every_langchain_result_carries_the_path():
    pytest.importorskip("langchain_core")
    from langchain_core.documents import Document

    from cage_langchain import CageRerank

    docs = [
        Document(page_content=t, metadata={"retrieval_score": s})
        for t, s in zip(TEXTS, [0.6, 0.5, 0.1])
    ]
    for method in ("cage", "tegr"):
        out = CageRerank(top_n=None, method=method).compress_documents(docs, CURIE_QUERY)
        paths = {d.metadata["cage_path"] for d in out}
        assert len(out) == 3 and len(paths) == 1
        assert paths.pop().split(",")[0] == ("untitled" if method == "cage" else "tegr")
    assert all("cage_path" not in d.metadata for d in docs)  # the caller's documents untouched


@pytest.mark.models  # parses with spaCy
def test_every_llamaindex_result_carries_the_path():
    pytest.importorskip("llama_index.core")
    from llama_index.core.schema import NodeWithScore, TextNode

    from cage_llamaindex import CageRerank

    nodes = [
        NodeWithScore(node=TextNode(text=t, id_=f"n{i}"), score=s)
        for i, (t, s) in enumerate(zip(TEXTS, [0.6, 0.5, 0.1]))
    ]
    out = CageRerank(top_n=None).postprocess_nodes(nodes, query_str=CURIE_QUERY)
    paths = {n.node.metadata["cage_path"] for n in out}
    assert len(out) == 3 and len(paths) == 1 and paths.pop().startswith("untitled")
    assert all("cage_path" in n.node.excluded_llm_metadata_keys for n in out)
