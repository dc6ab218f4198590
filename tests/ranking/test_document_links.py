"""Document links (cage_core.ranking.document_links, link_names, the sibling expansion): exact
expectations."""

import numpy as np
import pytest

from cage_core import CageConfig, CageReranker, Passage
from cage_core.expansion.index import LinkEntry, LinkIndex
from cage_core.methods.cage import score_pool
from cage_core.names.may_link import may_link as is_link_name
from cage_core.passage import Via
from cage_core.ranking.document_links import (
    SIBLING_LINK,
    DocumentConfig,
    document_links,
    document_matrix,
    document_names,
    document_relevance,
    document_subjects,
    document_vias,
    document_view,
    has_document_structure,
    shown_names,
    subject_texts,
)
from cage_core.ranking.pool_bm25 import pool_bm25
from cage_core.scoring import ranking, standardize
from tests.graphs import entity_graph

ACME, BOLT = ("Acme Foods Ltd.", "ORG"), ("Bolt Motors", "ORG")


def report_pool():
    """Two reports; chunks after the first say "the company"; doc "a" is Acme's, "b" Bolt's."""
    passages = [
        Passage("Bolt Motors raised its dividend in March 2021.", doc_id="b", position=0),
        Passage("In March 2021 the company raised its dividend.", doc_id="a", position=2),
        Passage("Acme Foods Ltd. is a food company founded in 1990.", doc_id="a", position=0),
        Passage("The dividend rose again after that, the company said.", doc_id="a", position=3),
        Passage("Bolt Motors builds cars.", doc_id="b", position=1),
    ]
    graphs = [
        entity_graph([BOLT, ("March 2021", "DATE")], light=True),
        entity_graph([("March 2021", "DATE")], light=True),
        entity_graph([ACME, ("1990", "DATE")], light=True),
        entity_graph([], light=True),
        entity_graph([BOLT], light=True),
    ]
    return passages, graphs


@pytest.mark.parametrize(
    "name",
    [
        "$",
        "str | None",
        "= Annotated[str, Depends(get_username",
        "<div>",
        "40%",
        "To",
        "through",
        "A",
        "1990",
    ],
)
def test_code_markup_amounts_numbers_and_generic_words_are_no_link_names(name):
    assert not is_link_name(name)


@pytest.mark.parametrize(
    "name", ["Acme Foods Ltd.", "3M", "U2", "Kiss and Tell (1945 film)", "FastAPI"]
)
def test_names_are_link_names(name):
    assert is_link_name(name)


def test_a_pool_has_document_structure_only_when_two_passages_share_a_document():
    assert not has_document_structure([Passage("x"), Passage("y")])
    assert not has_document_structure([Passage("x", doc_id="a"), Passage("y", doc_id="b")])
    assert has_document_structure(
        [Passage("x", doc_id="a"), Passage("y"), Passage("z", doc_id="a")]
    )


def test_a_document_subject_is_its_title_else_what_its_first_chunk_is_about_else_its_most_named_name():  # noqa: E501
    passages, graphs = report_pool()
    assert document_subjects(passages, graphs) == {"b": "Bolt Motors", "a": "Acme Foods Ltd"}
    assert document_names(passages, graphs)["a"] == ("Acme Foods Ltd", "Acme Foods Ltd.")
    without_first = [passages[1], passages[3], passages[4]]
    assert document_subjects(
        without_first, [graphs[1], entity_graph([ACME], light=True), graphs[4]]
    ) == {"a": "Acme Foods Ltd.", "b": "Bolt Motors"}
    titled = [Passage("x", title="Annual report", doc_id="a"), Passage("y", doc_id="a")]
    assert document_subjects(titled, [entity_graph([ACME], light=True)] * 2) == {
        "a": "Annual report"
    }


