"""Document structure through real pipelines: multi-chunk documents split by the frameworks'
own splitters, ingested with the graph transformer/extractor into real stores (Chroma, FAISS,
InMemoryVectorStore; a persisted LlamaIndex VectorStoreIndex, Chroma), reloaded and queried.

What is checked: the passages the rerankers build carry each chunk's document and order; the
ingest-stored link entries carry them too; the expansion retrievers add a retrieved chunk's
same-document neighbour; reranking with the stored graphs equals a fresh parse. Corpus: three
short company reports whose later paragraphs say "the company", not its name.
"""

import pytest

pytestmark = pytest.mark.models  # every test here loads the spaCy pipeline or MiniLM

chromadb = pytest.importorskip("chromadb")
pytest.importorskip("faiss")

from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_text_splitters import RecursiveCharacterTextSplitter

from cage_core.expansion.contract import SAME_DOCUMENT_VIA
from cage_core.expansion.index import LinkIndex
from cage_langchain import (
    CageExpansionRetriever,
    CageGraphTransformer,
    CageRerank,
    PackagedMiniLMEmbeddings,
    ScoredVectorStoreRetriever,
)
from cage_langchain.structure import document_passages

REPORTS = {
    "reports/acme.txt": [
        (
            "Acme Corporation is an American maker of anvils, rockets and portable holes, "
            "headquartered in Phoenix, Arizona. Acme Corporation was founded in 1920 by Ada Acme."
        ),
        (
            "The company reported revenue of 4.2 billion dollars for 2023, eight percent more than "
            "a year earlier, driven by strong demand for its rocket skates."
        ),
        (
            "The company appointed Wile Coyote as chief executive officer in 2019. He had led its "
            "research laboratory in Tucson for eleven years."
        ),
    ],
    "reports/globex.txt": [
        (
            "Globex Corporation is a Swiss producer of industrial chemicals and fertilisers, "
            "headquartered in Basel. Globex Corporation was founded in 1956 by Hank Scorpio."
        ),
        (
            "The company reported revenue of 3.1 billion dollars for 2023, two percent less than "
            "a year earlier, as fertiliser prices fell across Europe."
        ),
        (
            "The company appointed Lena Brandt as chief executive officer in 2021. She had run its "
            "plant in Rotterdam before that."
        ),
    ],
    "reports/initech.txt": [
        (
            "Initech Limited is a Canadian software company that builds payroll systems, "
            "headquartered in Ottawa, Ontario. "
            "Initech Limited was founded in 1988 by Bill Lumbergh."
        ),
        (
            "The company reported revenue of 0.9 billion dollars for 2023, twelve percent more "
            "than a year earlier, after it won a contract with the federal government."
        ),
        (
            "The company appointed Peter Gibbons as chief executive officer in 2022. He had been "
            "its head of engineering in Montreal."
        ),
    ],
}
QUERY = "How much revenue did Acme Corporation report for 2023?"
ANSWER = ("reports/acme.txt", 1)
TOP_N = 5


def _no_telemetry():
    from chromadb.config import Settings

    return Settings(anonymized_telemetry=False)


def _split_reports():
    """The reports split by LangChain's own splitter (one chunk per paragraph), each chunk
    given the id ``"<source>:<start_index>"`` (the splitter gives none)."""
    splitter = RecursiveCharacterTextSplitter(chunk_size=220, chunk_overlap=0, add_start_index=True)
    documents = [
        Document("\n\n".join(paragraphs), metadata={"source": source})
        for source, paragraphs in REPORTS.items()
    ]
    chunks = splitter.split_documents(documents)
    for chunk in chunks:
        chunk.id = f"{chunk.metadata['source']}:{chunk.metadata['start_index']}"
    return chunks


CHUNKS = _split_reports()
TRUE_PLACE = {}  # id -> (source, 0-based paragraph)
for _source in REPORTS:
    for _position, _chunk in enumerate(c for c in CHUNKS if c.metadata["source"] == _source):
        TRUE_PLACE[_chunk.id] = (_source, _position)


