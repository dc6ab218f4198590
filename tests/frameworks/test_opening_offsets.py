"""A centred title that a splitter puts at the start of a later chunk, stripped of its margin,
is still read for the document's record through each framework's ingest component, from the
chunks' offsets (cage_core.expansion.openings.document_openings)."""

from __future__ import annotations

import pytest
from rfc_opening import RFC_9110

from cage_core.expansion.index import LinkIndex

pytestmark = pytest.mark.models  # the spaCy pipeline


def test_langchain_splitter_and_transformer_read_the_title_of_a_long_header() -> None:
    pytest.importorskip("langchain_text_splitters")
    from langchain_core.documents import Document
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    from cage_langchain import CageGraphTransformer

    splitter = RecursiveCharacterTextSplitter(chunk_size=500, add_start_index=True)
    chunks = splitter.split_documents([Document(RFC_9110, metadata={"source": "rfc9110.txt"})])
    assert chunks[-1].page_content.startswith("HTTP Semantics")  # its margin stripped
    links = LinkIndex()
    ingested = CageGraphTransformer(link_index=links).transform_documents(chunks)
    assert [r.name for r in links.storage.document_records()] == ["RFC 9110: HTTP Semantics"]
    assert {c.metadata["cage_document"] for c in ingested} == {"RFC 9110: HTTP Semantics"}


def test_llamaindex_splitter_and_extractor_read_the_title_of_a_long_header() -> None:
    from llama_index.core import Document
    from llama_index.core.node_parser import SentenceSplitter

    from cage_llamaindex import CageGraphExtractor

    splitter = SentenceSplitter(chunk_size=128, chunk_overlap=0)
    document = Document(text=RFC_9110, metadata={"file_name": "rfc9110.txt"})
    nodes = splitter.get_nodes_from_documents([document])
    assert nodes[-1].get_content().startswith("HTTP Semantics")  # its margin stripped
    links = LinkIndex()
    ingested = CageGraphExtractor(link_index=links)(nodes)
    assert [r.name for r in links.storage.document_records()] == ["RFC 9110: HTTP Semantics"]
    assert {n.metadata["cage_document"] for n in ingested} == {"RFC 9110: HTTP Semantics"}
    assert all("cage_document" in n.excluded_embed_metadata_keys for n in ingested)
    assert all("cage_document" in n.excluded_llm_metadata_keys for n in ingested)


def test_a_via_names_the_document_by_the_name_ingest_gave_it_in_every_pool() -> None:
    pytest.importorskip("langchain_text_splitters")
    from langchain_core.documents import Document
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    from cage_langchain import CageGraphTransformer, CageRerank

    body = "\n\n".join(  # paragraphs set in by 3, in 72 columns, as an RFC sets them
        "   The request method token is the primary source of request semantics;\n"
        f"   servers answer method {n} with a status code that says what became of it."
        for n in range(1, 13)
    )
    splitter = RecursiveCharacterTextSplitter(chunk_size=500, add_start_index=True)
    document = Document(RFC_9110 + "\n" + body, metadata={"source": "rfc9110.txt"})
    ingested = CageGraphTransformer().transform_documents(splitter.split_documents([document]))
    later = [c for c in ingested if c.metadata["start_index"] > 1000]  # no opening, no title
    assert len(later) >= 2
    ranked = CageRerank(score_key=None).compress_documents(later, "Which status codes answer?")
    vias = [d.metadata["cage_via"]["name"] for d in ranked if d.metadata["cage_via"]]
    assert vias and all(v.startswith("same document: RFC 9110: HTTP Semantics") for v in vias)