def test_a_document_is_named_by_the_title_its_first_chunk_writes_as_its_record_is():
    first = Passage(
        "# Thread Safety\n\nAcme Foods Ltd. is not thread safe.", doc_id="t", position=0
    )
    later = Passage("Switching ABIs is not safe either.", doc_id="t", position=1)
    graphs = [entity_graph([ACME], light=True), entity_graph([], light=True)]
    assert document_names([first, later], graphs)["t"] == ("Thread Safety", "Acme Foods Ltd.")
    untitled = Passage("Acme Foods Ltd. is not thread safe.", doc_id="t", position=0)
    assert document_names([untitled, later], graphs)["t"][0] == "Acme Foods Ltd"


def test_adjacent_chunks_of_one_document_are_linked_more_strongly_than_other_siblings():
    passages, _ = report_pool()
    m = document_matrix(passages)
    assert m[1, 3] == m[3, 1] == 1.0  # positions 2 and 3 of "a"
    assert m[1, 2] == 0.5 and m[0, 4] == 1.0 and m[0, 1] == 0.0 and np.all(np.diag(m) == 0)


def test_the_chunks_of_the_document_the_query_names_rise_and_its_best_chunk_leads():
    passages, graphs = report_pool()
    relevance = np.array([2.0, 1.9, 0.0, -0.5, -1.0])  # Bolt's chunk is the most similar
    view = document_view(
        "Did Acme Foods Ltd. raise its dividend in March 2021?",
        passages,
        graphs,
        relevance,
        DocumentConfig(document_weight=2.0, adjacent_weight=2.5, anchors=0),
    )
    assert view.named.tolist() == [0, 1, 1, 1, 0]
    assert view.leads == (1,)  # the best chunk of Acme's report, though it never names Acme
    assert view.relevance.tolist() == [2.0, 3.9, 2.0, 1.5, -1.0]
    assert view.fused.tolist() == [2.0, 3.9, 2.0, 2.0, -1.0]  # chunk 3 is adjacent to the lead
    assert ranking(view.fused).tolist()[:2] == [1, 0]
    assert view.subjects == (
        "Bolt Motors",
        "Acme Foods Ltd",
        "Acme Foods Ltd",
        "Acme Foods Ltd",
        "Bolt Motors",
    )


def test_a_chunk_of_a_named_document_counts_its_document_once_by_its_stronger_link():
    passages, graphs = report_pool()
    relevance = np.array([2.0, 1.9, 0.0, -0.5, -1.0])
    view = document_view(
        "Did Acme Foods Ltd. raise its dividend in March 2021?",
        passages,
        graphs,
        relevance,
        DocumentConfig(document_weight=2.0, adjacent_weight=0.5, anchors=0),
    )
    # chunk 3 is named (+2.0) and adjacent to the lead (+0.5): it gains max(2.0, 0.5), not both
    assert view.fused.tolist() == [2.0, 3.9, 2.0, 1.5, -1.0]
    assert (view.fused - view.relevance).tolist() == [0.0] * 5


def test_a_comparison_anchors_the_evidence_around_the_best_chunk_of_each_document_it_names():
    passages, graphs = report_pool()
    relevance = np.array([0.0, 1.0, 0.9, 0.8, -1.0])
    view = document_view(
        "Compare the dividends of Acme Foods Ltd. and Bolt Motors.",
        passages,
        graphs,
        relevance,
        DocumentConfig(document_weight=0.0, adjacent_weight=1.0, anchors=0),
    )
    assert view.leads == (1, 0)  # Acme's best chunk, then Bolt's
    assert view.fused.tolist() == [0.0, 1.0, 0.9, 1.8, 0.0]  # each lead's next chunk rises


def test_without_document_structure_the_view_is_inert_and_the_ranking_is_unchanged():
    passages, graphs = report_pool()
    flat = [Passage(p.text) for p in passages]
    config = CageConfig()
    assert document_view("Acme Foods Ltd.?", flat, graphs, np.zeros(5), config.document) is None
    off = config.replace(document=config.document.replace(enabled=False))
    sims = np.array([0.5, 0.4, 0.3, 0.2, 0.1])
    a = score_pool("Acme Foods Ltd. dividend?", flat, sims, graphs, config)
    b = score_pool("Acme Foods Ltd. dividend?", flat, sims, graphs, off)
    assert a.documents is None and a.fused.tolist() == b.fused.tolist()


