"""Document structure: which document a chunk is from and where in it, read from the
frameworks' metadata and relationships, kept in the link index, and used by the expansion."""

import dataclasses
import json
import logging

import pytest
from graphs import entity_graph

from cage_core import Passage
from cage_core.expansion.contract import (
    SAME_DOCUMENT_VIA,
    expansion_metadata,
    index_neighbours,
    sibling_expansions,
)
from cage_core.expansion.index import Expansion, LinkEntry, LinkIndex, entry_for
from cage_core.expansion.ingest import link_entries
from cage_core.integrations.ray_data import GRAPH_COLUMN
from cage_core.metadata import passages_from_metadata


def _places(metadatas, **kwargs):
    passages = passages_from_metadata(["x"] * len(metadatas), metadatas, None, **kwargs)
    return [(p.doc_id, p.position) for p in passages]


# -- reading the structure ------------------------------------------------------------------
def test_positions_are_the_rank_of_start_index_among_the_chunks_of_each_source():
    metadatas = [
        {"source": "a.md", "start_index": 900},
        {"source": "b.md", "start_index": 0},
        {"source": "a.md", "start_index": 0},
        {"source": "a.md", "start_index": 450},
    ]
    assert _places(metadatas) == [("a.md", 2), ("b.md", 0), ("a.md", 0), ("a.md", 1)]


def test_the_document_name_ingest_wrote_is_read_when_it_is_a_string_of_a_document():
    long = "RFC 9110: " + "HTTP Semantics " * 20
    metadatas = [
        {"source": "rfc9110.txt", "cage_document": "RFC 9110:\n  HTTP Semantics"},
        {"source": "rfc9110.txt", "cage_document": long},
        {"source": "rfc9110.txt", "cage_document": 9110},  # untrusted: no string, no name
        {"cage_document": "RFC 9110: HTTP Semantics"},  # no document: no name
    ]
    names = [p.document_name for p in passages_from_metadata(["x"] * 4, metadatas, None)]
    assert names == ["RFC 9110: HTTP Semantics", " ".join(long.split())[:200], "", ""]


def test_an_explicit_position_wins_over_start_index_for_the_whole_document():
    metadatas = [
        {"doc_id": "r", "position": 7, "start_index": 0},
        {"doc_id": "r", "chunk_index": 3, "start_index": 100},
        {"doc_id": "r", "start_index": 200},
    ]
    assert _places(metadatas) == [("r", 7), ("r", 3), ("r", None)]


def test_doc_id_keys_are_read_in_order_and_the_frameworks_own_id_comes_first():
    metadatas = [
        {"source": "s.pdf", "doc_id": "d1"},
        {"document_id": "d2", "source": "s.pdf"},
        {"source": "s.pdf"},
        {"file_path": "/x/f.txt"},
        {"doc_id": 42},
        {"source": "s"},
    ]
    assert [d for d, _ in _places(metadatas)] == ["d1", "d2", "s.pdf", "/x/f.txt", "42", "s"]
    assert _places([{"source": "s"}], doc_ids=["ref-1"], offsets=[5]) == [("ref-1", 0)]


def test_pages_order_before_the_offset_within_the_page():
    metadatas = [
        {"source": "f.pdf", "page": 1, "start_index": 0},
        {"source": "f.pdf", "page": 0, "start_index": 800},
        {"source": "f.pdf", "page": 0, "start_index": 0},
    ]
    assert _places(metadatas) == [("f.pdf", 2), ("f.pdf", 1), ("f.pdf", 0)]


def test_chunks_without_structure_or_with_malformed_values_get_none_never_an_error():
    metadatas = [
        {},
        {"source": ""},
        {"source": True},
        {"source": ["a"]},
        {"source": "a", "position": -1},
        {"source": "a", "position": True},
        {"source": "a", "position": 1.0, "start_index": "12"},
    ]
    assert _places(metadatas) == [(None, None)] * 4 + [("a", None)] * 3


def test_a_position_without_a_document_is_dropped():
    assert _places([{"position": 3, "start_index": 10}]) == [(None, None)]


