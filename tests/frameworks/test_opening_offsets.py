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
    CageGraphTransformer(link_index=links).transform_documents(chunks)
    assert [r.name for r in links.storage.document_records()] == ["RFC 9110: HTTP Semantics"]


def test_llamaindex_splitter_and_extractor_read_the_title_of_a_long_header() -> None:
    from llama_index.core import Document
    from llama_index.core.node_parser import SentenceSplitter

    from cage_llamaindex import CageGraphExtractor

    splitter = SentenceSplitter(chunk_size=128, chunk_overlap=0)
    document = Document(text=RFC_9110, metadata={"file_name": "rfc9110.txt"})
    nodes = splitter.get_nodes_from_documents([document])
    assert nodes[-1].get_content().startswith("HTTP Semantics")  # its margin stripped
    links = LinkIndex()
    CageGraphExtractor(link_index=links)(nodes)
    assert [r.name for r in links.storage.document_records()] == ["RFC 9110: HTTP Semantics"]