def test_score_pool_ranks_a_pool_with_documents_by_the_view_over_its_relevance():
    passages, graphs = report_pool()
    sims = np.array([0.9, 0.8, 0.3, 0.2, 0.1])
    query = "Did Acme Foods Ltd. raise its dividend in March 2021?"
    config = CageConfig()
    w = config.document.lexical_weight  # the view's BM25 weight
    hybrid = standardize(sims) + w * standardize(_bm25(query, passages, graphs))
    scores = score_pool(query, passages, sims, graphs, config)
    view = document_view(query, passages, graphs, hybrid, config.document)
    assert scores.documents is not None and np.allclose(scores.fused, view.fused)
    assert np.allclose(scores.relevance, hybrid + config.document.document_weight * view.named)
    assert ranking(scores.fused)[0] == 1


def _bm25(query, passages, graphs):
    """BM25 over the texts that inherit their document's subject (the view's)."""
    return pool_bm25(query, subject_texts(passages, document_names(passages, graphs)))


def test_a_via_names_the_document_link_adjacent_chunk_first():
    passages, _ = report_pool()
    order = [1, 0, 2, 3, 4]  # a#2, b#0, a#0, a#3, b#1
    subjects = ["Bolt Motors", "Acme", "Acme", "Acme", "Bolt Motors"]
    vias = document_vias(passages, order, [None, None, Via("dividend", 0), None, None], subjects)
    assert vias == [
        None,
        None,
        Via("same document: Acme", 0, "document"),  # a#0: a#2 is no neighbour; not the entity
        Via("same document: Acme, next chunk", 0, "document"),  # a#3 follows a#2
        Via("same document: Bolt Motors, next chunk", 1, "document"),
    ]
    strengths = [None if x is None else x[1] for x in document_links(passages, order, subjects)]
    assert strengths == [None, None, SIBLING_LINK, 1.0, 1.0]
    assert document_links(passages, [3, 1], subjects)[1] == (
        Via("same document: Acme, previous chunk", 0, "document"),  # a#2 comes before a#3
        1.0,
    )
    unnamed = document_links(passages, [0, 4], [""] * 5)[1]
    assert unnamed == (Via("same document: b, next chunk", 0, "document"), 1.0)  # the doc_id


def test_a_document_without_a_subject_is_named_by_its_path_not_as_a_path():
    path = "sklearn/datasets/descr/twenty_newsgroups.rst"
    chunks = [Passage("The 20 newsgroups dataset.", doc_id=path, position=p) for p in (0, 1)]
    assert document_links(chunks, [0, 1], ["", ""])[1] == (
        Via("same document: twenty newsgroups, next chunk", 0, "document"),
        1.0,
    )


def test_a_via_names_a_document_by_its_file_before_a_name_its_chunks_repeat():
    software = ("Software", "ORG")  # a licence comment's word, in every chunk of the page
    chunks = [
        Passage("The Software is provided as is.", doc_id="html/Type-Example.html", position=3),
        Passage("Copies of the Software may be made.", doc_id="html/Type-Example.html", position=4),
        Passage("Intro.", doc_id="notes", position=1),
    ]
    graphs = [entity_graph([software], light=True)] * 2 + [entity_graph([ACME], light=True)]
    names_of = document_names(chunks, graphs)
    assert names_of["html/Type-Example.html"] == ("Software",)  # the subject the ranking reads

    shown = shown_names(chunks, names_of)
    assert shown == ("Type Example", "Type Example", "Acme Foods Ltd.")  # "notes" names no file


