"""One question over the README's sample folder scores the same through the LlamaIndex path
over every vector store: ``CageRerank(index=...)`` reads the cosine of the stored vectors, and
``CageExpansionRetriever`` hands on cosines so that ``CageRerank()`` behind it needs no
``index=``, whatever the store's own scale (SimpleVectorStore: the cosine; Chroma:
exp(−distance); FAISS: the faiss index's distance or inner product; Qdrant: its score). The
plain ``CageRerank()`` over scores it cannot know to be cosines says so once.

Real stores (Chroma in process, faiss-cpu, Qdrant local mode), real MiniLM; the embedding
model counts the texts it embeds (a subclass of the packaged one).
"""

import logging
import math
from pathlib import Path

import pytest

pytestmark = pytest.mark.models  # every test here loads MiniLM or the spaCy pipeline

chromadb = pytest.importorskip("chromadb")
faiss = pytest.importorskip("faiss")
pytest.importorskip("qdrant_client")
pytest.importorskip("llama_index.vector_stores.chroma")
pytest.importorskip("llama_index.vector_stores.faiss")
pytest.importorskip("llama_index.vector_stores.qdrant")

from llama_index.core import SimpleDirectoryReader, StorageContext, VectorStoreIndex
from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.schema import NodeWithScore
from llama_index.vector_stores.chroma import ChromaVectorStore
from llama_index.vector_stores.faiss import FaissVectorStore
from llama_index.vector_stores.qdrant import QdrantVectorStore
from qdrant_client import QdrantClient

from cage_llamaindex import (
    CageExpansionRetriever,
    CageGraphExtractor,
    CageRerank,
    PackagedMiniLMEmbedding,
)

FOLDER = Path(__file__).resolve().parents[2] / "docs" / "examples" / "sample_docs"
QUESTION = "Which river flows through the city where Marie Curie was born?"
K = 4
DIMENSIONS = 384  # all-MiniLM-L6-v2
EMBEDDED: list[str] = []


class CountingEmbedding(PackagedMiniLMEmbedding):
    """The packaged MiniLM, counting the node texts it embeds."""

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        EMBEDDED.extend(texts)
        return super()._get_text_embeddings(texts)


def _client():
    from chromadb.config import Settings

    return chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))


STORES = {
    "simple": lambda: None,
    "chroma-default": lambda: ChromaVectorStore(
        chroma_collection=_client().create_collection("li-scale-default")
    ),
    "chroma-cosine": lambda: ChromaVectorStore(
        chroma_collection=_client().create_collection(
            "li-scale-cosine", metadata={"hnsw:space": "cosine"}
        )
    ),
    "faiss-l2": lambda: FaissVectorStore(faiss_index=faiss.IndexFlatL2(DIMENSIONS)),
    "faiss-inner-product": lambda: FaissVectorStore(faiss_index=faiss.IndexFlatIP(DIMENSIONS)),
    "qdrant-local": lambda: QdrantVectorStore(
        client=QdrantClient(":memory:"), collection_name="li-scale"
    ),
}


@pytest.fixture(scope="module")
def links(tmp_path_factory):
    return tmp_path_factory.mktemp("li-scale") / "links.sqlite"


@pytest.fixture(scope="module")
def nodes(links):
    """The sample folder as docs/llamaindex.md's pipeline splits and enriches it."""
    docs = SimpleDirectoryReader(str(FOLDER)).load_data()
    splitter = SentenceSplitter(chunk_size=256, chunk_overlap=0)
    return CageGraphExtractor(link_index=links)(splitter.get_nodes_from_documents(docs))


@pytest.fixture(scope="module")
def indexes(nodes):
    built = {}
    for name, make in STORES.items():
        store = make()
        context = StorageContext.from_defaults(vector_store=store) if store else None
        built[name] = VectorStoreIndex(
            nodes, storage_context=context, embed_model=CountingEmbedding()
        )
    return built


def _reranked_with_the_index(index):
    retrieved = index.as_retriever(similarity_top_k=K).retrieve(QUESTION)
    return retrieved, CageRerank(top_n=3, index=index).postprocess_nodes(
        retrieved, query_str=QUESTION
    )


def _expanded(index, links):
    """The best node, then the node it links to (the sample folder's four files are all in a
    top 4: a top 1 leaves the expansion something to add)."""
    base = index.as_retriever(similarity_top_k=1)
    return CageExpansionRetriever(base, index, links).retrieve(QUESTION)


