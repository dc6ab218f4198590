"""Routing through real LangChain stores: a question that names one of six similar contracts
brings in that contract's clause the retriever's top k lacked, by the store's own search
restricted to the contract, and CageRerank ranks it in the top 3; a question that names none
returns exactly what it returns without routing (cage_core.integrations.document_routing).

Stores: Chroma (persisted and reloaded), FAISS (saved and loaded), Qdrant local in memory,
InMemoryVectorStore. The contracts are split by LangChain's splitter, ingested by
CageGraphTransformer into a SQLite link store (tests/routing_contracts.py).
"""

import asyncio

import pytest

pytestmark = pytest.mark.models  # every test here loads the spaCy pipeline or MiniLM

chromadb = pytest.importorskip("chromadb")
pytest.importorskip("faiss")
pytest.importorskip("langchain_qdrant")

from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_text_splitters import RecursiveCharacterTextSplitter
from routing_contracts import (
    ANSWER,
    QUESTION,
    UNNAMED_QUESTION,
    add_records,
    chunk_id,
    texts,
    true_places,
)

from cage_core.expansion.index import LinkIndex
from cage_core.integrations import document_routing
from cage_core.integrations.document_routing import ROUTE_KEY, route_metadata
from cage_core.ranking.pool_bm25 import named_word_coverage
from cage_core.relevance import pool_relevance
from cage_langchain import (
    CageExpansionRetriever,
    CageGraphTransformer,
    CageRerank,
    PackagedMiniLMEmbeddings,
    ScoredVectorStoreRetriever,
)
from cage_langchain.ids import stored_id

K = 4
STORES = ["chroma", "faiss", "qdrant", "in_memory"]
PLACES = true_places()


@pytest.fixture(scope="module")
def embeddings():
    return PackagedMiniLMEmbeddings()


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    """The contracts split one paragraph a chunk, each chunk's id a UUID, enriched by the
    transformer, which wrote a SQLite link store (with the contracts' document records)."""
    splitter = RecursiveCharacterTextSplitter(chunk_size=200, chunk_overlap=0, add_start_index=True)
    chunks = splitter.split_documents(
        [Document(text, metadata={"source": source}) for source, text in texts().items()]
    )
    openings = {}
    for source in texts():
        mine = [c for c in chunks if c.metadata["source"] == source]
        openings[source] = mine[0].page_content
        for position, chunk in enumerate(mine):
            chunk.id = chunk_id(source, position)
    assert sorted(c.id for c in chunks) == sorted(PLACES)
    path = tmp_path_factory.mktemp("routing") / "links.sqlite"
    docs = CageGraphTransformer(link_index=path).transform_documents(chunks)
    with LinkIndex.open(path) as index:
        add_records(index, openings)
    return docs, path


def _no_telemetry():
    from chromadb.config import Settings

    return Settings(anonymized_telemetry=False)


def _store(kind, tmp_path, embeddings, docs):
    ids = [d.id for d in docs]
    if kind == "chroma":
        from langchain_chroma import Chroma

        Chroma.from_documents(
            docs,
            embeddings,
            ids=ids,
            collection_name="contracts",
            persist_directory=str(tmp_path),
            client_settings=_no_telemetry(),
        )
        return Chroma(
            collection_name="contracts",
            embedding_function=embeddings,
            persist_directory=str(tmp_path),
            client_settings=_no_telemetry(),
        )
    if kind == "faiss":
        from langchain_community.vectorstores import FAISS

        FAISS.from_documents(docs, embeddings, ids=ids).save_local(str(tmp_path))
        return FAISS.load_local(str(tmp_path), embeddings, allow_dangerous_deserialization=True)
    if kind == "qdrant":
        from langchain_qdrant import QdrantVectorStore
        from qdrant_client import QdrantClient, models

        client = QdrantClient(":memory:")
        client.create_collection(
            "contracts",
            vectors_config=models.VectorParams(size=384, distance=models.Distance.COSINE),
        )
        store = QdrantVectorStore(client, "contracts", embeddings)
        store.add_documents(docs, ids=ids)
        return store
    store = InMemoryVectorStore(embeddings)
    store.add_documents(docs)
    return store


def _place(doc):
    return PLACES[stored_id(doc, "title")]


def _retrievers(store, index):
    base = ScoredVectorStoreRetriever(vectorstore=store, k=K)
    routed = CageExpansionRetriever(base_retriever=base, vectorstore=store, link_index=index)
    plain = CageExpansionRetriever(
        base_retriever=base, vectorstore=store, link_index=index, routing=None
    )
    return base, routed, plain


def _view(docs):
    return [(_place(d), d.page_content, d.metadata) for d in docs]


