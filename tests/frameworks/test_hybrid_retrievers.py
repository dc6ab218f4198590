"""CageRerank behind the frameworks' hybrid retrievers over the README's sample folder:
LangChain's EnsembleRetriever(BM25 + dense) and LlamaIndex's QueryFusionRetriever(vector +
BM25). With the store (``vectorstore=``) or the index (``index=``) the similarities come from
the stored vectors, only what has none is embedded, and the top relevance_score is the plain
dense path's; without it a fusion value is never read as a similarity (one warning, the fix).

Real stores and retrievers (rank_bm25, bm25s), real MiniLM; the embeddings count what they
embed (subclasses of the packaged ones).
"""

import logging
from pathlib import Path

import pytest

pytestmark = pytest.mark.models  # every test here loads MiniLM or the spaCy pipeline

chromadb = pytest.importorskip("chromadb")
pytest.importorskip("rank_bm25")
pytest.importorskip("llama_index.retrievers.bm25")

from langchain_chroma import Chroma
from langchain_classic.retrievers import EnsembleRetriever
from langchain_community.retrievers import BM25Retriever
from langchain_core.documents import Document
from langchain_text_splitters import RecursiveCharacterTextSplitter
from llama_index.core import SimpleDirectoryReader, StorageContext, VectorStoreIndex
from llama_index.core.llms import MockLLM
from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.retrievers import QueryFusionRetriever
from llama_index.core.schema import NodeWithScore, TextNode
from llama_index.retrievers.bm25 import BM25Retriever as NodeBM25Retriever
from llama_index.vector_stores.chroma import ChromaVectorStore

from cage_langchain import (
    CageGraphTransformer,
    CageRerank,
    PackagedMiniLMEmbeddings,
    ScoredVectorStoreRetriever,
)
from cage_llamaindex import CageGraphExtractor, PackagedMiniLMEmbedding
from cage_llamaindex import CageRerank as NodeRerank

FOLDER = Path(__file__).resolve().parents[2] / "docs" / "examples" / "sample_docs"
QUESTION = "Which river flows through the city where Marie Curie was born?"
K = 5
OUTSIDE = "The Vistula is the longest river of Poland; it flows through Warsaw and Krakow."


class CountingEmbeddings(PackagedMiniLMEmbeddings):
    """The packaged MiniLM, counting the documents it embeds."""

    embedded: list[str] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        type(self).embedded.extend(texts)
        return super().embed_documents(texts)


class CountingEmbedding(PackagedMiniLMEmbedding):
    """The packaged MiniLM for LlamaIndex, counting the texts it embeds."""

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        EMBEDDED_NODES.extend(texts)
        return super()._get_text_embeddings(texts)


EMBEDDED_NODES: list[str] = []


def _client():
    from chromadb.config import Settings

    return chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))


# -- LangChain ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def chunks():
    docs = [
        Document(page_content=p.read_text(encoding="utf-8"), metadata={"source": p.name})
        for p in sorted(FOLDER.glob("*.*"))
    ]
    splitter = RecursiveCharacterTextSplitter(chunk_size=200, chunk_overlap=0, add_start_index=True)
    return CageGraphTransformer().transform_documents(splitter.split_documents(docs))


@pytest.fixture(scope="module")
def store(chunks):
    return Chroma.from_documents(
        chunks, CountingEmbeddings(), client=_client(), collection_name="hybrid-lc"
    )


def _top(docs):
    return docs[0].metadata["relevance_score"]


def test_behind_ensemble_retriever_the_store_vectors_give_the_dense_paths_score(store, chunks):
    ensemble = EnsembleRetriever(
        retrievers=[BM25Retriever.from_documents(chunks, k=K), store.as_retriever(k=K)]
    )
    pool = ensemble.invoke(QUESTION)
    assert not any("retrieval_score" in d.metadata for d in pool)  # the fusion keeps none
    CountingEmbeddings.embedded.clear()
    out = CageRerank(top_n=3, vectorstore=store).compress_documents(pool, QUESTION)
    assert CountingEmbeddings.embedded == []  # every passage's vector was read from the store
    dense = ScoredVectorStoreRetriever(vectorstore=store, k=K).invoke(QUESTION)
    plain = CageRerank(top_n=3).compress_documents(dense, QUESTION)
    assert _top(out) == pytest.approx(_top(plain), abs=0.02)
    assert _top(out) >= 0.5


def test_only_the_passage_the_store_does_not_hold_is_embedded(store, chunks):
    outside = Document(page_content=OUTSIDE, metadata={"source": "notes.txt"}, id="outside")
    ensemble = EnsembleRetriever(
        retrievers=[BM25Retriever.from_documents([*chunks, outside], k=K), store.as_retriever(k=K)]
    )
    pool = ensemble.invoke(QUESTION)
    assert OUTSIDE in [d.page_content for d in pool]
    CountingEmbeddings.embedded.clear()
    rerank = CageRerank(top_n=None, vectorstore=store)
    out = rerank.compress_documents(pool, QUESTION)
    assert CountingEmbeddings.embedded == [OUTSIDE]
    vector = store.embeddings.embed_query(QUESTION)
    own = store.embeddings.embed_documents([OUTSIDE])[0]
    cosine = sum(a * b for a, b in zip(vector, own))
    similarity = {d.page_content: d.metadata["cage_similarity"] for d in out}
    assert similarity[OUTSIDE] == pytest.approx(cosine, abs=1e-5)
    CountingEmbeddings.embedded.clear()
    rerank.compress_documents(pool, QUESTION)  # cached by content: embedded once per CageRerank
    assert CountingEmbeddings.embedded == []