def test_the_stores_really_report_other_scales(indexes):
    """The premise: the same top node scores differently on each store's own scale."""
    top = {
        name: index.as_retriever(similarity_top_k=K).retrieve(QUESTION)[0].score
        for name, index in indexes.items()
    }
    cosine = top["simple"]
    assert 0.4 < cosine < 0.9
    assert top["qdrant-local"] == pytest.approx(cosine, abs=1e-5)
    assert top["faiss-inner-product"] == pytest.approx(cosine, abs=1e-5)  # unit vectors
    assert top["faiss-l2"] == pytest.approx(2 - 2 * cosine, abs=1e-5)  # a distance
    assert top["chroma-default"] == pytest.approx(math.exp(2 * cosine - 2))
    assert top["chroma-cosine"] == pytest.approx(math.exp(cosine - 1))


@pytest.mark.parametrize("name", sorted(STORES))
def test_with_the_index_the_top_score_is_the_same_over_every_store(name, indexes):
    reference, top = _reranked_with_the_index(indexes["simple"])
    EMBEDDED.clear()
    retrieved, reranked = _reranked_with_the_index(indexes[name])
    assert EMBEDDED == []  # every node's vector was read from the store
    assert [n.node.node_id for n in retrieved] == [n.node.node_id for n in reference]
    assert [n.node.node_id for n in reranked] == [n.node.node_id for n in top]
    assert reranked[0].score == pytest.approx(top[0].score, abs=0.02)
    assert reranked[0].score >= 0.5  # the on-topic answer passes the documented cutoff


@pytest.mark.parametrize("name", sorted(STORES))
def test_behind_the_expansion_retriever_the_pool_carries_cosines_and_needs_no_index(
    name, indexes, links, caplog
):
    reference = _expanded(indexes["simple"], links)
    EMBEDDED.clear()
    pool = _expanded(indexes[name], links)
    assert EMBEDDED == []  # the pool's vectors, added nodes included, were read from the store
    assert [n.node.metadata.get("cage_expanded_via") for n in pool] == [None, "warsaw"]
    assert {n.node.node_id: n.score for n in pool} == pytest.approx(
        {n.node.node_id: n.score for n in reference}, abs=1e-5
    )
    assert all(n.node.metadata["cage_cosine"] == n.score for n in pool)
    assert "cage_cosine" in pool[0].node.excluded_llm_metadata_keys
    top = CageRerank(top_n=3).postprocess_nodes(reference, query_str=QUESTION)
    with caplog.at_level(logging.WARNING, logger="cage_llamaindex"):
        reranked = CageRerank(top_n=3).postprocess_nodes(pool, query_str=QUESTION)
    assert caplog.records == []  # the cosines are known: nothing to warn about
    assert reranked[0].score == pytest.approx(top[0].score, abs=0.02)
    assert reranked[0].score >= 0.5


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("chroma-default", "nothing says they are"),  # exp(−distance) in (0, 1]: read, and said so
        ("chroma-cosine", "nothing says they are"),
        ("faiss-l2", "leave [-1, 1]"),  # a distance is never read: the pool is embedded
    ],
)
def test_the_plain_rerank_over_a_non_cosine_store_says_so_once(name, why, indexes, caplog):
    retrieved = indexes[name].as_retriever(similarity_top_k=K).retrieve(QUESTION)
    rerank = CageRerank(top_n=3)
    with caplog.at_level(logging.WARNING, logger="cage_llamaindex"):
        rerank.postprocess_nodes(retrieved, query_str=QUESTION)
        rerank.postprocess_nodes(retrieved, query_str=QUESTION)
    (said,) = [r.getMessage() for r in caplog.records]
    assert why in said and "CageRerank(index=index)" in said


def test_distances_inside_minus_one_one_are_told_by_their_rising_order(indexes, caplog):
    """FAISS's squared L2 distances of close unit vectors stay below 1 (here a quarter of the
    sample's): best first, they rise, which cosines never do; they are not read."""
    retrieved = indexes["faiss-l2"].as_retriever(similarity_top_k=K).retrieve(QUESTION)
    close = [NodeWithScore(node=n.node, score=n.score / 4) for n in retrieved]
    assert all(0 <= n.score < 1 for n in close)
    with caplog.at_level(logging.WARNING, logger="cage_llamaindex"):
        out = CageRerank(top_n=None).postprocess_nodes(close, query_str=QUESTION)
    (said,) = [r.getMessage() for r in caplog.records]
    assert "rise from the first node to the last" in said
    read = {n.node.node_id: n.score for n in close}
    assert all(n.node.metadata["cage_similarity"] != read[n.node.node_id] for n in out)


def test_scores_declared_cosines_are_read_quietly(indexes, caplog):
    retrieved = indexes["simple"].as_retriever(similarity_top_k=K).retrieve(QUESTION)
    with caplog.at_level(logging.WARNING, logger="cage_llamaindex"):
        out = CageRerank(top_n=3, similarity_source="score").postprocess_nodes(
            retrieved, query_str=QUESTION
        )
    assert caplog.records == []
    assert out[0].node.metadata["cage_similarity"] == pytest.approx(retrieved[0].score)
