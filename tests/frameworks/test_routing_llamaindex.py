"""Routing through real LlamaIndex indexes: a question that names one of six similar contracts
brings in that contract's clause the retriever's top k lacked, through the index's own
retriever restricted by MetadataFilters, and CageRerank ranks it in the top 3; a question that
names none returns exactly what it returns without routing
(cage_core.integrations.document_routing).

Indexes: a VectorStoreIndex persisted and loaded again, and one over Chroma (persisted,
reloaded). The contracts are parsed by SentenceSplitter and enriched by CageGraphExtractor in
one IngestionPipeline, which writes a JSON Lines link index (tests/routing_contracts.py).
"""

import asyncio
import math

import pytest

pytestmark = pytest.mark.models  # every test here loads the spaCy pipeline or MiniLM

chromadb = pytest.importorskip("chromadb")

from routing_contracts import ANSWER, QUESTION, UNNAMED_QUESTION, add_records, paragraphs, texts

from cage_core.expansion.index import LinkIndex
from cage_core.integrations import document_routing
from cage_core.integrations.document_routing import ROUTE_KEY, ROUTING_KEYS, route_metadata

K = 4
KINDS = ["persisted", "chroma"]


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    """The contracts' nodes (one a paragraph, ``ref_doc_id`` = the contract's source) and the
    link index the extractor wrote (with the contracts' document records)."""
    from llama_index.core import Document as LlamaDocument
    from llama_index.core.ingestion import IngestionPipeline
    from llama_index.core.node_parser import SentenceSplitter

    from cage_llamaindex import CageGraphExtractor

    path = tmp_path_factory.mktemp("routing") / "links.jsonl"
    pipeline = IngestionPipeline(
        transformations=[
            SentenceSplitter(chunk_size=48, chunk_overlap=0, paragraph_separator="\n\n"),
            CageGraphExtractor(link_index=path),
        ]
    )
    nodes = pipeline.run(
        documents=[LlamaDocument(text=text, id_=source) for source, text in texts().items()]
    )
    places = {}
    for source in texts():
        for position, node in enumerate(n for n in nodes if n.ref_doc_id == source):
            places[node.node_id] = (source, position)
    assert sorted(places.values()) == sorted(
        (s, p) for s in texts() for p in range(len(paragraphs("birch_mount")))
    )
    openings = {s: next(n.text for n in nodes if places[n.node_id] == (s, 0)) for s in texts()}
    index = LinkIndex.load(path)
    if index.documents().document_count() == 0:
        add_records(index, openings)
        index.save(path)
    return nodes, path, places


def _no_telemetry():
    from chromadb.config import Settings

    return Settings(anonymized_telemetry=False)


def _index(kind, tmp_path, nodes):
    from llama_index.core import StorageContext, VectorStoreIndex, load_index_from_storage

    from cage_llamaindex import PackagedMiniLMEmbedding

    embed_model = PackagedMiniLMEmbedding()
    if kind == "chroma":
        from llama_index.vector_stores.chroma import ChromaVectorStore

        client = chromadb.PersistentClient(path=str(tmp_path), settings=_no_telemetry())
        store = ChromaVectorStore(chroma_collection=client.get_or_create_collection("contracts"))
        VectorStoreIndex(
            nodes,
            storage_context=StorageContext.from_defaults(vector_store=store),
            embed_model=embed_model,
        )
        client = chromadb.PersistentClient(path=str(tmp_path), settings=_no_telemetry())
        return VectorStoreIndex.from_vector_store(
            ChromaVectorStore(chroma_collection=client.get_collection("contracts")),
            embed_model=embed_model,
        )
    VectorStoreIndex(nodes, embed_model=embed_model).storage_context.persist(str(tmp_path))
    return load_index_from_storage(
        StorageContext.from_defaults(persist_dir=str(tmp_path)), embed_model=embed_model
    )


def _retrievers(vector_index, link_index):
    from cage_llamaindex import CageExpansionRetriever

    base = vector_index.as_retriever(similarity_top_k=K)
    routed = CageExpansionRetriever(base, vector_index, link_index)
    plain = CageExpansionRetriever(base, vector_index, link_index, routing=None)
    return base, routed, plain


def _view(nodes):
    return [(n.node.node_id, n.score, n.node.metadata) for n in nodes]