def test_a_via_names_a_document_by_its_title_or_opening_before_its_file():
    passages, graphs = report_pool()
    names_of = document_names(passages, graphs)
    assert shown_names(passages, names_of) == (
        "Bolt Motors",  # b's first chunk opens with it
        "Acme Foods Ltd",  # a's first chunk is in the pool
        "Acme Foods Ltd",
        "Acme Foods Ltd",
        "Bolt Motors",
    )
    titled = [Passage("x", title="Annual report", doc_id="a.md"), Passage("y", doc_id="a.md")]
    names = document_names(titled, [entity_graph([ACME], light=True)] * 2)
    assert shown_names(titled, names) == ("Annual report", "Annual report")


def test_rerank_explains_a_chunk_by_its_document_and_place_with_the_links_strength():
    passages, graphs = report_pool()
    ranked = CageReranker().rerank(
        "Did Acme Foods Ltd. raise its dividend in March 2021?",
        passages,
        query_similarities=[0.9, 0.8, 0.3, 0.2, 0.1],
        graphs=graphs,
    )
    assert [(r.index, r.via, r.coherence) for r in ranked] == [
        (1, None, 0.0),  # the lead of the named document
        (0, None, 0.0),
        (3, Via("same document: Acme Foods Ltd, next chunk", 0, "document"), 1.0),
        (2, Via("same document: Acme Foods Ltd", 0, "document"), SIBLING_LINK),
        (4, Via("same document: Bolt Motors, next chunk", 1, "document"), 1.0),
    ]


def test_a_seeds_neighbours_in_its_document_are_expansion_candidates_and_no_other_chunk():
    index = LinkIndex()
    for pid, pos in (("a0", 0), ("a1", 1), ("a2", 2), ("a3", 3)):
        index.add_entry(LinkEntry(pid, "", (), (), "a", pos))
    index.add_entry(LinkEntry("b0", "", (), (), "b", 0))
    index.add_entry(LinkEntry("u", "", (), (), "a", None))  # position unknown: no neighbour
    assert index.chunks_of("a") == ["a0", "a1", "a2", "a3", "u"] and index.chunks_of("zz") == []
    found = index.expand("q", ["a1"], seeds=1, limit=8)
    assert [(e.id, e.kind, e.via, e.weight) for e in found] == [
        ("a0", "document", "a", 1.0),
        ("a2", "document", "a", 1.0),
    ]
    assert index.expand("q", ["b0"], seeds=1) == [] and index.expand("q", ["u"], seeds=1) == []


def test_link_entries_keep_doc_id_and_position_through_the_stored_form():
    index = LinkIndex()
    index.add(
        "c1", Passage("The company grew.", doc_id="r", position=1), entity_graph([], light=True)
    )
    lines = list(index.to_lines())
    assert '"doc_id":"r","position":1' in lines[1]
    loaded = LinkIndex.from_lines(lines)
    assert loaded.entry("c1").doc_id == "r" and loaded.entry("c1").position == 1
    assert loaded.chunks_of("r") == ["c1"]


def test_passage_doc_fields_are_validated():
    with pytest.raises(TypeError):
        Passage("x", doc_id=3)
    with pytest.raises(TypeError):
        Passage("x", position=True)
    with pytest.raises(ValueError):
        Passage("x", position=-1)
    with pytest.raises(TypeError):
        Passage("x", document_name=None)  # type: ignore[arg-type]
    assert Passage("x", doc_id="d", position=0, document_name="Doc").content == "x"  # not read


@pytest.mark.models
def test_with_real_spacy_the_same_document_link_ranks_the_named_companys_chunk_first(nlp):
    """Two reports split into chunks; the answering chunk says "the company" and is less similar
    to the question than the other report's chunk; its document (named by the question through
    its first chunk) lifts it."""
    texts = [
        ("a", 0, "Northwind Traders is a retail company founded in Seattle in 1998."),
        ("a", 1, "In March 2021, the company paid a dividend of $4 million to its shareholders."),
        ("b", 0, "Contoso Pharmaceuticals is a drug maker based in Boston."),
        ("b", 1, "In March 2021, Contoso Pharmaceuticals paid a dividend of $6 million."),
    ]
    passages = [Passage(t, doc_id=d, position=n) for d, n, t in texts]
    query = "What dividend did Northwind Traders pay in March 2021?"
    sims = [0.30, 0.55, 0.10, 0.60]  # the other company's chunk is the most similar
    rerank = CageReranker(nlp=nlp)
    ranked = rerank.rerank(query, passages, query_similarities=sims)
    flat = rerank.rerank(query, [Passage(t) for _, _, t in texts], query_similarities=sims)
    assert flat[0].index == 3  # without document structure: the other report's chunk first
    assert ranked[0].index == 1  # with it: the chunk that answers, above the one naming Northwind
    assert {r.index: r.via for r in ranked}[0] == Via(
        "same document: Northwind Traders, previous chunk", 0, "document"
    )


