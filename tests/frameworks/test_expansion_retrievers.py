"""The expansion retrievers over real stores: the base retriever's top k misses the second hop
of a multi-hop question, the expansion brings it (with the store's own score), CageRerank
ranks it; the link index is written at ingest, saved, and reloaded beside a reloaded store;
hostile index files never break retrieval.

Corpus: the 40 Wikipedia passages of ``examples/data/wiki_passages.jsonl``. The question's
first hop is "Kiss and Tell (1945 film)" (it names Shirley Temple); the answer is in
"Shirley Temple", 5th by MiniLM similarity, so not in the top 3.
"""

import asyncio
import copy
import json
import logging
import math
from pathlib import Path

import pytest

pytestmark = pytest.mark.models  # every test here loads the spaCy pipeline or MiniLM

chromadb = pytest.importorskip("chromadb")
pytest.importorskip("faiss")

from langchain_classic.retrievers import ContextualCompressionRetriever
from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore

from cage_core.expansion.index import MAX_LINE_CHARS, LinkIndex, LinkIndexFormatError
from cage_langchain import (
    CageExpansionRetriever,
    CageGraphTransformer,
    CageRerank,
    PackagedMiniLMEmbeddings,
    ScoredVectorStoreRetriever,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "data" / "wiki_passages.jsonl"
ROWS = [json.loads(line) for line in EXAMPLES.read_text(encoding="utf-8").splitlines()]
ID = {r["title"]: f"p{i}" for i, r in enumerate(ROWS)}
QUERY = (
    "What government position was held by the woman who portrayed Corliss Archer in the film "
    "Kiss and Tell?"
)
K, TOP_N = 3, 3
FILM, ACTRESS = "Kiss and Tell (1945 film)", "Shirley Temple"


def _no_telemetry():
    from chromadb.config import Settings

    return Settings(anonymized_telemetry=False)


def _titles(docs):
    return [d.metadata["title"] for d in docs]


def _view(docs):
    """What a test compares of retrieved documents: id, metadata (graph left out), text."""
    return [
        (d.id, {k: v for k, v in d.metadata.items() if k != "cage_graph"}, d.page_content)
        for d in docs
    ]


@pytest.fixture(scope="module")
def embeddings():
    return PackagedMiniLMEmbeddings()


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    """Documents enriched by the transformer, which also wrote the link index to a path."""
    path = tmp_path_factory.mktemp("links") / "links.jsonl"
    docs = [
        Document(page_content=r["text"], metadata={"title": r["title"]}, id=ID[r["title"]])
        for r in ROWS
    ]
    return CageGraphTransformer(link_index=path).transform_documents(docs), path


@pytest.fixture(scope="module")
def chroma_dir(tmp_path_factory, embeddings, ingested):
    from langchain_chroma import Chroma

    directory = tmp_path_factory.mktemp("chroma")
    Chroma.from_documents(
        ingested[0],
        embeddings,
        collection_name="cage",
        persist_directory=str(directory),
        client_settings=_no_telemetry(),
    )
    return directory


def _chroma(directory, embeddings):
    from langchain_chroma import Chroma

    return Chroma(
        collection_name="cage",
        embedding_function=embeddings,
        persist_directory=str(directory),
        client_settings=_no_telemetry(),
    )


def _full_search_scores(store):
    """Every document's score as a search of the whole store gives it."""
    found = ScoredVectorStoreRetriever(vectorstore=store, k=len(ROWS)).invoke(QUERY)
    return {d.id: d.metadata["retrieval_score"] for d in found}


def _expansion(store, link_index, **kwargs):
    return CageExpansionRetriever(
        base_retriever=ScoredVectorStoreRetriever(vectorstore=store, k=K),
        vectorstore=store,
        link_index=link_index,
        **kwargs,
    )


# -- LangChain --------------------------------------------------------------------------------
def test_the_transformer_writes_every_document_to_the_link_index(ingested):
    index = LinkIndex.load(ingested[1])
    assert len(index) == len(ROWS)
    assert (
        index.entry(ID[FILM]).subject == FILM and "shirley temple" in index.entry(ID[FILM]).mentions
    )
    assert index.about("Shirley Temple") == [ID[ACTRESS]]


def test_chroma_expansion_brings_the_second_hop_the_top_k_missed_and_cage_ranks_it(
    chroma_dir, embeddings, ingested
):
    store = _chroma(chroma_dir, embeddings)
    base = ScoredVectorStoreRetriever(vectorstore=store, k=K).invoke(QUERY)
    assert ACTRESS not in _titles(base)
    out = _expansion(store, ingested[1]).invoke(QUERY)
    assert _view(out[:K]) == _view(base)
    added = {d.metadata["title"]: d for d in out[K:]}
    assert added[ACTRESS].metadata["cage_expanded_via"] == "shirley temple"
    assert added[ACTRESS].metadata["cage_expanded_from"] == ID[FILM]
    full = _full_search_scores(store)  # the default score: the store's own
    assert [d.metadata["retrieval_score"] for d in out[K:]] == pytest.approx(
        [full[d.id] for d in out[K:]], abs=1e-6
    )  # from the stored float32 vectors (cage_core.integrations.vector_reads)
    lowest = _expansion(store, ingested[1], added_score="lowest").invoke(QUERY)
    assert [d.id for d in lowest] == [d.id for d in out]
    least = min(d.metadata["retrieval_score"] for d in base)
    assert [d.metadata["retrieval_score"] for d in lowest[K:]] == [least] * len(out[K:])

    def reranked(retriever):
        pipeline = ContextualCompressionRetriever(
            base_compressor=CageRerank(top_n=TOP_N), base_retriever=retriever
        )
        return _titles(pipeline.invoke(QUERY))

    assert ACTRESS not in reranked(ScoredVectorStoreRetriever(vectorstore=store, k=K))
    assert ACTRESS in reranked(_expansion(store, ingested[1]))
    assert ACTRESS in reranked(_expansion(store, ingested[1], added_score="lowest"))


def test_the_packaged_embeddings_embed_a_repeated_query_once(embeddings):
    # The expansion scoring its added passages asks for the query the retriever just embedded.
    from cage_core.models import default_embedder, default_query_embedding

    default_query_embedding.cache_clear()
    first = embeddings.embed_query(QUERY)
    first[0] = 99.0  # the caller's list is its own
    again = embeddings.embed_query(QUERY)
    assert default_query_embedding.cache_info()[:2] == (1, 1)  # one hit, one miss
    assert again == pytest.approx(default_embedder()([QUERY])[0].tolist(), abs=1e-6)


def test_a_saved_index_and_a_fresh_chroma_client_give_the_same_results(
    chroma_dir, embeddings, ingested
):
    index = LinkIndex.load(ingested[1])
    first = _expansion(_chroma(chroma_dir, embeddings), index).invoke(QUERY)
    second_path = chroma_dir.parent / "saved-again.jsonl"
    index.save(second_path)
    reloaded = _expansion(_chroma(chroma_dir, embeddings), str(second_path)).invoke(QUERY)
    assert _view(reloaded) == _view(first) and len(first) > K


@pytest.mark.parametrize("added_score", ["lowest", "store"])
def test_async_expansion_returns_what_sync_does(chroma_dir, embeddings, ingested, added_score):
    retriever = _expansion(_chroma(chroma_dir, embeddings), ingested[1], added_score=added_score)
    assert _view(asyncio.run(retriever.ainvoke(QUERY))) == _view(retriever.invoke(QUERY))


@pytest.mark.parametrize("kind", ["faiss", "in-memory"])
def test_faiss_and_in_memory_stores_give_the_added_passages_their_own_search_scores(
    tmp_path, kind, embeddings, ingested
):
    if kind == "faiss":
        from langchain_community.vectorstores import FAISS

        FAISS.from_documents(ingested[0], embeddings).save_local(str(tmp_path))
        store = FAISS.load_local(str(tmp_path), embeddings, allow_dangerous_deserialization=True)
    else:
        store = InMemoryVectorStore.from_documents(ingested[0], embeddings)
    retriever = _expansion(store, ingested[1])
    out = retriever.invoke(QUERY)
    assert ACTRESS in _titles(out[K:])
    full = _full_search_scores(store)
    assert [d.metadata["retrieval_score"] for d in out[K:]] == pytest.approx(
        [full[d.id] for d in out[K:]], abs=1e-6
    )
    assert _view(asyncio.run(retriever.ainvoke(QUERY))) == _view(out)


@pytest.fixture(scope="module")
def split_ingested(tmp_path_factory):
    """The passages cut by RecursiveCharacterTextSplitter (chunks with Document.id None),
    enriched by the transformer, which gives them content ids and writes the link index."""
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    path = tmp_path_factory.mktemp("split-links") / "links.jsonl"
    docs = [Document(page_content=r["text"], metadata={"title": r["title"]}) for r in ROWS]
    chunks = RecursiveCharacterTextSplitter(chunk_size=300, chunk_overlap=0).split_documents(docs)
    assert len(chunks) > len(ROWS) and all(c.id is None for c in chunks)
    return CageGraphTransformer(link_index=path).transform_documents(chunks), path


def _split_store(kind, chunks, embeddings, tmp_path):
    if kind == "chroma":
        from langchain_chroma import Chroma

        return Chroma.from_documents(
            chunks,
            embeddings,
            collection_name="split",
            persist_directory=str(tmp_path),
            client_settings=_no_telemetry(),
        )
    if kind == "faiss":
        from langchain_community.vectorstores import FAISS

        FAISS.from_documents(chunks, embeddings).save_local(str(tmp_path))
        return FAISS.load_local(str(tmp_path), embeddings, allow_dangerous_deserialization=True)
    from langchain_qdrant import QdrantVectorStore

    return QdrantVectorStore.from_documents(
        chunks, embeddings, path=str(tmp_path / "qdrant"), collection_name="split"
    )


@pytest.mark.parametrize("kind", ["chroma", "faiss", "qdrant"])
def test_splitter_chunks_expand_in_every_store_by_their_content_ids(
    kind, tmp_path, embeddings, split_ingested
):
    from cage_core.passage_ids import content_id

    chunks, path = split_ingested
    assert all(c.id == content_id(c.page_content, c.metadata["title"]) for c in chunks)
    index = LinkIndex.load(path)
    assert len(index) == len(chunks)  # every chunk indexed, none skipped for want of an id
    store = _split_store(kind, chunks, embeddings, tmp_path)
    base = ScoredVectorStoreRetriever(vectorstore=store, k=K)
    if kind == "qdrant":  # langchain-qdrant: Document.id None, the point id in metadata["_id"]
        assert all(d.id is None and d.metadata["_id"] for d in base.invoke(QUERY))
    assert ACTRESS not in _titles(base.invoke(QUERY))
    retriever = CageExpansionRetriever(base_retriever=base, vectorstore=store, link_index=path)
    out = retriever.invoke(QUERY)
    added = out[K:]
    assert ACTRESS in _titles(added)
    assert all(d.id == content_id(d.page_content, d.metadata["title"]) for d in added)
    full = {
        (d.id or d.metadata["_id"]): d.metadata["retrieval_score"]
        for d in ScoredVectorStoreRetriever(vectorstore=store, k=len(chunks)).invoke(QUERY)
    }
    assert [d.metadata["retrieval_score"] for d in added] == pytest.approx(
        [full[d.id] for d in added], abs=1e-6
    )  # Chroma: from the stored float32 vectors (cage_core.integrations.vector_reads)
    again = asyncio.run(retriever.ainvoke(QUERY))
    assert [(d.id, d.page_content) for d in again] == [(d.id, d.page_content) for d in out]
    assert [d.metadata["retrieval_score"] for d in again] == pytest.approx(
        [d.metadata["retrieval_score"] for d in out]
    )
    assert ACTRESS in _titles(CageRerank(top_n=TOP_N).compress_documents(out, QUERY))
    if kind == "qdrant":
        store.client.close()


def test_content_ids_number_repeated_chunks_so_stores_take_them():
    from cage_core.passage_ids import content_id, content_ids

    assert content_ids([("T", "same"), ("T", "same"), ("U", "same")]) == [
        content_id("same", "T"),
        content_id("same", "T", 1),
        content_id("same", "U"),
    ]
    assert len(set(content_ids([("", "a")] * 3))) == 3


def test_the_stores_and_the_base_documents_are_not_modified(embeddings, ingested):
    from langchain_community.vectorstores import FAISS

    faiss_store = FAISS.from_documents(ingested[0], embeddings)
    memory_store = InMemoryVectorStore.from_documents(ingested[0], embeddings)
    before = (copy.deepcopy(faiss_store.docstore._dict), copy.deepcopy(memory_store.store))
    for store in (faiss_store, memory_store):
        out = _expansion(store, ingested[1]).invoke(QUERY)
        assert len(out) > K and not any("cage_expanded_via" in d.metadata for d in out[:K])
        assert out[K].metadata is not store.get_by_ids([out[K].id])[0].metadata
    assert (faiss_store.docstore._dict, memory_store.store) == before


def test_without_base_scores_the_added_documents_carry_none_and_cage_embeds_the_pool(
    chroma_dir, embeddings, ingested
):
    store = _chroma(chroma_dir, embeddings)
    retriever = CageExpansionRetriever(
        base_retriever=store.as_retriever(search_kwargs={"k": K}),
        vectorstore=store,
        link_index=ingested[1],
    )
    out = retriever.invoke(QUERY)
    assert ACTRESS in _titles(out[K:])
    assert not any("retrieval_score" in d.metadata for d in out)
    assert ACTRESS in _titles(
        CageRerank(top_n=TOP_N, embeddings=embeddings).compress_documents(out, QUERY)
    )


def test_base_documents_without_ids_do_not_seed_and_are_not_added_again(
    embeddings, ingested, caplog
):
    from langchain_community.retrievers import TFIDFRetriever

    store = InMemoryVectorStore.from_documents(ingested[0], embeddings)
    fitted = TFIDFRetriever.from_documents(ingested[0], k=K)
    assert all(d.id is None for d in fitted.invoke(QUERY))  # this retriever drops the ids
    out = CageExpansionRetriever(
        base_retriever=fitted, vectorstore=store, link_index=ingested[1]
    ).invoke(QUERY)
    # their content ids (the fallback) are not the ids these documents were indexed under
    assert _view(out) == _view(fitted.invoke(QUERY))

    # Its documents given back their ids, but for the film's: the others seed; the film
    # passage, linked from them, is not added again (its text was retrieved).
    docs = [
        Document(
            page_content=d.page_content,
            metadata=d.metadata,
            id=None if d.metadata["title"] == FILM else d.id,
        )
        for d in ingested[0]
    ]
    base = fitted.model_copy(update={"docs": docs})
    assert FILM in _titles(base.invoke(QUERY)) and ACTRESS not in _titles(base.invoke(QUERY))
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="cage_core.expansion.contract"):
        out = CageExpansionRetriever(
            base_retriever=base, vectorstore=store, link_index=ingested[1]
        ).invoke(QUERY)
    assert ACTRESS in _titles(out[K:]) and _titles(out).count(FILM) == 1
    assert "1 linked passages repeat a retrieved text" in caplog.text


