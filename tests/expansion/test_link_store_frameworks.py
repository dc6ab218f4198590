"""The framework components take a SQLite link store's path wherever they took a JSON Lines
file's: the ingest components write it batch by batch, the expansion retriever opens it, and
retrieval is the same as over the in-memory index of the same documents."""

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.models  # the ingest components parse with spaCy; retrieval embeds

from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore

from cage_core.expansion.index import LinkIndex
from cage_core.expansion.store import SqliteLinkStorage
from cage_langchain import (
    CageExpansionRetriever,
    CageGraphTransformer,
    PackagedMiniLMEmbeddings,
    ScoredVectorStoreRetriever,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "data" / "wiki_passages.jsonl"
ROWS = [json.loads(line) for line in EXAMPLES.read_text(encoding="utf-8").splitlines()]
QUERY = (
    "What government position was held by the woman who portrayed Corliss Archer in the "
    "film Kiss and Tell?"
)


def _docs():
    return [
        Document(page_content=r["text"], metadata={"title": r["title"]}, id=f"p{i}")
        for i, r in enumerate(ROWS)
    ]


def test_langchain_ingest_and_expansion_through_a_store_path_equal_the_in_memory_index(tmp_path):
    path = tmp_path / "links.sqlite"
    docs = _docs()
    enriched = []
    for start in range(0, len(docs), 15):  # ingest batches, each upserted into the store
        batch = docs[start : start + 15]
        enriched += CageGraphTransformer(link_index=path).transform_documents(batch)
    memory = LinkIndex()
    CageGraphTransformer(link_index=memory).transform_documents(docs)
    store = LinkIndex.open(path)
    assert isinstance(store.storage, SqliteLinkStorage)
    assert list(store.entries()) == list(memory.entries())

    vectors = InMemoryVectorStore.from_documents(enriched, PackagedMiniLMEmbeddings())

    def retrieve(link_index):
        base = ScoredVectorStoreRetriever(vectorstore=vectors, k=3)
        return CageExpansionRetriever(
            base_retriever=base, vectorstore=vectors, link_index=link_index
        ).invoke(QUERY)

    from_store, from_memory = retrieve(str(path)), retrieve(memory)
    assert [d.id for d in from_store] == [d.id for d in from_memory]
    assert "Shirley Temple" in [d.metadata["title"] for d in from_store[3:]]  # the second hop


def test_the_llamaindex_extractor_writes_a_store_path(tmp_path):
    from llama_index.core.schema import TextNode

    from cage_llamaindex import CageGraphExtractor

    nodes = [
        TextNode(text=r["text"], id_=f"p{i}", metadata={"title": r["title"]})
        for i, r in enumerate(ROWS[:10])
    ]
    CageGraphExtractor(link_index=tmp_path / "links.db")(nodes)
    memory = LinkIndex()
    CageGraphExtractor(link_index=memory)(nodes)
    assert list(LinkIndex.open(tmp_path / "links.db").entries()) == list(memory.entries())