def test_passages_keep_text_title_and_id_and_lists_of_other_lengths_are_refused():
    [p] = passages_from_metadata(
        ["t"], [{"title": "T", "source": "s", "start_index": 0}], "title", ["id1"]
    )
    assert p == Passage("t", title="T", id="id1", doc_id="s#T", position=0)
    assert p.content == "T. t"  # the structure is never parsed or embedded
    with pytest.raises(ValueError, match="differ in length"):
        passages_from_metadata(["a", "b"], [{}], None)


def test_a_source_holding_passages_of_several_titles_is_a_collection_not_one_document():
    """The examples' passages all say source="hotpotqa" (a dataset): without the title in
    their document id, a whole corpus would be one document to the document view."""
    metadatas = [
        {"title": "Nola (film)", "source": "hotpotqa"},
        {"title": "Big Stone Gap (film)", "source": "hotpotqa"},
        {"title": "Big Stone Gap (film)", "source": "hotpotqa", "start_index": 9},
        {"source": "hotpotqa"},
        {"title": "X", "doc_id": "d1"},
    ]
    passages = passages_from_metadata(["t"] * 5, metadatas, "title")
    assert [p.doc_id for p in passages] == [
        "hotpotqa#Nola (film)",
        "hotpotqa#Big Stone Gap (film)",
        "hotpotqa#Big Stone Gap (film)",
        "hotpotqa",
        "d1",
    ]


def test_passage_validates_doc_id_and_position():
    with pytest.raises(TypeError):
        Passage("t", doc_id=3)
    with pytest.raises(TypeError):
        Passage("t", doc_id="d", position=True)
    with pytest.raises(ValueError):
        Passage("t", doc_id="d", position=-1)


# -- the link index keeps it --------------------------------------------------------------
def _structured_index():
    index = LinkIndex()
    for pid, position in (("r#2", 2), ("r#0", 0), ("r#1", 1), ("r#x", None)):
        index.add(pid, Passage("The company grew.", doc_id="report", position=position), None)
    index.add("other", Passage("Acme Corp makes anvils."), entity_graph(["Acme Corp"], light=True))
    return index


def test_entries_keep_the_passages_document_and_position():
    entry = entry_for("r#0", Passage("Acme Corp makes anvils.", doc_id="report", position=0), None)
    assert (entry.doc_id, entry.position) == ("report", 0)
    assert entry_for("x", Passage("Acme Corp makes anvils."), None).doc_id is None


def test_chunks_of_orders_by_position_then_id_and_follows_removals():
    index = _structured_index()
    assert index.chunks_of("report") == ["r#0", "r#1", "r#2", "r#x"]
    assert index.chunks_of("unknown") == []
    index.remove("r#1")
    assert index.chunks_of("report") == ["r#0", "r#2", "r#x"]
    index.remove("r#0"), index.remove("r#2"), index.remove("r#x")
    assert index.chunks_of("report") == []


def test_doc_id_and_position_round_trip_through_the_stored_form_and_are_omitted_when_none():
    index = _structured_index()
    lines = list(index.to_lines())
    assert json.loads(lines[1]) == {
        "id": "r#2",
        "subject": "",
        "keys": [],
        "mentions": [],
        "doc_id": "report",
        "position": 2,
    }
    assert "doc_id" not in json.loads(lines[-1]) and "position" not in json.loads(lines[-1])
    loaded = LinkIndex.from_lines(lines)
    assert list(loaded.entries()) == list(index.entries())
    assert loaded.chunks_of("report") == index.chunks_of("report")


@pytest.mark.parametrize(
    "bad",
    [
        {"doc_id": ""},
        {"doc_id": 7},
        {"position": -1},
        {"position": True},
        {"position": 1.5},
        {"page": 1},
    ],
)
def test_stored_entries_with_a_bad_doc_id_or_position_are_skipped_with_one_warning(bad, caplog):
    good = {"id": "a", "subject": "", "keys": [], "mentions": [], "doc_id": "d", "position": 0}
    lines = [
        json.dumps({"format": "cage-link-index", "version": 1, "passages": 2}),
        json.dumps(good),
        json.dumps({**good, "id": "b", **bad}),
    ]
    with caplog.at_level(logging.WARNING, logger="cage_core.expansion.index"):
        index = LinkIndex.from_lines(lines)
    assert len(index) == 1 and "skipped 1 invalid entries" in caplog.text


