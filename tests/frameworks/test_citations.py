"""Links across documents (:mod:`cage_core.integrations.expanded_pool`, step 5): a retrieved
chunk that cites another document of the folder by the identifier that document gives
itself, or by its title, brings that document's best chunk for the question into the pool,
with a ``via`` that says so; in both frameworks, sync and async alike.

The folder: three short specifications in the form numbered series write themselves (a
``Key: number`` header, a ``Title:`` field, the file name), split by the frameworks' own
splitters, ingested by their CAGE components into a link store.
"""

import asyncio

import pytest

pytestmark = pytest.mark.models  # MiniLM and the spaCy pipeline

from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_text_splitters import RecursiveCharacterTextSplitter

from cage_core.metadata import EXPANDED_FROM_KEY, EXPANDED_VIA_KEY
from cage_langchain import (
    CageExpansionRetriever,
    CageGraphTransformer,
    PackagedMiniLMEmbeddings,
    ScoredVectorStoreRetriever,
)

SPECS = {
    "specs/xsp-0007.txt": (
        "XSP: 7\nTitle: Session Resumption Tickets\n\n"
        "A client that lost its connection resumes the session by presenting a ticket. "
        "The ticket is encrypted with the key schedule defined in XSP 12, so a server that "
        "issued it can read it back without keeping state for every client.\n\n"
        "Servers rotate ticket keys daily and reject tickets older than seven days."
    ),
    "specs/xsp-0012.txt": (
        "XSP: 12\nTitle: Key Schedule\n\n"
        "Every secret of a session is derived from one master secret by the expand-label "
        "function with a distinct label per purpose.\n\n"
        "Ticket encryption keys are derived with the label 'ticket key' and a 96-bit nonce, "
        "and a server keeps at most two ticket keys at once."
    ),
    "specs/xsp-0031.txt": (
        "XSP: 31\nTitle: Record Padding\n\n"
        "Records may be padded with zero bytes to hide their true length from an observer.\n\n"
        "Padding policy is left to the implementation."
    ),
}
TITLED_SPECS = {
    **SPECS,
    "specs/xsp-0007.txt": SPECS["specs/xsp-0007.txt"].replace(
        "defined in XSP 12", "that the key schedule defines"
    ),
}
"""The same folder, its first file citing the key schedule by title, not by number."""
QUESTION = "How does a client resume a session after losing its connection?"
CITED_ANSWER = "Every secret of a session is derived from one master secret"


def langchain_folder(specs, path):
    """``specs`` split by LangChain's splitter, ingested into the link store ``path``: the
    store's top-1 retriever and the store."""
    splitter = RecursiveCharacterTextSplitter(chunk_size=200, chunk_overlap=0, add_start_index=True)
    chunks = splitter.split_documents(
        [Document(text, metadata={"source": source}) for source, text in specs.items()]
    )
    docs = CageGraphTransformer(link_index=path).transform_documents(chunks)
    store = InMemoryVectorStore.from_documents(docs, PackagedMiniLMEmbeddings())
    return ScoredVectorStoreRetriever(vectorstore=store, k=1), store


def llamaindex_folder(specs, path):
    """``specs`` split by LlamaIndex's splitter, ingested into the link store ``path``: the
    ``VectorStoreIndex``."""
    from llama_index.core import VectorStoreIndex
    from llama_index.core.node_parser import SentenceSplitter
    from llama_index.core.schema import Document as LlamaDocument

    from cage_llamaindex import CageGraphExtractor, PackagedMiniLMEmbedding

    documents = [
        LlamaDocument(text=text, metadata={"file_path": source}) for source, text in specs.items()
    ]
    nodes = SentenceSplitter(chunk_size=128, chunk_overlap=0).get_nodes_from_documents(documents)
    nodes = CageGraphExtractor(link_index=path)(nodes)
    return VectorStoreIndex(nodes, embed_model=PackagedMiniLMEmbedding())