@pytest.mark.parametrize("kind", KINDS)
def test_a_question_naming_a_contract_brings_in_its_clause_and_ranks_it_top_3(
    kind, tmp_path, ingested
):
    from cage_llamaindex import CageRerank

    nodes, link_index, places = ingested
    vector_index = _index(kind, tmp_path, nodes)
    base, routed, plain = _retrievers(vector_index, link_index)
    assert ANSWER not in [places[n.node.node_id] for n in base.retrieve(QUESTION)]
    assert ANSWER not in [places[n.node.node_id] for n in plain.retrieve(QUESTION)]

    route = routed.route(QUESTION)
    [named] = route.documents
    assert named.doc_id == ANSWER[0]
    out = routed.retrieve(QUESTION)
    [answer] = [n for n in out if places[n.node.node_id] == ANSWER]
    assert answer.node.metadata["cage_expanded_via"] == named.via
    assert answer.node.metadata["cage_named_document"] == ANSWER[0]
    assert answer.score is not None
    assert all(n.node.metadata[ROUTE_KEY] == route_metadata(QUESTION, route) for n in out)
    assert all(isinstance(n.node.metadata["cage_route_score"], float) for n in out)
    for n in out:  # hidden from what is embedded and what the LLM reads
        assert set(ROUTING_KEYS) <= set(n.node.excluded_llm_metadata_keys)
        assert "cage_route" not in n.node.get_content(metadata_mode="llm")
    assert len({n.node.node_id for n in out}) == len(out)

    ranked = CageRerank(top_n=3).postprocess_nodes(out, query_str=QUESTION)
    assert ANSWER in [places[n.node.node_id] for n in ranked]
    assert all(places[n.node.node_id][0] == ANSWER[0] for n in ranked)
    assert all(n.node.metadata["cage_expanded_via"] == named.via for n in ranked)

    again = asyncio.run(routed.aretrieve(QUESTION))
    assert [n.node.node_id for n in again] == [n.node.node_id for n in out]
    assert [n.node.metadata["cage_route_score"] for n in again] == pytest.approx(
        [n.node.metadata["cage_route_score"] for n in out]
    )


@pytest.mark.parametrize("kind", KINDS)
def test_the_route_scores_are_the_cosines_for_the_shortened_question(kind, tmp_path, ingested):
    nodes, link_index, _ = ingested
    vector_index = _index(kind, tmp_path, nodes)
    _, routed, _ = _retrievers(vector_index, link_index)
    out = routed.retrieve(QUESTION)
    full = {
        n.node.node_id: n.score
        for n in vector_index.as_retriever(similarity_top_k=len(nodes)).retrieve(
            routed.route(QUESTION).question
        )
    }
    if kind == "chroma":  # the store's exp(−‖q − p‖²) of unit vectors = exp(2·cos − 2)
        full = {i: 1 + math.log(s) / 2 for i, s in full.items()}
    assert [n.node.metadata["cage_route_score"] for n in out] == pytest.approx(
        [full[n.node.node_id] for n in out], abs=1e-5
    )


@pytest.mark.parametrize("kind", KINDS)
def test_a_question_naming_no_contract_returns_exactly_todays_result(kind, tmp_path, ingested):
    from cage_llamaindex import CageRerank

    nodes, link_index, _ = ingested
    vector_index = _index(kind, tmp_path, nodes)
    _, routed, plain = _retrievers(vector_index, link_index)
    assert not routed.route(UNNAMED_QUESTION)
    out, today = routed.retrieve(UNNAMED_QUESTION), plain.retrieve(UNNAMED_QUESTION)
    assert _view(out) == _view(today)
    assert not any(ROUTE_KEY in n.node.metadata for n in out)
    assert _view(CageRerank(top_n=None).postprocess_nodes(out, query_str=UNNAMED_QUESTION)) == (
        _view(CageRerank(top_n=None).postprocess_nodes(today, query_str=UNNAMED_QUESTION))
    )


def test_a_pool_whose_route_is_for_another_question_ranks_exactly_as_without_one(
    tmp_path, ingested
):
    from llama_index.core.schema import NodeWithScore

    from cage_llamaindex import CageRerank

    nodes, link_index, _ = ingested
    vector_index = _index("persisted", tmp_path, nodes)
    _, routed, plain = _retrievers(vector_index, link_index)
    pool = plain.retrieve(QUESTION)
    foreign = routed.retrieve(QUESTION)[0].node.metadata[ROUTE_KEY]
    marked = []
    for n in pool:
        node = n.node.model_copy()
        node.metadata = {**n.node.metadata, ROUTE_KEY: foreign}
        marked.append(NodeWithScore(node=node, score=n.score))
    got = CageRerank(top_n=None).postprocess_nodes(marked, query_str=UNNAMED_QUESTION)
    want = CageRerank(top_n=None).postprocess_nodes(pool, query_str=UNNAMED_QUESTION)
    assert [(n.node.node_id, n.score, n.node.metadata["cage_via"]) for n in got] == [
        (n.node.node_id, n.score, n.node.metadata["cage_via"]) for n in want
    ]
    assert not any("cage_named_document" in n.node.metadata for n in got)


