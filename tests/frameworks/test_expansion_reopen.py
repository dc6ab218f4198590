"""Issue 46, the fault trial: a ``CageExpansionRetriever`` built from a link store's path
keeps serving after the store is swapped (another file renamed over it) or deleted and
restored: the next query reads the file now at the path, in LangChain and in LlamaIndex, through
their public API only. While no file is at the path, a query is a clear ``StoreFileChanged``."""

from __future__ import annotations

import os
import shutil

import pytest

pytestmark = pytest.mark.models  # the vector stores embed with the packaged MiniLM

from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore
from llama_index.core import VectorStoreIndex
from llama_index.core.schema import TextNode

from cage_core.expansion.index import LinkEntry, LinkIndex
from cage_core.names.forms import normal_name
from cage_core.stores.files import StoreFileChanged
from cage_langchain import CageExpansionRetriever as LangChainExpansion
from cage_langchain import PackagedMiniLMEmbeddings, ScoredVectorStoreRetriever
from cage_llamaindex import CageExpansionRetriever as LlamaIndexExpansion
from cage_llamaindex import PackagedMiniLMEmbedding

TEXTS = {
    "film": "Kiss and Tell is a 1945 comedy film starring Corliss Archer as a teenage girl.",
    "actress": "Shirley Temple played Corliss Archer; she later served as a diplomat.",
    "novel": "Corliss Archer first appeared in stories by the writer F. Hugh Herbert.",
}
QUERY = "Which comedy film of 1945 starred Corliss Archer?"


def _store(path, linked: str):
    """A link store in which the film's passage mentions the subject of ``linked``."""
    subjects = {"film": "Kiss and Tell", "actress": "Shirley Temple", "novel": "F. Hugh Herbert"}
    entries = [
        LinkEntry(
            pid,
            subject,
            (normal_name(subject),),
            (normal_name(subjects[linked]),) if pid == "film" else (),
        )
        for pid, subject in subjects.items()
    ]
    with LinkIndex.open(path, create=True) as index:
        index.add_entries(entries)
    return path


def _langchain(path):
    store = InMemoryVectorStore(PackagedMiniLMEmbeddings())
    store.add_documents([Document(page_content=t, id=i) for i, t in TEXTS.items()])
    base = ScoredVectorStoreRetriever(vectorstore=store, k=1)
    retriever = LangChainExpansion(base_retriever=base, vectorstore=store, link_index=str(path))
    return lambda: [d.id for d in retriever.invoke(QUERY)]


def _llamaindex(path):
    nodes = [TextNode(text=t, id_=i) for i, t in TEXTS.items()]
    index = VectorStoreIndex(nodes, embed_model=PackagedMiniLMEmbedding())
    retriever = LlamaIndexExpansion(index.as_retriever(similarity_top_k=1), index, str(path))
    return lambda: [n.node.node_id for n in retriever.retrieve(QUERY)]


FRAMEWORKS = {"langchain": _langchain, "llamaindex": _llamaindex}


@pytest.mark.parametrize("framework", sorted(FRAMEWORKS))
def test_the_retriever_reads_the_store_swapped_in_at_its_path(tmp_path, framework):
    live = _store(tmp_path / "links.sqlite", linked="actress")
    query = FRAMEWORKS[framework](live)
    assert query() == ["film", "actress"]
    os.replace(_store(tmp_path / "rebuilt.sqlite", linked="novel"), live)
    assert query() == ["film", "novel"]  # the rebuilt store's link, no StoreFileChanged
    assert query() == ["film", "novel"]


@pytest.mark.parametrize("framework", sorted(FRAMEWORKS))
def test_the_retriever_fails_while_its_store_is_deleted_and_serves_once_restored(
    tmp_path, framework
):
    live = _store(tmp_path / "links.sqlite", linked="actress")
    backup = shutil.copy(live, tmp_path / "backup.sqlite")
    query = FRAMEWORKS[framework](live)
    assert query() == ["film", "actress"]
    live.unlink()
    with pytest.raises(StoreFileChanged, match="deleted while open"):
        query()
    shutil.copy(backup, live)
    assert query() == ["film", "actress"]