def test_the_gate_keeps_the_relevance_order_of_an_untitled_pool_whose_query_names_no_subject():
    from cage_core.ranking.relevance_gate import GateConfig, weak_link_evidence

    assert weak_link_evidence(np.zeros(3), GateConfig(untitled=True))
    assert not weak_link_evidence(np.array([0.0, 1.0, 0.0]), GateConfig(untitled=True))
    assert not weak_link_evidence(np.zeros(3), GateConfig(titled=True))
    passages = [
        Passage("Vitamin D levels fell in the cohort."),
        Passage("Bolt Motors is a car maker. It works with Acme Foods Ltd."),
        Passage("Acme Foods Ltd. is a food company. It buys from Bolt Motors."),
    ]
    graphs = [
        entity_graph([], light=True),
        entity_graph([BOLT, ACME], light=True),
        entity_graph([ACME, BOLT], light=True),
    ]
    sims = np.array([0.5, 0.45, 0.1])
    gated = CageConfig(gate=GateConfig(untitled=True))
    scores = score_pool("Do blood levels fall with age?", passages, sims, graphs, gated)
    assert np.allclose(scores.fused, scores.relevance) and not scores.coherence.any()
    ungated = score_pool("Do blood levels fall with age?", passages, sims, graphs, CageConfig())
    assert not np.allclose(ungated.fused, ungated.relevance)  # without the gate: the short chain


def test_the_gate_keeps_the_relevance_order_of_an_untitled_pool_with_few_confident_subjects():
    """Report chunks without their document ids: one opens by naming its company, the others
    say "the company"; with fewer than a fifth of the passages having a subject, the short
    chain would lift the company's opening on its name alone, and the gate keeps the order."""
    from cage_core.ranking.relevance_gate import GateConfig, few_subjects

    assert few_subjects(["Acme Foods", "", "", "", "", ""], GateConfig(min_subject_share=0.2))
    assert not few_subjects(["Acme Foods", "", "", "", ""], GateConfig(min_subject_share=0.2))
    assert not few_subjects(["", ""], GateConfig(min_subject_share=0.0))
    assert not few_subjects([], GateConfig(min_subject_share=0.2))
    acme = ("Acme Foods", "ORG")
    chunks = [
        ("Acme Foods is a food company founded in 1990.", [acme, ("1990", "DATE")]),
        (
            "In March 2021, the company raised its dividend by ten percent.",
            [("March 2021", "DATE")],
        ),
        ("In 2021 revenue grew, Acme Foods said.", [acme, ("2021", "DATE")]),
        ("To cut costs, Acme Foods closed two plants in Ohio.", [acme, ("Ohio", "GPE")]),
        ("The board met four times in 2021.", [("2021", "DATE")]),
        ("In 2019, Acme Foods opened a plant in Ohio.", [acme, ("Ohio", "GPE"), ("2019", "DATE")]),
    ]
    passages = [Passage(text) for text, _ in chunks]
    graphs = [entity_graph(entities, light=True) for _, entities in chunks]
    sims = np.array([0.3, 0.5, 0.35, 0.2, 0.45, 0.25])
    query = "How did Acme Foods change its dividend in 2021?"
    off = score_pool(
        query, passages, sims, graphs, CageConfig(gate=GateConfig(min_subject_share=0.0))
    )
    assert [int(i) for i in ranking(off.fused)] == [1, 0, 4, 2, 5, 3]  # the opening lifted
    gated = score_pool(
        query, passages, sims, graphs, CageConfig(gate=GateConfig(min_subject_share=0.2))
    )
    # the relevance order itself (hybrid): the opening gains nothing for naming the query's
    # company either (before, the gate kept that +1 and ranked it third: [1, 4, 0, 2, 5, 3])
    hybrid = standardize(sims) + 0.5 * standardize(pool_bm25(query, [p.text for p in passages]))
    assert [int(i) for i in ranking(gated.fused)] == [int(i) for i in ranking(hybrid)]
    assert [int(i) for i in ranking(gated.fused)] == [1, 4, 2, 0, 5, 3]
    assert np.allclose(gated.fused, hybrid) and np.allclose(gated.relevance, hybrid)
    assert not gated.coherence.any()


