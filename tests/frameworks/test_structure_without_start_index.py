"""A document's chunks get their place at ingest even when the splitter kept no offset
(cage_core.integrations.chunk_order): with and without LangChain's ``add_start_index`` or
LlamaIndex's ``start_char_idx``, the same positions and the same rankings."""

import pytest

from cage_core.expansion.index import LinkIndex
from cage_core.integrations.chunk_order import chunk_orders, ordered_metadatas
from cage_core.metadata import ORDER_METADATA_KEY, passages_from_metadata

ACME = (
    "Acme Corp is a maker of anvils and rockets based in Phoenix, Arizona.\n\n"
    "The company sold forty thousand anvils in 2023, twice as many as in 2022.\n\n"
    "Its rockets failed three launch tests. The next test is planned for 2025.\n\n"
    "The board named Wile Coyote chief executive in 2019."
)
BOLT = (
    "Bolt Motors is a carmaker based in Detroit.\n\n"
    "Bolt Motors sold forty thousand cars in 2023.\n\n"
    "It plans a rocket-powered car."
)
QUESTION = "How many anvils did Acme Corp sell in 2023, and who leads the company?"
POOL = (3, 1, 4, 5, 2)
"""The retrieved chunks, by index in the split: Acme's 4th and 2nd, Bolt's two, Acme's 3rd."""
PLACES = [
    ("acme.md", 0),
    ("acme.md", 1),
    ("acme.md", 2),
    ("acme.md", 3),
    ("bolt.md", 0),
    ("bolt.md", 1),
]
"""``(doc_id, position)`` of each chunk of the split, all of them given to the ingest."""


# -- the rule ---------------------------------------------------------------------------------
def test_chunks_of_a_document_without_offsets_are_numbered_in_call_order_per_document():
    metadatas = [{"source": "a.md"}, {"source": "b.md"}, {"source": "a.md"}, {}, {"source": "a.md"}]
    assert chunk_orders(metadatas, None) == [0, 0, 1, None, 2]


def test_documents_with_every_offset_or_an_explicit_position_are_left_as_they_are():
    metadatas = [
        {"source": "a.md", "start_index": 90},
        {"source": "a.md", "start_index": 0},
        {"doc_id": "r", "position": 4},
        {"doc_id": "r"},
    ]
    assert chunk_orders(metadatas, None) == [None, None, None, None]


def test_one_chunk_without_an_offset_orders_its_whole_document_by_the_call():
    metadatas = [{"source": "a.md", "start_index": 0}, {"source": "a.md", "start_index": -1}]
    assert chunk_orders(metadatas, None) == [0, 1]


def test_a_titled_chunk_of_a_source_belongs_to_the_document_of_that_title():
    metadatas = [
        {"source": "wiki.jsonl", "title": "Acme"},
        {"source": "wiki.jsonl", "title": "Bolt"},
        {"source": "wiki.jsonl", "title": "Acme"},
    ]
    assert chunk_orders(metadatas, "title") == [0, 0, 1]


def test_successors_restore_the_document_order_of_chunks_given_out_of_order():
    metadatas = [{"doc_id": "d"}] * 4
    assert chunk_orders(metadatas, None, successors=[None, 0, 1, 2]) == [3, 2, 1, 0]
    # a successor outside the call is unknown; a cycle starts at its first chunk in the call
    assert chunk_orders(metadatas, None, successors=[7, None, 3, 2]) == [0, 1, 2, 3]


def test_a_document_given_in_two_calls_is_numbered_from_zero_in_each():
    first = chunk_orders([{"source": "a.md"}] * 2, None)
    second = chunk_orders([{"source": "a.md"}] * 2, None)
    assert first == second == [0, 1]


def test_an_order_from_an_earlier_ingest_is_replaced_and_the_inputs_are_not_modified():
    metadatas = [
        {"source": "a.md", ORDER_METADATA_KEY: 7},
        {"source": "b.md", "start_index": 0, ORDER_METADATA_KEY: 3},
    ]
    out = ordered_metadatas(metadatas, None)
    assert out == [{"source": "a.md", ORDER_METADATA_KEY: 0}, {"source": "b.md", "start_index": 0}]
    assert metadatas[0][ORDER_METADATA_KEY] == 7 and ordered_metadatas(out, None) == out


def test_the_written_order_is_ranked_like_an_offset_and_before_it():
    metadatas = [
        {"source": "a.md", ORDER_METADATA_KEY: 5},
        {"source": "a.md", ORDER_METADATA_KEY: 2},
        {"source": "b.md", ORDER_METADATA_KEY: 0, "start_index": 400},
        {"source": "b.md", ORDER_METADATA_KEY: 1, "start_index": 0},
    ]
    passages = passages_from_metadata(["x"] * 4, metadatas, None)
    assert [(p.doc_id, p.position) for p in passages] == [
        ("a.md", 1),
        ("a.md", 0),
        ("b.md", 0),
        ("b.md", 1),
    ]