@pytest.fixture(scope="module")
def langchain_pool(tmp_path_factory):
    path = tmp_path_factory.mktemp("cites") / "links.sqlite"
    base, store = langchain_folder(SPECS, path)
    return base, store, path


def test_a_chunk_citing_another_document_by_its_identifier_brings_its_best_chunk(langchain_pool):
    base, store, path = langchain_pool
    (seed,) = base.invoke(QUESTION)
    assert "defined in XSP 12" in seed.page_content
    retriever = CageExpansionRetriever(
        base_retriever=base, vectorstore=store, link_index=path, siblings=0, limit=0
    )
    pool = retriever.invoke(QUESTION)
    cited = [d for d in pool if d.metadata.get(EXPANDED_VIA_KEY, "").startswith("cites ")]
    assert len(cited) == 1
    assert CITED_ANSWER in cited[0].page_content
    assert cited[0].metadata[EXPANDED_VIA_KEY] == "cites XSP 12: Key Schedule"
    assert cited[0].metadata[EXPANDED_FROM_KEY] == seed.id
    assert asyncio.run(retriever.ainvoke(QUESTION)) == pool


def test_citations_are_not_followed_when_cited_is_zero(langchain_pool):
    base, store, path = langchain_pool
    retriever = CageExpansionRetriever(
        base_retriever=base, vectorstore=store, link_index=path, siblings=0, limit=0, cited=0
    )
    assert retriever.invoke(QUESTION) == base.invoke(QUESTION)


def test_llamaindex_follows_the_same_citation(tmp_path):
    from cage_llamaindex import CageExpansionRetriever as LlamaExpansion

    index = llamaindex_folder(SPECS, tmp_path / "links.sqlite")
    retriever = LlamaExpansion(
        index.as_retriever(similarity_top_k=1),
        index,
        tmp_path / "links.sqlite",
        siblings=0,
        limit=0,
    )
    pool = retriever.retrieve(QUESTION)
    cited = [n for n in pool if n.node.metadata.get(EXPANDED_VIA_KEY, "").startswith("cites ")]
    assert [n.node.metadata[EXPANDED_VIA_KEY] for n in cited] == ["cites XSP 12: Key Schedule"]
    assert CITED_ANSWER in cited[0].node.get_content()
    assert [n.node.node_id for n in asyncio.run(retriever.aretrieve(QUESTION))] == [
        n.node.node_id for n in pool
    ]


def test_a_chunk_citing_another_document_by_its_title_brings_its_best_chunk(tmp_path):
    base, store = langchain_folder(TITLED_SPECS, tmp_path / "links.sqlite")
    (seed,) = base.invoke(QUESTION)
    assert "that the key schedule defines" in seed.page_content
    retriever = CageExpansionRetriever(
        base_retriever=base, vectorstore=store, link_index=tmp_path / "links.sqlite", limit=0
    )
    pool = retriever.invoke(QUESTION)
    cited = [d for d in pool if d.metadata.get(EXPANDED_VIA_KEY, "").startswith("cites ")]
    assert [d.metadata[EXPANDED_VIA_KEY] for d in cited] == ["cites XSP 12: Key Schedule"]
    assert CITED_ANSWER in cited[0].page_content


def test_llamaindex_follows_a_citation_by_title(tmp_path):
    from cage_llamaindex import CageExpansionRetriever as LlamaExpansion

    index = llamaindex_folder(TITLED_SPECS, tmp_path / "links.sqlite")
    retriever = LlamaExpansion(
        index.as_retriever(similarity_top_k=1), index, tmp_path / "links.sqlite", limit=0
    )
    pool = retriever.retrieve(QUESTION)
    cited = [n for n in pool if n.node.metadata.get(EXPANDED_VIA_KEY, "").startswith("cites ")]
    assert [n.node.metadata[EXPANDED_VIA_KEY] for n in cited] == ["cites XSP 12: Key Schedule"]
    assert CITED_ANSWER in cited[0].node.get_content()