def test_subjects_are_names_when_the_parser_tags_them_or_the_query_names_them():
    from cage_core.ranking.relevance_gate import subjects_are_names

    light = lambda *entities: entity_graph(list(entities), light=True)  # noqa: E731
    tech = ("Georgia Tech", "ORG")
    # 2 of 3 names: an entity, and an entity inside the subject's words; "" is no subject
    assert subjects_are_names(
        ["Marie Curie", "Hypoxia", "", "1953 Georgia Tech"],
        [light("Marie Curie"), light(), light(), light(tech)],
        "q",
    )
    # 1 of 3: capitalised common nouns are no names
    assert not subjects_are_names(
        ["Hypoxia", "Metastasis", "Marie Curie"], [light(), light(), light("Marie Curie")], "q"
    )
    # a numeric entity confirms nothing ("2021" in "2021 Annual")
    assert not subjects_are_names(["2021 Annual"], [light(("2021", "DATE"))], "q")
    # a title the parser did not tag, named by the query (whole words)
    album = 'Who is the artist of the album "Revisited"?'
    assert subjects_are_names(["Revisited", "Revisited", "Lockie"], [light()] * 3, album)
    assert not subjects_are_names(["Visit", "Visit", "Lockie"], [light()] * 3, album)
    assert subjects_are_names([], [], "q") and subjects_are_names(["", ""], [light()] * 2, "q")
    with pytest.raises(ValueError):
        subjects_are_names(["Hypoxia"], [], "q")
    from cage_core.ranking.relevance_gate import GateConfig, few_named_subjects

    nouns = (["Hypoxia", "Metastasis"], [light(), light()], "q")
    assert few_named_subjects(*nouns, GateConfig())  # on by default
    assert not few_named_subjects(*nouns, GateConfig(unnamed_subjects=False))
    assert not few_named_subjects(["Marie Curie"], [light("Marie Curie")], "q", GateConfig())


def test_an_untitled_pool_whose_subjects_are_no_names_keeps_the_hybrid_order():
    """Chunks of abstracts open with capitalised common nouns, which the subject rules take
    for subjects: without the rule the short chain lifts "Fibrosis is ..." because the top
    chunk mentions fibrosis; with it (the default) the pool keeps z(cos) + 0.5 z(bm25)."""
    texts = [
        "Hypoxia is a feature of solid tumours that drives metastasis.",
        "Metastasis is a multistep process, and hypoxia promotes it in mice.",
        "In tumours, oxygen levels fall as the tumours grow.",
        "Fibrosis is the result of a dysfunctional repair of tissue.",
        "Tumour cells under low oxygen migrate more, as in fibrosis.",
    ]
    passages = [Passage(t) for t in texts]
    graphs = [entity_graph([], light=True) for _ in texts]
    sims = np.array([0.30, 0.25, 0.40, 0.10, 0.45])
    query = "Do low oxygen levels make tumour cells spread?"
    on = CageConfig()
    off = on.replace(gate=on.gate.replace(unnamed_subjects=False))
    assert on.gate.unnamed_subjects
    hybrid = standardize(sims) + 0.5 * standardize(pool_bm25(query, texts))
    kept = score_pool(query, passages, sims, graphs, on)
    assert [int(i) for i in ranking(hybrid)] == [4, 2, 0, 1, 3]
    assert [int(i) for i in ranking(kept.fused)] == [4, 2, 0, 1, 3]
    assert np.allclose(kept.fused, hybrid) and not kept.coherence.any()
    chained = score_pool(query, passages, sims, graphs, off)
    assert [int(i) for i in ranking(chained.fused)] == [4, 3, 2, 0, 1]