def _hostile_copy(source: Path, target: Path) -> int:
    """The saved index plus hostile entries (header count adjusted); returns how many."""
    lines = source.read_text(encoding="utf-8").splitlines()
    hostile = [
        "not json at all",
        json.dumps({"id": 5, "subject": "", "keys": [], "mentions": []}),
        json.dumps({"id": "p1", "subject": "", "keys": "shirley temple", "mentions": []}),
        json.dumps({"id": "huge", "subject": "x" * 5000, "keys": [], "mentions": []}),
        json.dumps(
            {"id": "long", "subject": "", "keys": ["a " * (MAX_LINE_CHARS // 2)], "mentions": []}
        ),
        json.dumps({"id": "p0", "subject": "again", "keys": [], "mentions": []}),
        json.dumps({"id": "p2", "subject": "", "keys": ["Not Normal Form"], "mentions": []}),
        json.dumps([1, 2, 3]),
    ]
    ghost = json.dumps(
        {"id": "ghost-not-in-store", "subject": "", "keys": ["shirley temple"], "mentions": []}
    )
    header = json.loads(lines[0])
    header["passages"] = len(lines) - 1 + len(hostile) + 1
    target.write_text(
        "\n".join([json.dumps(header), *lines[1:], *hostile, ghost]) + "\n", encoding="utf-8"
    )
    return len(hostile)


def test_a_hostile_index_file_is_skipped_with_one_warning_and_retrieval_still_works(
    tmp_path, chroma_dir, embeddings, ingested, caplog
):
    path = tmp_path / "hostile.jsonl"
    count = _hostile_copy(ingested[1], path)
    with caplog.at_level(logging.DEBUG):
        retriever = _expansion(_chroma(chroma_dir, embeddings), path)
        out = retriever.invoke(QUERY)
    warnings = [
        r for r in caplog.records if r.levelno >= logging.WARNING and r.name.startswith("cage")
    ]
    assert len(warnings) == 1 and f"skipped {count} invalid entries" in warnings[0].getMessage()
    assert ACTRESS in _titles(out[K:]) and "ghost-not-in-store" not in [d.id for d in out]
    assert "linked passage ids are not in the vector store" in caplog.text


@pytest.mark.parametrize(
    "content, message",
    [
        ("", "empty"),
        ('{"format": "cage-link-index", "version": 99, "passages": 0}\n', "version 99"),
        ("[]\n", "missing format tag"),
        ("\x00\xff garbage\n", "not a cage link index"),
    ],
)
def test_an_index_file_with_a_bad_header_is_a_clear_error_when_the_retriever_is_made(
    tmp_path, chroma_dir, embeddings, content, message
):
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="latin-1")
    with pytest.raises(LinkIndexFormatError, match=message):
        _expansion(_chroma(chroma_dir, embeddings), path)


def test_bad_settings_are_clear_errors(chroma_dir, embeddings, ingested):
    store = _chroma(chroma_dir, embeddings)
    for setting in ({"added_score": "cosine"}, {"seeds": -1}, {"limit": 1.5}):
        with pytest.raises(ValueError, match=next(iter(setting))):
            _expansion(store, ingested[1], **setting)


def test_a_blank_query_is_refused_before_the_store_is_searched(chroma_dir, embeddings, ingested):
    retriever = _expansion(_chroma(chroma_dir, embeddings), ingested[1])
    with pytest.raises(ValueError, match="the query is blank"):
        retriever.invoke(" ")
    with pytest.raises(ValueError, match="the query is blank"):
        asyncio.run(retriever.ainvoke(""))


def test_a_store_without_get_by_ids_is_a_clear_error(embeddings):
    from langchain_community.vectorstores import SKLearnVectorStore

    store = SKLearnVectorStore(embedding=embeddings)
    with pytest.raises(TypeError, match="does not implement get_by_ids"):
        CageExpansionRetriever(
            base_retriever=store.as_retriever(), vectorstore=store, link_index=LinkIndex()
        )


# -- LlamaIndex -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def li_ingested(tmp_path_factory):
    """Nodes through an IngestionPipeline whose extractor wrote the link index to a path."""
    from llama_index.core.ingestion import IngestionPipeline
    from llama_index.core.schema import TextNode

    from cage_llamaindex import CageGraphExtractor

    path = tmp_path_factory.mktemp("li-links") / "links.jsonl"
    nodes = [
        TextNode(text=r["text"], id_=ID[r["title"]], metadata={"title": r["title"]}) for r in ROWS
    ]
    return IngestionPipeline(transformations=[CageGraphExtractor(link_index=path)]).run(
        nodes=nodes
    ), path


@pytest.fixture(scope="module")
def li_chroma_dir(tmp_path_factory, li_ingested):
    from llama_index.core import StorageContext, VectorStoreIndex
    from llama_index.vector_stores.chroma import ChromaVectorStore

    from cage_llamaindex import PackagedMiniLMEmbedding

    directory = tmp_path_factory.mktemp("li-chroma")
    client = chromadb.PersistentClient(path=str(directory), settings=_no_telemetry())
    store = ChromaVectorStore(chroma_collection=client.get_or_create_collection("cage"))
    VectorStoreIndex(
        li_ingested[0],
        storage_context=StorageContext.from_defaults(vector_store=store),
        embed_model=PackagedMiniLMEmbedding(),
    )
    return directory


def _li_chroma_index(directory):
    from llama_index.core import VectorStoreIndex
    from llama_index.vector_stores.chroma import ChromaVectorStore

    from cage_llamaindex import PackagedMiniLMEmbedding

    client = chromadb.PersistentClient(path=str(directory), settings=_no_telemetry())
    return VectorStoreIndex.from_vector_store(
        ChromaVectorStore(chroma_collection=client.get_collection("cage")),
        embed_model=PackagedMiniLMEmbedding(),
    )


def _li_view(nodes):
    return [
        (n.node.node_id, n.score, {k: v for k, v in n.node.metadata.items() if k != "cage_graph"})
        for n in nodes
    ]


def _li_full_search_scores(index):
    found = index.as_retriever(similarity_top_k=len(ROWS)).retrieve(QUERY)
    return {n.node.node_id: n.score for n in found}


def _li_titles(nodes):
    return [n.node.metadata["title"] for n in nodes]


def test_llamaindex_chroma_expansion_brings_the_second_hop_and_cage_ranks_it(
    li_chroma_dir, li_ingested
):
    from llama_index.core.llms import MockLLM
    from llama_index.core.query_engine import RetrieverQueryEngine
    from llama_index.core.schema import MetadataMode

    from cage_llamaindex import CageExpansionRetriever as LlamaExpansion
    from cage_llamaindex import CageRerank as LlamaRerank

    index = _li_chroma_index(li_chroma_dir)  # a fresh client over the persisted directory
    base = index.as_retriever(similarity_top_k=K).retrieve(QUERY)
    assert ACTRESS not in _li_titles(base)
    retriever = LlamaExpansion(index.as_retriever(similarity_top_k=K), index, str(li_ingested[1]))
    out = retriever.retrieve(QUERY)
    assert [n.node.node_id for n in out[:K]] == [n.node.node_id for n in base]
    # every node's score is its cosine (Chroma's own is exp(−‖q − p‖²) = exp(2·cos − 2) for
    # these unit vectors), also in the metadata CageRerank reads
    cosine = {i: 1 + math.log(s) / 2 for i, s in _li_full_search_scores(index).items()}
    assert [n.score for n in out] == pytest.approx([cosine[n.node.node_id] for n in out], abs=1e-5)
    assert all(n.node.metadata["cage_cosine"] == n.score for n in out)
    added = {n.node.metadata["title"]: n for n in out[K:]}
    assert added[ACTRESS].node.metadata["cage_expanded_via"] == "shirley temple"
    assert added[ACTRESS].node.metadata["cage_expanded_from"] == ID[FILM]
    assert "cage_expanded" not in added[ACTRESS].node.get_content(metadata_mode=MetadataMode.LLM)
    assert _li_view(asyncio.run(retriever.aretrieve(QUERY))) == _li_view(out)
    lowest = LlamaExpansion(
        index.as_retriever(similarity_top_k=K), index, li_ingested[1], added_score="lowest"
    )
    least = lowest.retrieve(QUERY)
    assert [n.score for n in least[K:]] == [min(n.score for n in least[:K])] * len(out[K:])
    assert [n.score for n in least[:K]] == [n.score for n in out[:K]]
    assert _li_view(asyncio.run(lowest.aretrieve(QUERY))) == _li_view(least)

    assert ACTRESS not in _li_titles(
        LlamaRerank(top_n=TOP_N).postprocess_nodes(base, query_str=QUERY)
    )
    assert ACTRESS in _li_titles(LlamaRerank(top_n=TOP_N).postprocess_nodes(out, query_str=QUERY))
    engine = RetrieverQueryEngine.from_args(
        retriever, llm=MockLLM(), node_postprocessors=[LlamaRerank(top_n=TOP_N)]
    )
    assert ACTRESS in _li_titles(engine.query(QUERY).source_nodes)
    reloaded = LlamaExpansion(
        index.as_retriever(similarity_top_k=K),
        _li_chroma_index(li_chroma_dir),
        LinkIndex.load(li_ingested[1]),
    ).retrieve(QUERY)
    assert _li_view(reloaded) == _li_view(out)


def test_llamaindex_blank_query_is_refused(li_chroma_dir, li_ingested):
    from cage_llamaindex import CageExpansionRetriever as LlamaExpansion

    index = _li_chroma_index(li_chroma_dir)
    retriever = LlamaExpansion(index.as_retriever(similarity_top_k=K), index, li_ingested[1])
    with pytest.raises(ValueError, match="the query is blank"):
        retriever.retrieve("\n")


def test_llamaindex_in_memory_index_expands_from_its_docstore_without_modifying_it(li_ingested):
    from llama_index.core import VectorStoreIndex

    from cage_llamaindex import CageExpansionRetriever as LlamaExpansion
    from cage_llamaindex import PackagedMiniLMEmbedding

    index = VectorStoreIndex(li_ingested[0], embed_model=PackagedMiniLMEmbedding())
    stored = {i: copy.deepcopy(n.metadata) for i, n in index.docstore.docs.items()}
    retriever = LlamaExpansion(index.as_retriever(similarity_top_k=K), index, li_ingested[1])
    out = retriever.retrieve(QUERY)
    assert ACTRESS in _li_titles(out[K:])
    full = _li_full_search_scores(index)
    assert [n.score for n in out[K:]] == pytest.approx([full[n.node.node_id] for n in out[K:]])
    assert _li_view(asyncio.run(retriever.aretrieve(QUERY))) == _li_view(out)
    assert {i: n.metadata for i, n in index.docstore.docs.items()} == stored


def test_llamaindex_hostile_index_file_is_skipped_with_one_warning(
    tmp_path, li_chroma_dir, li_ingested, caplog
):
    from cage_llamaindex import CageExpansionRetriever as LlamaExpansion

    path = tmp_path / "hostile.jsonl"
    count = _hostile_copy(li_ingested[1], path)
    index = _li_chroma_index(li_chroma_dir)
    with caplog.at_level(logging.WARNING):
        out = LlamaExpansion(index.as_retriever(similarity_top_k=K), index, path).retrieve(QUERY)
    warnings = [r for r in caplog.records if r.name.startswith("cage")]
    assert len(warnings) == 1 and f"skipped {count} invalid entries" in warnings[0].getMessage()
    assert ACTRESS in _li_titles(out[K:]) and "ghost-not-in-store" not in [
        n.node.node_id for n in out
    ]
    (tmp_path / "bad.jsonl").write_text(
        '{"format": "cage-link-index", "version": 0}\n', encoding="utf-8"
    )
    with pytest.raises(LinkIndexFormatError, match="version 0"):
        LlamaExpansion(index.as_retriever(similarity_top_k=K), index, tmp_path / "bad.jsonl")
    with pytest.raises(ValueError, match="limit must be an int >= 0"):
        LlamaExpansion(index.as_retriever(similarity_top_k=K), index, li_ingested[1], limit=-1)
    with pytest.raises(ValueError, match="added_score must be one of"):
        LlamaExpansion(
            index.as_retriever(similarity_top_k=K), index, li_ingested[1], added_score="x"
        )


def test_ingest_components_with_a_link_index_still_pickle_and_copy(tmp_path, li_ingested):
    import pickle

    from cage_llamaindex import CageGraphExtractor

    for component in (
        CageGraphTransformer(link_index=tmp_path / "a.jsonl"),
        CageGraphExtractor(link_index=tmp_path / "b.jsonl"),
        CageGraphExtractor(link_index=LinkIndex()),
    ):
        for clone in (pickle.loads(pickle.dumps(component)), copy.deepcopy(component)):
            assert type(clone.link_index) is type(component.link_index)
    extractor = pickle.loads(pickle.dumps(CageGraphExtractor(link_index=tmp_path / "b.jsonl")))
    extractor(li_ingested[0][:2])
    assert [e.id for e in LinkIndex.load(tmp_path / "b.jsonl").entries()] == ["p0", "p1"]
    assert (
        json.loads(CageGraphExtractor(link_index=LinkIndex()).to_json())["link_index"]
        == "LinkIndex"
    )