@pytest.mark.parametrize("kind", STORES)
def test_a_question_naming_a_contract_brings_in_its_clause_and_ranks_it_top_3(
    kind, tmp_path, embeddings, ingested
):
    docs, index = ingested
    store = _store(kind, tmp_path, embeddings, docs)
    base, routed, plain = _retrievers(store, index)
    assert ANSWER not in [_place(d) for d in base.invoke(QUESTION)]
    assert ANSWER not in [_place(d) for d in plain.invoke(QUESTION)]

    route = routed.route(QUESTION)
    [named] = route.documents
    assert named.doc_id == ANSWER[0]
    out = routed.invoke(QUESTION)
    [answer] = [d for d in out if _place(d) == ANSWER]
    assert answer.metadata["cage_expanded_via"] == named.via
    assert answer.metadata["cage_named_document"] == ANSWER[0]
    assert isinstance(answer.metadata["retrieval_score"], float)
    assert all(d.metadata[ROUTE_KEY] == route_metadata(QUESTION, route) for d in out)
    assert all(isinstance(d.metadata["cage_route_score"], float) for d in out)
    # the routed chunks follow the retrieved and linked ones, each once
    assert len({_place(d) for d in out}) == len(out)
    first_routed = next(i for i, d in enumerate(out) if "cage_named_document" in d.metadata)
    assert all("cage_named_document" in d.metadata for d in out[first_routed:])

    ranked = CageRerank(top_n=3).compress_documents(out, QUESTION)
    assert ANSWER in [_place(d) for d in ranked]
    assert all(_place(d)[0] == ANSWER[0] for d in ranked)  # the named contract's passages first
    assert all(d.metadata["cage_expanded_via"] == named.via for d in ranked)

    again = asyncio.run(routed.ainvoke(QUESTION))
    assert [_place(d) for d in again] == [_place(d) for d in out]
    assert [d.metadata["cage_route_score"] for d in again] == pytest.approx(
        [d.metadata["cage_route_score"] for d in out]
    )
    if kind == "qdrant":
        store.client.close()


@pytest.mark.parametrize("kind", STORES)
def test_the_route_scores_are_the_stores_own_for_the_shortened_question(
    kind, tmp_path, embeddings, ingested
):
    docs, index = ingested
    store = _store(kind, tmp_path, embeddings, docs)
    _, routed, _ = _retrievers(store, index)
    out = routed.invoke(QUESTION)
    everything = ScoredVectorStoreRetriever(vectorstore=store, k=len(docs))
    full = {
        _place(d): d.metadata["retrieval_score"]
        for d in everything.invoke(routed.route(QUESTION).question)
    }
    assert [d.metadata["cage_route_score"] for d in out] == pytest.approx(
        [full[_place(d)] for d in out], abs=1e-6
    )
    if kind == "qdrant":
        store.client.close()


@pytest.mark.parametrize("kind", STORES)
def test_a_question_naming_no_contract_returns_exactly_todays_result(
    kind, tmp_path, embeddings, ingested
):
    docs, index = ingested
    store = _store(kind, tmp_path, embeddings, docs)
    _, routed, plain = _retrievers(store, index)
    assert not routed.route(UNNAMED_QUESTION)
    out, today = routed.invoke(UNNAMED_QUESTION), plain.invoke(UNNAMED_QUESTION)
    assert _view(out) == _view(today)
    assert not any(ROUTE_KEY in d.metadata for d in out)
    rerank, today_rerank = CageRerank(top_n=None), CageRerank(top_n=None)
    assert _view(rerank.compress_documents(out, UNNAMED_QUESTION)) == _view(
        today_rerank.compress_documents(today, UNNAMED_QUESTION)
    )
    if kind == "qdrant":
        store.client.close()


def test_a_pool_whose_route_is_for_another_question_ranks_exactly_as_without_one(
    embeddings, ingested
):
    docs, index = ingested
    store = _store("in_memory", None, embeddings, docs)
    _, routed, plain = _retrievers(store, index)
    pool = plain.invoke(QUESTION)
    foreign = routed.invoke(QUESTION)[0].metadata[ROUTE_KEY]
    for stale in (foreign, {"asked": UNNAMED_QUESTION}, "a route"):
        marked = [
            Document(d.page_content, id=d.id, metadata={**d.metadata, ROUTE_KEY: stale})
            for d in pool
        ]
        question = UNNAMED_QUESTION if stale is foreign else QUESTION
        got = CageRerank(top_n=None).compress_documents(marked, question)
        want = CageRerank(top_n=None).compress_documents(pool, question)
        assert [
            (d.id, d.metadata["relevance_score"], d.metadata["cage_score"], d.metadata["cage_via"])
            for d in got
        ] == [
            (d.id, d.metadata["relevance_score"], d.metadata["cage_score"], d.metadata["cage_via"])
            for d in want
        ]
        assert not any("cage_named_document" in d.metadata for d in got)