def test_link_entry_refuses_a_bad_doc_id_or_position():
    with pytest.raises(ValueError):
        LinkEntry("a", "", (), (), doc_id="")
    with pytest.raises(ValueError):
        LinkEntry("a", "", (), (), doc_id="d", position=-2)


def test_enrich_rows_with_doc_id_and_position_columns_keep_them_in_the_link_index():
    graph = dataclasses.replace(
        entity_graph([("Acme Corp", "ORG")], light=True), content_sha="0" * 32
    ).to_text()
    rows = [
        {
            "id": "c1",
            "text": "The company grew.",
            "doc_id": "r",
            "position": 1,
            GRAPH_COLUMN: graph,
        },
        {
            "id": "c0",
            "text": "Acme Corp makes anvils.",
            "doc_id": "r",
            "position": 0,
            GRAPH_COLUMN: graph,
        },
        {
            "id": "s1",
            "text": "Later on.",
            "source": "notes.md",
            "start_index": 40,
            GRAPH_COLUMN: graph,
        },
        {"id": "s0", "text": "First.", "source": "notes.md", "start_index": 0, GRAPH_COLUMN: graph},
        {"id": "z", "text": "Alone.", GRAPH_COLUMN: graph},
    ]
    index = LinkIndex()
    index.add_entries(link_entries(rows))
    assert index.chunks_of("r") == ["c0", "c1"] and index.chunks_of("notes.md") == ["s0", "s1"]
    assert (index.entry("z").doc_id, index.entry("z").position) == (None, None)


# -- siblings as expansion candidates -----------------------------------------------------
def test_index_neighbours_are_position_minus_one_then_plus_one():
    index = _structured_index()
    assert index_neighbours(index, "r#1") == ("report", ["r#0", "r#2"])
    assert index_neighbours(index, "r#0") == ("report", ["r#1"])
    assert index_neighbours(index, "r#x") == ("report", [])
    assert index_neighbours(index, "other") == (None, [])
    assert index_neighbours(index, "unknown") == (None, [])
    for pid, position in (("r#1b", 1), ("r#0b", 0), ("r#4", 4)):  # repeated positions, a gap
        index.add(pid, Passage("More.", doc_id="report", position=position), None)
    assert index_neighbours(index, "r#1b") == ("report", ["r#0", "r#2"])
    assert index_neighbours(index, "r#2") == ("report", ["r#1"])
    assert index_neighbours(index, "r#4") == ("report", [])


def test_sibling_expansions_go_seed_by_seed_skip_known_ids_and_stop_at_the_limit():
    siblings = {"s1": ["a", "b"], "s2": ["b", "s1", "c", "d"], "s3": ["e"]}.get

    def found(seeds, limit, excluded=()):
        out = sibling_expansions(
            ["s1", "s2", "s3"],
            lambda s: ("d", siblings(s, [])),
            seeds=seeds,
            limit=limit,
            excluded=excluded,
        )
        return [(e.id, e.seed) for e in out]

    assert found(3, 10) == [("a", "s1"), ("b", "s1"), ("c", "s2"), ("d", "s2"), ("e", "s3")]
    assert found(1, 10) == [("a", "s1"), ("b", "s1")]
    assert found(3, 3) == [("a", "s1"), ("b", "s1"), ("c", "s2")]
    assert found(3, 10, excluded={"a", "c"}) == [("b", "s1"), ("d", "s2"), ("e", "s3")]
    assert found(3, 0) == [] and found(0, 5) == []
    [first] = sibling_expansions(["s"], lambda s: ("doc", ["n"]), seeds=1, limit=1)
    assert first == Expansion(id="n", via="doc", seed="s", weight=0.0, kind="document")
    assert expansion_metadata({"k": 1}, first) == {
        "k": 1,
        "cage_expanded_via": SAME_DOCUMENT_VIA,
        "cage_expanded_from": "s",
    }
    with pytest.raises(ValueError):
        sibling_expansions(["s"], lambda s: (None, []), seeds=-1, limit=1)