def test_the_splitter_made_one_chunk_per_paragraph():
    assert [c.page_content for c in CHUNKS] == [p for ps in REPORTS.values() for p in ps]


@pytest.fixture(scope="module")
def embeddings():
    return PackagedMiniLMEmbeddings()


@pytest.fixture(scope="module")
def ingested():
    """The chunks enriched by the transformer, which also filled an in-memory link index."""
    index = LinkIndex()
    return CageGraphTransformer(link_index=index).transform_documents(CHUNKS), index


def _store(kind, tmp_path, embeddings, docs):
    """A store of ``docs``, persisted and reloaded where the store persists."""
    if kind == "chroma":
        from langchain_chroma import Chroma

        Chroma.from_documents(
            docs,
            embeddings,
            ids=[d.id for d in docs],
            collection_name="reports",
            persist_directory=str(tmp_path),
            client_settings=_no_telemetry(),
        )
        return Chroma(
            collection_name="reports",
            embedding_function=embeddings,
            persist_directory=str(tmp_path),
            client_settings=_no_telemetry(),
        )
    if kind == "faiss":
        from langchain_community.vectorstores import FAISS

        FAISS.from_documents(docs, embeddings, ids=[d.id for d in docs]).save_local(str(tmp_path))
        return FAISS.load_local(str(tmp_path), embeddings, allow_dangerous_deserialization=True)
    store = InMemoryVectorStore(embeddings)
    store.add_documents(docs)
    return store


STORES = ["chroma", "faiss", "in_memory"]


def test_ingest_link_entries_keep_each_chunks_document_and_true_position(ingested):
    _, index = ingested
    for source in REPORTS:
        ids = index.chunks_of(source)
        assert [TRUE_PLACE[i] for i in ids] == [(source, p) for p in range(3)]
        assert [(index.entry(i).doc_id, index.entry(i).position) for i in ids] == [
            TRUE_PLACE[i] for i in ids
        ]


@pytest.mark.parametrize("kind", STORES)
def test_langchain_store_round_trip_keeps_the_structure_the_reranker_reads(
    kind, tmp_path, embeddings, ingested
):
    docs, _ = ingested
    store = _store(kind, tmp_path, embeddings, docs)
    retrieved = ScoredVectorStoreRetriever(vectorstore=store, k=len(docs)).invoke(QUERY)
    assert sorted(d.id for d in retrieved) == sorted(TRUE_PLACE)
    passages = document_passages(retrieved, "title")
    # the whole corpus is retrieved, so the ranked start_index is the true paragraph order
    assert [(p.doc_id, p.position) for p in passages] == [TRUE_PLACE[d.id] for d in retrieved]

    rerank = CageRerank(top_n=TOP_N)
    out = rerank.compress_documents(retrieved, QUERY)
    assert rerank.reranker.parse_count == 0  # the stored graphs were used
    fresh = CageRerank(top_n=TOP_N)
    plain = [
        Document(
            d.page_content,
            id=d.id,
            metadata={k: v for k, v in d.metadata.items() if k != "cage_graph"},
        )
        for d in retrieved
    ]
    expected = fresh.compress_documents(plain, QUERY)
    assert fresh.reranker.parse_count == len(plain)
    assert [(d.id, d.metadata["relevance_score"], d.metadata["cage_via"]) for d in out] == [
        (d.id, d.metadata["relevance_score"], d.metadata["cage_via"]) for d in expected
    ]