@pytest.mark.parametrize("source", ["cosines", "index", "index, no cosines"])
def test_a_routed_pools_score_reads_the_best_cosine_of_the_question_as_asked(
    source, tmp_path, ingested
):
    from llama_index.core.schema import NodeWithScore

    from cage_core.ranking.pool_bm25 import named_word_coverage
    from cage_core.relevance import pool_relevance
    from cage_llamaindex import CageRerank

    nodes, link_index, _ = ingested
    vector_index = _index("persisted", tmp_path, nodes)
    _, routed, _ = _retrievers(vector_index, link_index)
    out = routed.retrieve(QUESTION)
    shortened = max(n.node.metadata["cage_route_score"] for n in out)
    asked = max(n.node.metadata["cage_cosine"] for n in out)  # the retriever's, as asked
    assert asked > shortened + 0.1  # the contract's name is much of the question's meaning
    if source == "index, no cosines":
        out = [NodeWithScore(node=n.node.model_copy(), score=n.score) for n in out]
        for n in out:
            n.node.metadata = {k: v for k, v in n.node.metadata.items() if k != "cage_cosine"}

    rerank = CageRerank(top_n=None, index=None if source == "cosines" else vector_index)
    ranked = rerank.postprocess_nodes(out, query_str=QUESTION)

    route = routed.route(QUESTION)
    texts = [n.node.get_content() for n in out]
    named = [n.node.metadata.get("cage_named_document") is not None for n in out]
    coverage = named_word_coverage(QUESTION, route.question, texts, named)
    top = ranked[0].score  # the best node's score is the evidence
    assert top == pytest.approx(pool_relevance([0.0], [asked], coverage)[0], abs=1e-5)
    assert top > pool_relevance([0.0], [shortened], coverage)[0]  # what it read before


def test_the_shortened_question_is_embedded_once(tmp_path, ingested):
    from llama_index.core import StorageContext, load_index_from_storage

    from cage_llamaindex import PackagedMiniLMEmbedding

    class Counting(PackagedMiniLMEmbedding):
        def _get_query_embedding(self, query):
            asked.append(query)
            return super()._get_query_embedding(query)

    nodes, link_index, _ = ingested
    _index("persisted", tmp_path, nodes)
    asked = []
    vector_index = load_index_from_storage(
        StorageContext.from_defaults(persist_dir=str(tmp_path)), embed_model=Counting()
    )
    _, routed, _ = _retrievers(vector_index, link_index)
    routed.retrieve(QUESTION)
    shortened = routed.route(QUESTION).question
    # each once (the shortened one on a worker thread while the base retriever runs)
    assert sorted(asked) == sorted([QUESTION, shortened])


@pytest.mark.parametrize("kind", KINDS)
def test_one_query_and_the_per_document_queries_give_the_same_pool(
    kind, tmp_path, ingested, monkeypatch
):
    nodes, link_index, places = ingested
    vector_index = _index(kind, tmp_path, nodes)
    _, routed, _ = _retrievers(vector_index, link_index)
    one = routed.retrieve(QUESTION)
    monkeypatch.setattr(document_routing, "ROUTED_SEARCH_IDS", 0)  # every route: two queries
    two = routed.retrieve(QUESTION)
    assert [n.node.node_id for n in two] == [n.node.node_id for n in one]
    assert [n.node.metadata["cage_route_score"] for n in two] == pytest.approx(
        [n.node.metadata["cage_route_score"] for n in one], abs=1e-6
    )
    assert ANSWER in [places[n.node.node_id] for n in one]


@pytest.mark.parametrize("kind", KINDS)
def test_a_node_the_store_no_longer_holds_still_routes_by_the_per_document_query(
    kind, tmp_path, ingested
):
    nodes, link_index, places = ingested
    vector_index = _index(kind, tmp_path, nodes)
    _, routed, _ = _retrievers(vector_index, link_index)
    named = routed.route(QUESTION).documents[0].doc_id
    gone = next(i for i, place in places.items() if place[0] == named and place != ANSWER)
    vector_index.vector_store.delete_nodes([gone])
    out = routed.retrieve(QUESTION)
    assert ANSWER in [places[n.node.node_id] for n in out]
    assert gone not in [n.node.node_id for n in out]


@pytest.mark.parametrize("kind", KINDS)
def test_a_named_document_wholly_in_the_pool_adds_nothing(kind, tmp_path, ingested):
    from cage_llamaindex import CageExpansionRetriever

    nodes, link_index, places = ingested
    vector_index = _index(kind, tmp_path, nodes)
    everything = vector_index.as_retriever(similarity_top_k=len(nodes))
    routed = CageExpansionRetriever(everything, vector_index, link_index)
    assert routed.route(QUESTION)
    out = routed.retrieve(QUESTION)
    assert sorted(n.node.node_id for n in out) == sorted(places)  # each node once
    assert not any("cage_named_document" in n.node.metadata for n in out)