def test_a_routed_pool_without_route_scores_embeds_the_shortened_question(embeddings, ingested):
    docs, index = ingested
    store = _store("in_memory", None, embeddings, docs)
    _, routed, _ = _retrievers(store, index)
    out = routed.invoke(QUESTION)
    unscored = [
        Document(
            d.page_content,
            id=d.id,
            metadata={k: v for k, v in d.metadata.items() if k != "cage_route_score"},
        )
        for d in out
    ]
    scored = CageRerank(top_n=3).compress_documents(out, QUESTION)
    embedded = CageRerank(top_n=3, embeddings=embeddings).compress_documents(unscored, QUESTION)
    # InMemoryVectorStore's score is the cosine of the same embeddings: the same ranking
    assert [_place(d) for d in embedded] == [_place(d) for d in scored]
    assert [d.metadata["cage_similarity"] for d in embedded] == pytest.approx(
        [d.metadata["cage_similarity"] for d in scored], abs=1e-6
    )


@pytest.mark.parametrize("by_vectors", [False, True])
def test_a_routed_pools_score_reads_the_best_similarity_of_the_question_as_asked(
    by_vectors, embeddings, ingested
):
    docs, index = ingested
    store = _store("in_memory", None, embeddings, docs)
    _, routed, _ = _retrievers(store, index)
    out = routed.invoke(QUESTION)
    shortened = max(d.metadata["cage_route_score"] for d in out)
    asked = max(d.metadata["retrieval_score"] for d in out)  # the store's cosine, as asked
    assert asked > shortened + 0.1  # the contract's name is much of the question's meaning

    rerank = CageRerank(top_n=None, vectorstore=store if by_vectors else None)
    ranked = rerank.compress_documents(out, QUESTION)

    route = routed.route(QUESTION)
    texts = [d.page_content for d in out]
    named = ["cage_named_document" in d.metadata for d in out]
    coverage = named_word_coverage(QUESTION, route.question, texts, named)
    top = ranked[0].metadata["relevance_score"]  # the best passage's score is the evidence
    assert top == pytest.approx(pool_relevance([0.0], [asked], coverage)[0], abs=1e-6)
    assert top > pool_relevance([0.0], [shortened], coverage)[0]  # what it read before


@pytest.mark.parametrize("kind", STORES)
def test_one_search_and_the_per_document_searches_give_the_same_pool(
    kind, tmp_path, embeddings, ingested, monkeypatch
):
    docs, index = ingested
    store = _store(kind, tmp_path, embeddings, docs)
    _, routed, _ = _retrievers(store, index)
    one = routed.invoke(QUESTION)
    monkeypatch.setattr(document_routing, "ROUTED_SEARCH_IDS", 0)  # every route: two searches
    two = routed.invoke(QUESTION)
    assert [(_place(d), d.page_content) for d in two] == [(_place(d), d.page_content) for d in one]
    assert [d.metadata["cage_route_score"] for d in two] == pytest.approx(
        [d.metadata["cage_route_score"] for d in one], abs=1e-6
    )
    assert ANSWER in [_place(d) for d in one]
    if kind == "qdrant":
        store.client.close()


@pytest.mark.parametrize("kind", STORES)
def test_a_chunk_the_store_no_longer_holds_still_routes_by_the_per_document_search(
    kind, tmp_path, embeddings, ingested
):
    docs, index = ingested
    store = _store(kind, tmp_path, embeddings, docs)
    _, routed, _ = _retrievers(store, index)
    named = routed.route(QUESTION).documents[0].doc_id
    gone = next(d for d in docs if _place(d)[0] == named and _place(d) != ANSWER)
    store.delete([stored_id(gone, "title")])
    out = routed.invoke(QUESTION)
    assert ANSWER in [_place(d) for d in out]
    assert _place(gone) not in [_place(d) for d in out]
    if kind == "qdrant":
        store.client.close()


@pytest.mark.parametrize("kind", STORES)
def test_a_named_document_wholly_in_the_pool_adds_nothing(kind, tmp_path, embeddings, ingested):
    docs, index = ingested
    store = _store(kind, tmp_path, embeddings, docs)
    everything = ScoredVectorStoreRetriever(vectorstore=store, k=len(docs))
    routed = CageExpansionRetriever(base_retriever=everything, vectorstore=store, link_index=index)
    assert routed.route(QUESTION)
    out = routed.invoke(QUESTION)
    assert sorted(_place(d) for d in out) == sorted(PLACES.values())  # each chunk once
    assert not any("cage_named_document" in d.metadata for d in out)
    if kind == "qdrant":
        store.client.close()