def test_async_rerank_with_the_store_returns_what_sync_does(store, chunks):
    import asyncio

    pool = EnsembleRetriever(
        retrievers=[BM25Retriever.from_documents(chunks, k=K), store.as_retriever(k=K)]
    ).invoke(QUESTION)
    rerank = CageRerank(top_n=3, vectorstore=store)
    got = asyncio.run(rerank.acompress_documents(pool, QUESTION))
    assert [d.metadata for d in got] == [
        d.metadata for d in rerank.compress_documents(pool, QUESTION)
    ]


def test_fusion_values_as_retrieval_scores_are_not_read_and_the_fix_is_named(chunks, caplog):
    fused = [
        Document(
            page_content=d.page_content, id=d.id, metadata={**d.metadata, "retrieval_score": s}
        )
        for d, s in zip(chunks[:4], [1 / 60 + 1 / 61, 1 / 61, 1 / 62 + 1 / 60, 1 / 63])
    ]
    rerank = CageRerank(top_n=4, embeddings=PackagedMiniLMEmbeddings())
    with caplog.at_level(logging.WARNING):
        out = rerank.compress_documents(fused, QUESTION)
    said = [r.getMessage() for r in caplog.records if "reciprocal-rank-fusion" in r.getMessage()]
    assert len(said) == 1 and "vectorstore=" in said[0]
    assert max(d.metadata["cage_similarity"] for d in out) > 0.2  # cosines, not 0.03


def test_a_vectorstore_without_embeddings_is_refused_when_made(chunks):
    from langchain_community.vectorstores import FAISS

    built = FAISS.from_documents(chunks, PackagedMiniLMEmbeddings())
    plain = FAISS(lambda text: [0.0], built.index, built.docstore, built.index_to_docstore_id)
    with pytest.raises(ValueError, match="has no embeddings"):
        CageRerank(vectorstore=plain)


# -- LlamaIndex -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def nodes():
    docs = SimpleDirectoryReader(str(FOLDER)).load_data()
    splitter = SentenceSplitter(chunk_size=96, chunk_overlap=0)
    return CageGraphExtractor()(splitter.get_nodes_from_documents(docs))


@pytest.fixture(scope="module", params=["simple", "chroma"])
def index(request, nodes):
    if request.param == "simple":
        return VectorStoreIndex(nodes, embed_model=CountingEmbedding())
    store = ChromaVectorStore(chroma_collection=_client().create_collection("hybrid-li"))
    return VectorStoreIndex(
        nodes,
        storage_context=StorageContext.from_defaults(vector_store=store),
        embed_model=CountingEmbedding(),
    )


def _fusion(index, nodes):
    return QueryFusionRetriever(
        [
            index.as_retriever(similarity_top_k=K),
            NodeBM25Retriever.from_defaults(nodes=nodes, similarity_top_k=K),
        ],
        similarity_top_k=2 * K,
        num_queries=1,
        mode="reciprocal_rerank",
        llm=MockLLM(),
        use_async=False,
    )


def test_behind_query_fusion_retriever_the_index_vectors_give_the_dense_paths_score(index, nodes):
    fused = _fusion(index, nodes).retrieve(QUESTION)
    assert max(n.score for n in fused) < 0.034  # reciprocal-rank-fusion values
    EMBEDDED_NODES.clear()
    out = NodeRerank(top_n=3, index=index).postprocess_nodes(fused, query_str=QUESTION)
    assert EMBEDDED_NODES == []  # every node's vector was read from the index's store
    plain_index = VectorStoreIndex(nodes, embed_model=PackagedMiniLMEmbedding())
    dense = plain_index.as_retriever(similarity_top_k=K).retrieve(QUESTION)
    plain = NodeRerank(top_n=3).postprocess_nodes(dense, query_str=QUESTION)
    assert out[0].score == pytest.approx(plain[0].score, abs=0.02)
    assert out[0].score >= 0.5


def test_only_the_node_the_index_does_not_hold_is_embedded(index, nodes):
    fused = _fusion(index, nodes).retrieve(QUESTION)
    outside = NodeWithScore(node=TextNode(text=OUTSIDE, id_="outside"), score=0.01)
    EMBEDDED_NODES.clear()
    out = NodeRerank(top_n=None, index=index).postprocess_nodes(
        [*fused, outside], query_str=QUESTION
    )
    assert len(EMBEDDED_NODES) == 1 and OUTSIDE in EMBEDDED_NODES[0]
    assert "outside" in [n.node.node_id for n in out]


def test_fusion_values_are_not_read_without_the_index_and_the_fix_is_named(index, nodes, caplog):
    fused = _fusion(index, nodes).retrieve(QUESTION)
    rerank = NodeRerank(top_n=3)
    with caplog.at_level(logging.WARNING):
        out = rerank.postprocess_nodes(fused, query_str=QUESTION)
        rerank.postprocess_nodes(fused, query_str=QUESTION)
    said = [r.getMessage() for r in caplog.records if "reciprocal-rank-fusion" in r.getMessage()]
    assert len(said) == 1 and "index=" in said[0]
    assert max(n.node.metadata["cage_similarity"] for n in out) > 0.2  # cosines, not 0.03


def test_the_index_is_left_out_of_the_serialised_postprocessor(index):
    rerank = NodeRerank(top_n=3, index=index)
    assert "index" not in rerank.to_dict()
    assert NodeRerank.from_dict(rerank.to_dict()).index is None