@pytest.mark.parametrize("kind", STORES)
def test_langchain_expansion_adds_the_retrieved_chunks_same_document_neighbour(
    kind, tmp_path, embeddings, ingested
):
    docs, index = ingested
    store = _store(kind, tmp_path, embeddings, docs)
    question = "Where is Acme Corporation headquartered?"
    base = ScoredVectorStoreRetriever(vectorstore=store, k=1)
    [seed] = base.invoke(question)
    assert TRUE_PLACE[seed.id] == ("reports/acme.txt", 0)
    out = CageExpansionRetriever(
        base_retriever=base, vectorstore=store, link_index=index, limit=0, siblings=2
    ).invoke(question)
    assert [d.id for d in out][:1] == [seed.id]
    [added] = out[1:]  # the first paragraph has one neighbour: the second
    assert TRUE_PLACE[added.id] == ("reports/acme.txt", 1)
    assert added.metadata["cage_expanded_via"] == SAME_DOCUMENT_VIA
    assert added.metadata["cage_expanded_from"] == seed.id
    assert isinstance(added.metadata["retrieval_score"], float)  # the store's own score
    without = CageExpansionRetriever(
        base_retriever=base, vectorstore=store, link_index=index, limit=0, siblings=0
    ).invoke(question)
    assert [d.id for d in without] == [seed.id]


def _ranking(docs, query):
    out = CageRerank(top_n=None).compress_documents(docs, query)
    return [d.id for d in out]


def test_the_same_document_link_lifts_the_chunk_that_says_the_company(embeddings, ingested):
    """The question names Acme; the answer is Acme's second paragraph, which says "the
    company". Without the structure it looks like the other reports' revenue paragraphs (4th
    today, below one of them); with it, it is a chunk of the document that names Acme: it
    ranks higher, above every other report's revenue paragraph, in the top 2 (with the
    paragraph that names Acme)."""
    docs, _ = ingested
    store = _store("in_memory", None, embeddings, docs)
    retrieved = ScoredVectorStoreRetriever(vectorstore=store, k=len(docs)).invoke(QUERY)
    answer = next(d.id for d in retrieved if TRUE_PLACE[d.id] == ANSWER)
    unstructured = [
        Document(
            d.page_content,
            id=d.id,
            metadata={k: v for k, v in d.metadata.items() if k not in ("source", "start_index")},
        )
        for d in retrieved
    ]
    with_structure, without = _ranking(retrieved, QUERY), _ranking(unstructured, QUERY)
    assert with_structure.index(answer) < without.index(answer)
    others = [d.id for d in retrieved if TRUE_PLACE[d.id][1] == 1 and d.id != answer]
    assert all(with_structure.index(answer) < with_structure.index(o) for o in others)
    assert with_structure.index(answer) <= 1


# -- LlamaIndex ---------------------------------------------------------------------------
def _llama_documents():
    from llama_index.core import Document as LlamaDocument

    return [
        LlamaDocument(text="\n\n".join(paragraphs), id_=source)
        for source, paragraphs in REPORTS.items()
    ]


@pytest.fixture(scope="module")
def llama_ingested(tmp_path_factory):
    """Nodes of the reports parsed by SentenceSplitter and enriched by the extractor in one
    IngestionPipeline run, which also wrote the link index to a path."""
    from llama_index.core.ingestion import IngestionPipeline
    from llama_index.core.node_parser import SentenceSplitter

    from cage_llamaindex import CageGraphExtractor

    path = tmp_path_factory.mktemp("llama_links") / "links.jsonl"
    pipeline = IngestionPipeline(
        transformations=[
            SentenceSplitter(chunk_size=48, chunk_overlap=0, paragraph_separator="\n\n"),
            CageGraphExtractor(link_index=path),
        ]
    )
    nodes = pipeline.run(documents=_llama_documents())
    return nodes, path


def _llama_index(kind, tmp_path, nodes):
    from llama_index.core import StorageContext, VectorStoreIndex, load_index_from_storage

    from cage_llamaindex import PackagedMiniLMEmbedding

    embed_model = PackagedMiniLMEmbedding()
    if kind == "chroma":
        from llama_index.vector_stores.chroma import ChromaVectorStore

        client = chromadb.PersistentClient(path=str(tmp_path), settings=_no_telemetry())
        store = ChromaVectorStore(chroma_collection=client.get_or_create_collection("reports"))
        VectorStoreIndex(
            nodes,
            storage_context=StorageContext.from_defaults(vector_store=store),
            embed_model=embed_model,
        )
        client = chromadb.PersistentClient(path=str(tmp_path), settings=_no_telemetry())
        return VectorStoreIndex.from_vector_store(
            ChromaVectorStore(chroma_collection=client.get_collection("reports")),
            embed_model=embed_model,
        )
    VectorStoreIndex(nodes, embed_model=embed_model).storage_context.persist(str(tmp_path))
    return load_index_from_storage(
        StorageContext.from_defaults(persist_dir=str(tmp_path)), embed_model=embed_model
    )


