"""One question over the README's sample folder scores the same over every vector store: the
similarity CAGE reads is the cosine of the stored vectors, whatever the store's relevance scale
(cage_langchain.retriever.cosine_search, cage_langchain.store_relevance), and the docs' Chroma
pipeline prints its answers at the 0.5 cutoff.

Real stores (Chroma in process, faiss-cpu, Qdrant local mode), real MiniLM.
"""

import logging
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.models  # every test here loads MiniLM or the spaCy pipeline

chromadb = pytest.importorskip("chromadb")
pytest.importorskip("faiss")
pytest.importorskip("qdrant_client")

from langchain_chroma import Chroma
from langchain_community.vectorstores import FAISS
from langchain_community.vectorstores.utils import DistanceStrategy
from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_qdrant import QdrantVectorStore
from langchain_text_splitters import RecursiveCharacterTextSplitter

import cage_core.integrations.vector_reads as vector_reads
from cage_langchain import (
    CageGraphTransformer,
    CageRerank,
    PackagedMiniLMEmbeddings,
    ScoredVectorStoreRetriever,
)
from cage_langchain.ids import stored_id
from cage_langchain.store_relevance import StoreRelevance

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "docs" / "examples" / "sample_docs"
QUESTION = "Which river flows through the city where Marie Curie was born?"
K = 4


@pytest.fixture(scope="module")
def embeddings():
    return PackagedMiniLMEmbeddings()


@pytest.fixture(scope="module")
def chunks():
    """The sample folder as the README's quickstart splits and enriches it."""
    docs = [
        Document(page_content=p.read_text(encoding="utf-8"), metadata={"source": p.name})
        for p in sorted(FOLDER.glob("*.*"))
    ]
    splitter = RecursiveCharacterTextSplitter(chunk_size=500, chunk_overlap=0, add_start_index=True)
    return CageGraphTransformer().transform_documents(splitter.split_documents(docs))


def _client():
    from chromadb.config import Settings

    return chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))


STORES = {
    "in-memory": lambda c, e: InMemoryVectorStore.from_documents(c, e),
    "chroma-default": lambda c, e: Chroma.from_documents(
        c, e, client=_client(), collection_name="scale-default"
    ),
    "chroma-cosine": lambda c, e: Chroma.from_documents(
        c,
        e,
        client=_client(),
        collection_name="scale-cosine",
        collection_metadata={"hnsw:space": "cosine"},
    ),
    "chroma-ip": lambda c, e: Chroma.from_documents(
        c, e, client=_client(), collection_name="scale-ip", collection_metadata={"hnsw:space": "ip"}
    ),
    "faiss-l2": lambda c, e: FAISS.from_documents(c, e),
    "faiss-inner-product": lambda c, e: FAISS.from_documents(
        c, e, distance_strategy=DistanceStrategy.MAX_INNER_PRODUCT
    ),
    "qdrant-local": lambda c, e: QdrantVectorStore.from_documents(
        c, e, location=":memory:", collection_name="scale"
    ),
}


@pytest.fixture(scope="module")
def reference(chunks, embeddings):
    """The question's top passages and relevance over InMemoryVectorStore (its score is the
    cosine itself)."""
    return _scored(InMemoryVectorStore.from_documents(chunks, embeddings))


def _scored(store):
    retrieved = ScoredVectorStoreRetriever(vectorstore=store, k=K).invoke(QUESTION)
    reranked = CageRerank(top_n=3).compress_documents(retrieved, QUESTION)
    return retrieved, reranked


@pytest.mark.parametrize("name", sorted(STORES))
def test_one_question_gets_the_same_scores_over_every_store(name, chunks, embeddings, reference):
    store = STORES[name](chunks, embeddings)
    retrieved, reranked = _scored(store)
    base, top = reference
    assert [d.page_content for d in retrieved] == [d.page_content for d in base]
    assert [d.metadata["retrieval_score"] for d in retrieved] == pytest.approx(
        [d.metadata["retrieval_score"] for d in base], abs=1e-5
    )
    assert reranked[0].metadata["relevance_score"] == pytest.approx(
        top[0].metadata["relevance_score"], abs=0.02
    )
    assert reranked[0].metadata["relevance_score"] >= 0.5  # the on-topic answer passes
    # the expansion's added passages are scored on the same scale (a search restricted to ids)
    ids = [stored_id(d, "title") for d in retrieved]
    assert [StoreRelevance(store)(QUESTION, ids)[i] for i in ids] == pytest.approx(
        [d.metadata["retrieval_score"] for d in base], abs=1e-5
    )


def test_a_store_whose_vectors_cannot_be_read_keeps_its_scale_and_says_so_once(
    chunks, embeddings, monkeypatch, caplog
):
    """FAISS built around a plain embedding function has no Embeddings to embed the query by
    vector: its own relevance scale is kept, and one warning says so."""
    monkeypatch.setattr(vector_reads, "_warned", set())
    built = FAISS.from_documents(chunks, embeddings)
    store = FAISS(embeddings.embed_query, built.index, built.docstore, built.index_to_docstore_id)
    retriever = ScoredVectorStoreRetriever(vectorstore=store, k=K)
    with caplog.at_level(logging.WARNING):
        first = retriever.invoke(QUESTION)
        retriever.invoke(QUESTION)
    said = [r for r in caplog.records if "own relevance scale" in r.getMessage()]
    assert len(said) == 1 and "FAISS: it has no LangChain Embeddings" in said[0].getMessage()
    relevance = store._select_relevance_score_fn()
    distances = dict(
        (d.page_content, s) for d, s in store.similarity_search_with_score(QUESTION, k=K)
    )
    assert [d.metadata["retrieval_score"] for d in first] == pytest.approx(
        [relevance(distances[d.page_content]) for d in first], abs=1e-6
    )


def test_the_docs_chroma_pipeline_prints_its_answers(monkeypatch, capsys):
    """docs/langchain.md's complete pipeline (Chroma, expansion, the 0.5 cutoff) prints the
    passages that answer its own question, Marie Curie's first."""
    from chromadb.api.shared_system_client import SharedSystemClient

    text = (ROOT / "docs" / "langchain.md").read_text(encoding="utf-8")
    section = text[text.index("## A complete pipeline") :]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert "Chroma.from_documents" in code and ">= 0.5" in code
    monkeypatch.chdir(ROOT)
    SharedSystemClient.clear_system_cache()
    try:
        exec(compile(code, "docs/langchain.md", "exec"), {"__name__": "__main__"})
    finally:
        SharedSystemClient.clear_system_cache()
    printed = capsys.readouterr().out.splitlines()
    assert printed, "the pipeline printed nothing"
    assert "marie_curie.md" in printed[0]
    assert all(float(line.split()[0]) >= 0.5 for line in printed)