def test_document_and_gate_settings_say_when_they_have_no_effect():
    from cage_core.ranking.relevance_gate import GateConfig

    off = CageConfig(
        document=DocumentConfig(enabled=False, anchors=3),
        gate=GateConfig(sentence_titles=False, min_query_subjects=2),
    )
    assert off.ineffective_settings() == {
        "document.enabled=False turns the document view off": ("document.anchors",),
        "gate.titled=gate.untitled=gate.sentence_titles=False turn off the gates that read "
        "gate.min_query_subjects": ("gate.min_query_subjects",),
    }
    share_only = GateConfig(sentence_titles=False, min_query_subjects=2, min_subject_share=0.2)
    assert CageConfig(gate=share_only).ineffective_settings() == {  # the share gate reads none
        "gate.titled=gate.untitled=gate.sentence_titles=False turn off the gates that read "
        "gate.min_query_subjects": ("gate.min_query_subjects",),
    }
    assert CageConfig(gate=GateConfig(min_query_subjects=2)).ineffective_settings() == {}
    with pytest.raises(ValueError):
        GateConfig(min_subject_share=1.5)
    with pytest.raises(ValueError):
        DocumentConfig(anchors=-1)
    with pytest.raises(TypeError):
        CageConfig(document="on")


def test_paper_titles_are_not_names_and_wikipedia_titles_are():
    from cage_core.ranking.relevance_gate import titles_are_names

    papers = [
        "Birth size and breast cancer risk: re-analysis of individual participant data "
        "from 32 studies",
        "Aspirin",
        "Preoperative C-reactive protein predicts long-term "
        "mortality and hospital length of stay after primary, non-emergent coronary artery "
        "bypass grafting",
    ]
    assert not titles_are_names(papers)  # one name of three
    assert titles_are_names(["Copake Lake, New York", "Kiss and Tell (1945 film)", papers[0]])
    assert titles_are_names(["", " "])  # no titles: nothing to say


def test_the_sentence_titles_gate_keeps_the_relevance_order_of_a_pool_of_paper_titles():
    from cage_core.ranking.relevance_gate import GateConfig

    titles = [
        "Serum vitamin D concentration and the risk of fracture in elderly women and men",
        "Vitamin D supplementation in older adults with a history of falls and fractures",
        "Calcium intake and the risk of hip fracture in a cohort of postmenopausal women",
    ]
    texts = [
        "Vitamin D was measured in 900 elderly women in Oslo.",
        "Older adults in Oslo took Vitamin D for two years.",
        "Calcium intake was recorded in Oslo over ten years.",
    ]
    passages = [Passage(t, title=h) for t, h in zip(texts, titles)]
    oslo = ("Oslo", "GPE")
    graphs = [
        entity_graph([("Vitamin D", "PRODUCT"), oslo], light=True),
        entity_graph([oslo, ("Vitamin D", "PRODUCT")], light=True),
        entity_graph([oslo], light=True),
    ]
    sims = np.array([0.5, 0.2, 0.45])
    query = "Vitamin D lowers the risk of fracture."
    gated = score_pool(
        query, passages, sims, graphs, CageConfig(gate=GateConfig(sentence_titles=True))
    )
    assert [int(i) for i in ranking(gated.fused)] == [int(i) for i in ranking(gated.relevance)]
    assert gated.chain == ()
    off = CageConfig(gate=GateConfig(sentence_titles=False))
    assert score_pool(query, passages, sims, graphs, off).chain != ()  # the gate off
    named = [Passage(t, title=h) for t, h in zip(texts, ["Vitamin D", "Falls", "Calcium"])]
    kept = score_pool(query, named, sims, graphs, CageConfig(gate=GateConfig(sentence_titles=True)))
    assert kept.chain != ()  # titles that are names: the chain ranks as without the gate