# -- the frameworks' own splitters ---------------------------------------------------------
REPORT = (
    "Acme Corp is a maker of anvils and rockets based in Phoenix, Arizona. " * 3
    + "\n\n"
    + "The company sold forty thousand anvils in 2023. " * 3
    + "\n\n"
    + "Its chief executive is Wile Coyote, appointed in 2019. " * 3
)


def test_langchain_splitter_chunks_get_their_source_and_order():
    from langchain_core.documents import Document
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    from cage_langchain.structure import document_passages

    splitter = RecursiveCharacterTextSplitter(chunk_size=240, chunk_overlap=0, add_start_index=True)
    chunks = splitter.split_documents(
        [
            Document(REPORT, metadata={"source": "acme.txt"}),
            Document("A short note.", metadata={"source": "note.txt"}),
        ]
    )
    assert len(chunks) == 4
    shuffled = [chunks[2], chunks[3], chunks[0], chunks[1]]
    passages = document_passages(shuffled, "title")
    assert [(p.doc_id, p.position) for p in passages] == [
        ("acme.txt", 2),
        ("note.txt", 0),
        ("acme.txt", 0),
        ("acme.txt", 1),
    ]
    assert [p.text for p in passages] == [c.page_content for c in shuffled]
    assert document_passages([Document("no structure")], "title")[0].doc_id is None


def test_llamaindex_sentence_splitter_nodes_get_their_ref_doc_id_order_and_neighbours():
    from llama_index.core import Document
    from llama_index.core.node_parser import SentenceSplitter
    from llama_index.core.schema import TextNode

    from cage_llamaindex.structure import adjacent_node_ids, node_passages

    nodes = SentenceSplitter(chunk_size=64, chunk_overlap=0).get_nodes_from_documents(
        [Document(text=REPORT, id_="acme")]
    )
    assert len(nodes) == 3
    passages = node_passages(list(reversed(nodes)), "title")
    assert [(p.id, p.doc_id, p.position) for p in passages] == [
        (nodes[2].node_id, "acme", 2),
        (nodes[1].node_id, "acme", 1),
        (nodes[0].node_id, "acme", 0),
    ]
    assert adjacent_node_ids(nodes[1]) == [nodes[0].node_id, nodes[2].node_id]
    assert adjacent_node_ids(nodes[0]) == [nodes[1].node_id]
    plain = TextNode(text="no structure", id_="n")
    assert node_passages([plain], "title")[0].doc_id is None and adjacent_node_ids(plain) == []


def test_llamaindex_markdown_node_parser_sections_get_their_document_and_order():
    from llama_index.core import Document
    from llama_index.core.node_parser import MarkdownNodeParser

    from cage_llamaindex.structure import adjacent_node_ids, node_passages

    text = (
        "# Acme\n\nAcme Corp makes anvils.\n\n## Sales\n\nThe company sold many.\n\n"
        "## People\n\nIt hired."
    )
    nodes = MarkdownNodeParser().get_nodes_from_documents([Document(text=text, id_="acme.md")])
    assert [(p.doc_id, p.position) for p in node_passages(nodes[::-1], None)] == [
        ("acme.md", 2),
        ("acme.md", 1),
        ("acme.md", 0),
    ]
    assert adjacent_node_ids(nodes[1]) == [nodes[0].node_id, nodes[2].node_id]


