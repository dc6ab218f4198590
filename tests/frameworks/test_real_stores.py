"""CAGE over real vector stores: ingest with the graph transformer/extractor, persist, reload,
query, and check that stored graphs are used (0 parses) and rank exactly like a fresh parse.

Chroma runs embedded (in process, no server); FAISS is faiss-cpu. Both are test dependencies.
"""

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.models  # every test here loads the spaCy pipeline or MiniLM

chromadb = pytest.importorskip("chromadb")
pytest.importorskip("faiss")

from langchain_classic.retrievers import ContextualCompressionRetriever
from langchain_core.documents import Document

from cage_langchain import (
    CageGraphTransformer,
    CageRerank,
    PackagedMiniLMEmbeddings,
    ScoredVectorStoreRetriever,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "data" / "wiki_passages.jsonl"
ROWS = [json.loads(line) for line in EXAMPLES.read_text(encoding="utf-8").splitlines()][:16]
QUERY = (
    "What government position was held by the woman who portrayed Corliss Archer in Kiss and Tell?"
)
K, TOP_N = 10, 5


@pytest.fixture(scope="module")
def embeddings():
    return PackagedMiniLMEmbeddings()


@pytest.fixture(scope="module")
def enriched():
    docs = [
        Document(page_content=r["text"], metadata={"title": r["title"]}, id=f"d{i}")
        for i, r in enumerate(ROWS)
    ]
    return CageGraphTransformer().transform_documents(docs)


def _no_telemetry():
    from chromadb.config import Settings

    return Settings(anonymized_telemetry=False)


def _fresh_parse_ranking(retrieved):
    """The same retrieved documents, graphs stripped, reranked by a new CageRerank."""
    plain = [
        Document(
            page_content=d.page_content,
            id=d.id,
            metadata={k: v for k, v in d.metadata.items() if k != "cage_graph"},
        )
        for d in retrieved
    ]
    rerank = CageRerank(top_n=TOP_N)
    out = rerank.compress_documents(plain, QUERY)
    assert rerank.reranker.parse_count == len(plain)
    return [(d.page_content, d.metadata["relevance_score"]) for d in out]


def _check_langchain(store):
    base = ScoredVectorStoreRetriever(vectorstore=store, k=K)
    rerank = CageRerank(top_n=TOP_N)
    out = ContextualCompressionRetriever(base_compressor=rerank, base_retriever=base).invoke(QUERY)
    assert len(out) == TOP_N and rerank.reranker.parse_count == 0
    assert [(d.page_content, d.metadata["relevance_score"]) for d in out] == _fresh_parse_ranking(
        base.invoke(QUERY)
    )
    return out


def test_langchain_chroma_persist_reload_rerank(tmp_path, embeddings, enriched):
    from langchain_chroma import Chroma

    Chroma.from_documents(
        enriched,
        embeddings,
        collection_name="cage",
        persist_directory=str(tmp_path),
        client_settings=_no_telemetry(),
    )
    reloaded = Chroma(
        collection_name="cage",
        embedding_function=embeddings,
        persist_directory=str(tmp_path),
        client_settings=_no_telemetry(),
    )
    out = _check_langchain(reloaded)
    assert out[0].metadata["title"] == "Kiss and Tell (1945 film)"


def test_langchain_faiss_persist_reload_rerank(tmp_path, embeddings, enriched):
    from langchain_community.vectorstores import FAISS

    FAISS.from_documents(enriched, embeddings).save_local(str(tmp_path))
    reloaded = FAISS.load_local(str(tmp_path), embeddings, allow_dangerous_deserialization=True)
    scores = [
        d.metadata["retrieval_score"]
        for d in ScoredVectorStoreRetriever(vectorstore=reloaded, k=K).invoke(QUERY)
    ]
    assert all(isinstance(s, float) for s in scores)  # numpy.float32 from FAISS, handed on as float
    _check_langchain(reloaded)


def test_llamaindex_chroma_persist_reload_query_engine(tmp_path):
    from llama_index.core import StorageContext, VectorStoreIndex
    from llama_index.core.ingestion import IngestionPipeline
    from llama_index.core.llms import MockLLM
    from llama_index.core.schema import NodeWithScore, TextNode
    from llama_index.vector_stores.chroma import ChromaVectorStore

    from cage_llamaindex import CageGraphExtractor, CageRerank, PackagedMiniLMEmbedding

    embed_model = PackagedMiniLMEmbedding()
    nodes = [
        TextNode(text=r["text"], id_=f"n{i}", metadata={"title": r["title"]})
        for i, r in enumerate(ROWS)
    ]
    nodes = IngestionPipeline(transformations=[CageGraphExtractor()]).run(nodes=nodes)
    client = chromadb.PersistentClient(path=str(tmp_path), settings=_no_telemetry())
    store = ChromaVectorStore(chroma_collection=client.get_or_create_collection("cage"))
    VectorStoreIndex(
        nodes,
        storage_context=StorageContext.from_defaults(vector_store=store),
        embed_model=embed_model,
    )
    del client, store

    client = chromadb.PersistentClient(path=str(tmp_path), settings=_no_telemetry())
    index = VectorStoreIndex.from_vector_store(
        ChromaVectorStore(chroma_collection=client.get_collection("cage")), embed_model=embed_model
    )
    rerank = CageRerank(top_n=TOP_N)
    engine = index.as_query_engine(similarity_top_k=K, node_postprocessors=[rerank], llm=MockLLM())
    sources = engine.query(QUERY).source_nodes
    assert len(sources) == TOP_N and rerank.reranker.parse_count == 0

    retrieved = index.as_retriever(similarity_top_k=K).retrieve(QUERY)
    plain = [
        NodeWithScore(
            node=TextNode(
                text=n.node.get_content(),
                id_=n.node.node_id,
                metadata={"title": n.node.metadata["title"]},
            ),
            score=n.score,
        )
        for n in retrieved
    ]
    fresh = CageRerank(top_n=TOP_N)
    expected = fresh.postprocess_nodes(plain, query_str=QUERY)
    assert fresh.reranker.parse_count == K
    assert [(n.node.node_id, n.score) for n in sources] == [
        (n.node.node_id, n.score) for n in expected
    ]


def test_async_retrieval_from_chroma_matches_sync(tmp_path, embeddings, enriched):
    import asyncio

    from langchain_chroma import Chroma

    store = Chroma.from_documents(
        enriched, embeddings, collection_name="cage", client_settings=_no_telemetry()
    )
    retriever = ContextualCompressionRetriever(
        base_compressor=CageRerank(top_n=TOP_N),
        base_retriever=ScoredVectorStoreRetriever(vectorstore=store, k=K),
    )
    assert asyncio.run(retriever.ainvoke(QUERY)) == retriever.invoke(QUERY)


# -- keyed integrity of stored graphs (cage_core.graphs.integrity) ------------------------------
KEY = "a secret the store's other writers do not know"


def _forge(store, victim_title, donor_title):
    """Rewrite the victim's stored graph in Chroma: the donor's entities under the victim's
    content hash (what anyone who can write the store can do), keeping the victim's text."""
    from cage_core.graphs.passage_graph import PassageGraph, content_hash
    from cage_core.passage import Passage

    everything = store.get(include=["documents", "metadatas"])
    rows = dict(zip(everything["ids"], zip(everything["documents"], everything["metadatas"])))
    victim = next(i for i, (_, m) in rows.items() if m["title"] == victim_title)
    donor = next(m for _, m in rows.values() if m["title"] == donor_title)
    text, metadata = rows[victim]
    graph = PassageGraph.from_stored(donor["cage_graph"])
    forged = graph.__class__(
        **{
            **graph.__dict__,
            "content_sha": content_hash(Passage(text, metadata["title"]).content),
        }
    )
    store.update_document(
        victim,
        Document(
            page_content=text, id=victim, metadata={**metadata, "cage_graph": forged.to_text()}
        ),
    )
    return victim


def test_with_an_integrity_key_a_forged_graph_is_ignored_with_one_warning(embeddings, caplog):
    from langchain_chroma import Chroma

    docs = [
        Document(page_content=r["text"], metadata={"title": r["title"]}, id=f"d{i}")
        for i, r in enumerate(ROWS)
    ]
    signed = CageGraphTransformer(integrity_key=KEY).transform_documents(docs)
    assert all('"mac":"' in d.metadata["cage_graph"] for d in signed)
    store = Chroma.from_documents(
        signed, embeddings, collection_name="signed", client_settings=_no_telemetry()
    )
    base = ScoredVectorStoreRetriever(vectorstore=store, k=K)
    retrieved = base.invoke(QUERY)
    victim = _forge(store, retrieved[-1].metadata["title"], "Kiss and Tell (1945 film)")
    retrieved = base.invoke(QUERY)
    assert '"mac"' not in next(d for d in retrieved if d.id == victim).metadata["cage_graph"]

    trusting = CageRerank(top_n=None)  # no key: the forged graph passes the freshness check
    fooled = trusting.compress_documents(retrieved, QUERY)
    assert trusting.reranker.parse_count == 0
    caplog.clear()
    keyed = CageRerank(top_n=None, integrity_key=KEY)
    checked = keyed.compress_documents(retrieved, QUERY)
    assert keyed.reranker.parse_count == 1  # only the forged one is parsed again
    (record,) = [r for r in caplog.records if "ignoring" in r.getMessage()]
    assert (
        "ignoring 1 of 10 stored passage graphs (1 without a valid MAC under the integrity key)"
        in record.getMessage()
    )
    honest = [(d.page_content, d.metadata["cage_score"]) for d in checked]
    assert honest == [(d.page_content, d.metadata["cage_score"]) for d in _fresh(retrieved)]
    assert [(d.page_content, d.metadata["cage_score"]) for d in fooled] != honest


def test_a_graph_signed_under_another_key_or_unsigned_is_refused(embeddings):
    docs = [
        Document(page_content=r["text"], metadata={"title": r["title"]}, id=f"d{i}")
        for i, r in enumerate(ROWS[:3])
    ]
    other = CageGraphTransformer(integrity_key="another key").transform_documents(docs)
    plain = CageGraphTransformer().transform_documents(docs)
    for stored in (other, plain):
        rerank = CageRerank(top_n=None, integrity_key=KEY)
        rerank.compress_documents(
            [
                Document(
                    page_content=d.page_content, metadata={**d.metadata, "retrieval_score": 0.5}
                )
                for d in stored
            ],
            QUERY,
        )
        assert rerank.reranker.parse_count == 3
    # without a key, signed graphs are read like any other (the MAC is one more JSON key)
    rerank = CageRerank(top_n=None)
    rerank.compress_documents(
        [
            Document(page_content=d.page_content, metadata={**d.metadata, "retrieval_score": 0.5})
            for d in other
        ],
        QUERY,
    )
    assert rerank.reranker.parse_count == 0


def _fresh(retrieved):
    plain = [
        Document(
            page_content=d.page_content,
            id=d.id,
            metadata={k: v for k, v in d.metadata.items() if k != "cage_graph"},
        )
        for d in retrieved
    ]
    return CageRerank(top_n=None).compress_documents(plain, QUERY)