def test_pools_with_document_structure_have_their_own_bm25_weight():
    passages, graphs = report_pool()
    sims = np.array([0.2, 0.5, 0.4, 0.45, 0.1])
    query = "When did Acme Foods Ltd. raise its dividend?"
    default = score_pool(query, passages, sims, graphs, CageConfig())
    lexical = CageConfig(document=DocumentConfig(lexical_weight=2.0))
    heavier = score_pool(query, passages, sims, graphs, lexical)
    bm25 = standardize(_bm25(query, passages, graphs))
    w_d, w_lex = lexical.document.document_weight, CageConfig().document.lexical_weight
    named = w_d * default.documents.named
    assert np.allclose(default.relevance, standardize(sims) + w_lex * bm25 + named)
    assert np.allclose(heavier.relevance, standardize(sims) + 2.0 * bm25 + named)
    flat = CageConfig(lexical_weight=2.0)  # the other pools' weight: not the view's
    assert np.array_equal(score_pool(query, passages, sims, graphs, flat).fused, default.fused)
    assert flat.ineffective_on("document") == ("lexical_weight",)


def test_an_untitled_chunk_inherits_its_documents_subject_for_bm25_once():
    passages, graphs = report_pool()
    names = document_names(passages, graphs)
    texts = subject_texts(passages, names)
    assert texts[1] == "Acme Foods Ltd. In March 2021 the company raised its dividend."
    assert texts[4] == "Bolt Motors builds cars."  # names its subject: not twice
    titled = [Passage("the company grew", title="Annual report", doc_id="a")]
    assert subject_texts(titled, {"a": ("Annual report",)}) == [titled[0].content]  # has its own
    assert subject_texts([Passage("x")], names) == ["x"]  # no document


def test_of_two_chunks_alike_the_one_of_the_document_the_query_names_is_more_relevant():
    same = "The company raised its dividend in March 2021."
    passages = [
        Passage("Acme Foods Ltd. is a food company.", doc_id="a", position=0),
        Passage(same, doc_id="a", position=1),
        Passage("Bolt Motors is a car maker.", doc_id="b", position=0),
        Passage(same, doc_id="b", position=1),
    ]
    graphs = [
        entity_graph([ACME], light=True),
        entity_graph([], light=True),
        entity_graph([BOLT], light=True),
        entity_graph([], light=True),
    ]
    query = "Did Acme Foods raise its dividend?"
    plain = pool_bm25(query, [p.content for p in passages])
    names = document_names(passages, graphs)
    relevance = document_relevance(query, passages, np.zeros(4), 1.0, names)
    assert plain[1] == plain[3] and relevance[1] > relevance[3]
    assert document_relevance(query, passages, np.zeros(4), 0.0, names).tolist() == [0.0] * 4


def test_a_via_names_a_document_by_the_name_ingest_gave_it_before_anything_else():
    software = ("Software", "ORG")
    name = "RFC 9110: HTTP Semantics"
    chunks = [
        Passage("The Software is provided.", title="Methods", doc_id="rfc9110.txt", position=2),
        Passage("Copies of it.", doc_id="rfc9110.txt", position=3, document_name=name),
        Passage("Intro.", doc_id="notes", position=1),
    ]
    names_of = document_names(chunks, [entity_graph([software], light=True)] * 3)
    assert shown_names(chunks, names_of) == (name, name, "Software")  # not "Methods", nor a file
    assert document_links(chunks, [0, 1], shown_names(chunks, names_of))[1] == (
        Via("same document: RFC 9110: HTTP Semantics, next chunk", 0, "document"),
        1.0,
    )