def test_both_rerankers_hand_the_core_each_chunks_document_and_position(monkeypatch):
    """What the wrappers give the core ranking (spied on; no model is loaded)."""
    from langchain_core.documents import Document
    from llama_index.core.schema import NodeRelationship, NodeWithScore, RelatedNodeInfo, TextNode

    from cage_core.graphs.service import PassageGraphs
    from cage_core.reranker import CageReranker
    from cage_langchain import CageRerank as LangChainRerank
    from cage_llamaindex import CageRerank as LlamaIndexRerank

    seen = []
    monkeypatch.setattr(
        CageReranker,
        "rank_pool",
        lambda self, pool, *args: (
            seen.append([(p.id, p.doc_id, p.position) for p in pool.passages]) or []
        ),
    )
    monkeypatch.setattr(PassageGraphs, "stored", lambda self, stored, passages, **kw: None)
    docs = [
        Document(
            "b", metadata={"source": "r.md", "start_index": 90, "retrieval_score": 0.5}, id="c1"
        ),
        Document(
            "a", metadata={"source": "r.md", "start_index": 0, "retrieval_score": 0.4}, id="c0"
        ),
        Document("z", metadata={"retrieval_score": 0.3}, id="z"),
    ]
    LangChainRerank().compress_documents(docs, "q")
    nodes = [
        TextNode(text="b", id_="n1", start_char_idx=90),
        TextNode(text="a", id_="n0", start_char_idx=0),
        TextNode(text="z", id_="z"),
    ]
    for node in nodes[:2]:
        node.relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(node_id="r")
    LlamaIndexRerank().postprocess_nodes(
        [NodeWithScore(node=n, score=0.5) for n in nodes], query_str="q"
    )
    assert seen == [
        [("c1", "r.md", 1), ("c0", "r.md", 0), ("z", None, None)],
        [("n1", "r", 1), ("n0", "r", 0), ("z", None, None)],
    ]


def test_cage_rerank_jsonl_input_reads_the_chunks_document_structure(tmp_path):
    from cage_core.cli.passages import read_passages

    path = tmp_path / "chunks.jsonl"
    path.write_text(
        "\n".join(
            json.dumps(row)
            for row in [
                {"text": "b", "id": 7, "doc_id": "r", "position": 1},
                {"text": "a", "title": "T", "source": "s.md", "start_index": 0},
                "plain",
            ]
        ),
        encoding="utf-8",
    )
    assert read_passages(str(path)) == [
        Passage("b", id="7", doc_id="r", position=1),
        Passage("a", title="T", doc_id="s.md#T", position=0),
        Passage("plain"),
    ]


@pytest.mark.models  # parses with spaCy
def test_both_rerankers_write_a_document_link_as_such_with_its_strength():
    """A chunk placed by its document says so in ``cage_via`` (kind ``"document"``, the
    document and the place), and ``cage_coherence`` is that link's strength."""
    from langchain_core.documents import Document
    from llama_index.core.schema import NodeRelationship, NodeWithScore, RelatedNodeInfo, TextNode

    from cage_langchain import CageRerank as LangChainRerank
    from cage_llamaindex import CageRerank as LlamaIndexRerank

    texts = [
        ("acme.md", 0, "Acme Foods Ltd. is a food company founded in 1990.", 0.3),
        ("acme.md", 60, "In March 2021 the company raised its dividend.", 0.5),
        ("bolt.md", 0, "Bolt Motors builds cars in Ohio.", 0.4),
    ]
    query = "Did Acme Foods Ltd. raise its dividend?"
    docs = [
        Document(text, metadata={"source": source, "start_index": start, "retrieval_score": s})
        for source, start, text, s in texts
    ]
    out = LangChainRerank(top_n=None).compress_documents(docs, query)
    nodes = []
    for n, (source, start, text, _) in enumerate(texts):
        node = TextNode(text=text, id_=f"n{n}", start_char_idx=start)
        node.relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(node_id=source)
        nodes.append(NodeWithScore(node=node, score=texts[n][3]))
    ranked = LlamaIndexRerank(top_n=None, similarity_source="score").postprocess_nodes(
        nodes, query_str=query
    )
    link = {"name": "same document: Acme Foods Ltd, previous chunk", "rank": 0, "kind": "document"}
    for metadatas in ([d.metadata for d in out], [n.node.metadata for n in ranked]):
        assert [(m["cage_via"], m["cage_coherence"]) for m in metadatas] == [
            (None, 0.0),  # the dividend chunk, of the document the question names
            (link, 1.0),  # the chunk before it
            (None, 0.0),
        ]