# -- LangChain --------------------------------------------------------------------------------
def _langchain_chunks(add_start_index: bool):
    from langchain_core.documents import Document
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(
        chunk_size=80, chunk_overlap=0, add_start_index=add_start_index
    )
    return splitter.split_documents(
        [
            Document(ACME, metadata={"source": "acme.md"}),
            Document(BOLT, metadata={"source": "bolt.md"}),
        ]
    )


@pytest.mark.models
def test_langchain_chunks_without_start_index_get_the_same_places_and_ranking():
    from cage_langchain import CageGraphTransformer, CageRerank
    from cage_langchain.structure import document_passages

    transformer = CageGraphTransformer()
    rerank = CageRerank(top_n=None, score_key=None)
    places, entries, rankings, ids = {}, {}, {}, {}
    for kept in (True, False):
        links = LinkIndex()
        ingest = transformer.model_copy(update={"link_index": links})
        enriched = ingest.transform_documents(_langchain_chunks(kept))
        assert [d.metadata.get(ORDER_METADATA_KEY) for d in enriched] == (
            [None] * 6 if kept else [0, 1, 2, 3, 0, 1]
        )
        ids[kept] = [d.id for d in enriched]
        places[kept] = [(p.doc_id, p.position) for p in document_passages(enriched, "title")]
        entries[kept] = [(e.doc_id, e.position) for e in (links.entry(i) for i in ids[kept])]
        ranked = rerank.compress_documents([enriched[i] for i in POOL], QUESTION)
        rankings[kept] = [(d.id, d.metadata["cage_score"]) for d in ranked]
    assert ids[True] == ids[False]
    assert places[True] == places[False] == entries[True] == entries[False] == PLACES
    assert rankings[True] == rankings[False]
    # the splitter's chunks alone, without start_index: no places, and another ranking
    raw = _langchain_chunks(False)
    assert [p.position for p in document_passages(raw, "title")] == [None] * 6
    for chunk, chunk_id in zip(raw, ids[True]):
        chunk.id = chunk_id
    unplaced = rerank.compress_documents([raw[i] for i in POOL], QUESTION)
    assert [d.id for d in unplaced] != [i for i, _ in rankings[True]]


# -- LlamaIndex -------------------------------------------------------------------------------
@pytest.mark.models
def test_llamaindex_nodes_without_start_char_idx_get_the_same_places_and_ranking():
    from llama_index.core import Document
    from llama_index.core.node_parser import SentenceSplitter
    from llama_index.core.schema import NodeWithScore

    from cage_llamaindex import CageGraphExtractor, CageRerank
    from cage_llamaindex.structure import node_passages

    nodes = SentenceSplitter(chunk_size=24, chunk_overlap=0).get_nodes_from_documents(
        [Document(text=ACME, id_="acme.md"), Document(text=BOLT, id_="bolt.md")]
    )
    assert len(nodes) == 6 and all(n.start_char_idx is not None for n in nodes)
    without = []
    for node in reversed(nodes):  # out of order: PREVIOUS / NEXT give the order back
        copy = node.model_copy()
        copy.start_char_idx = copy.end_char_idx = None
        without.append(copy)
    extractor = CageGraphExtractor()
    rerank = CageRerank(top_n=None)
    places, rankings = {}, {}
    for kept, given in ((True, nodes), (False, without)):
        extracted = {n.node_id: n for n in extractor(given)}
        ordered = [extracted[n.node_id] for n in nodes]
        assert [n.metadata.get(ORDER_METADATA_KEY) for n in ordered] == (
            [None] * 6 if kept else [0, 1, 2, 3, 0, 1]
        )
        assert ORDER_METADATA_KEY in ordered[0].excluded_embed_metadata_keys
        assert ORDER_METADATA_KEY in ordered[0].excluded_llm_metadata_keys
        places[kept] = [(p.doc_id, p.position) for p in node_passages(ordered, None)]
        pool = [NodeWithScore(node=ordered[i]) for i in POOL]
        ranked = rerank.postprocess_nodes(pool, query_str=QUESTION)
        rankings[kept] = [(n.node.node_id, n.score) for n in ranked]
    assert places[True] == places[False] == PLACES
    assert rankings[True] == rankings[False]
    assert [n.start_char_idx for n in without] == [None] * 6  # the inputs are not modified
    assert nodes[0].start_char_idx == 0 and ORDER_METADATA_KEY not in nodes[0].metadata