def _llama_true_places(nodes):
    out = {}
    for source in REPORTS:
        for position, node in enumerate(n for n in nodes if n.ref_doc_id == source):
            out[node.node_id] = (source, position)
    return out


def test_llamaindex_extractor_link_entries_keep_ref_doc_id_and_true_position(llama_ingested):
    nodes, path = llama_ingested
    places = _llama_true_places(nodes)
    assert sorted(places.values()) == sorted((s, p) for s in REPORTS for p in range(3))
    index = LinkIndex.load(path)
    for source in REPORTS:
        ids = index.chunks_of(source)
        assert [places[i] for i in ids] == [(source, p) for p in range(3)]
        assert [index.entry(i).position for i in ids] == [0, 1, 2]


@pytest.mark.parametrize("kind", ["persisted", "chroma"])
def test_llamaindex_reloaded_index_keeps_the_structure_the_reranker_reads(
    kind, tmp_path, llama_ingested
):
    from llama_index.core.schema import NodeWithScore

    from cage_llamaindex import CageRerank
    from cage_llamaindex.structure import node_passages

    nodes, _ = llama_ingested
    places = _llama_true_places(nodes)
    index = _llama_index(kind, tmp_path, nodes)
    retrieved = index.as_retriever(similarity_top_k=len(nodes)).retrieve(QUERY)
    assert sorted(n.node.node_id for n in retrieved) == sorted(places)
    passages = node_passages([n.node for n in retrieved], "title")
    assert [(p.doc_id, p.position) for p in passages] == [places[n.node.node_id] for n in retrieved]

    rerank = CageRerank(top_n=TOP_N)
    out = rerank.postprocess_nodes(retrieved, query_str=QUERY)
    assert rerank.reranker.parse_count == 0
    plain = []
    for n in retrieved:
        node = n.node.model_copy()
        node.metadata = {k: v for k, v in n.node.metadata.items() if k != "cage_graph"}
        plain.append(NodeWithScore(node=node, score=n.score))
    fresh = CageRerank(top_n=TOP_N)
    expected = fresh.postprocess_nodes(plain, query_str=QUERY)
    assert fresh.reranker.parse_count == len(plain)
    assert [(n.node.node_id, n.score) for n in out] == [(n.node.node_id, n.score) for n in expected]


@pytest.mark.parametrize("kind", ["persisted", "chroma"])
def test_llamaindex_expansion_adds_the_previous_and_next_node_of_the_seed(
    kind, tmp_path, llama_ingested
):
    from cage_llamaindex import CageExpansionRetriever

    nodes, path = llama_ingested
    places = _llama_true_places(nodes)
    index = _llama_index(kind, tmp_path, nodes)
    question = "How much revenue did Globex Corporation report, as fertiliser prices fell?"
    base = index.as_retriever(similarity_top_k=1)
    [seed] = base.retrieve(question)
    assert places[seed.node.node_id] == ("reports/globex.txt", 1)
    out = CageExpansionRetriever(base, index, path, limit=0, siblings=2).retrieve(question)
    assert out[0].node.node_id == seed.node.node_id
    assert [places[n.node.node_id] for n in out[1:]] == [
        ("reports/globex.txt", 0),
        ("reports/globex.txt", 2),
    ]
    for added in out[1:]:
        assert added.node.metadata["cage_expanded_via"] == SAME_DOCUMENT_VIA
        assert added.node.metadata["cage_expanded_from"] == seed.node.node_id
        assert added.score is not None
    one = CageExpansionRetriever(base, index, path, limit=0, siblings=1).retrieve(question)
    assert [places[n.node.node_id] for n in one[1:]] == [("reports/globex.txt", 0)]
