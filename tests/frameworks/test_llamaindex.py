"""cage_llamaindex with real LlamaIndex classes and real MiniLM embeddings."""

import asyncio
import copy
import pickle

import pytest

pytest.importorskip(
    "llama_index.core", reason='needs the extra: pip install "cage-rag[llamaindex]"'
)

from llama_index.core import VectorStoreIndex
from llama_index.core.ingestion import IngestionPipeline
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle, TextNode
from pools import QUERY, SCORE_KEYS, TEXTS

from cage_core import Passage
from cage_core.ranking.pool_bm25 import query_word_coverage
from cage_core.relevance import CUTOFF, MIDPOINT, SLOPE, SPREAD, WEIGHT, pool_relevance
from cage_llamaindex import CageGraphExtractor, CageRerank, PackagedMiniLMEmbedding

pytestmark = pytest.mark.models  # every test here loads the spaCy pipeline or MiniLM


@pytest.fixture(scope="module")
def embed_model():
    return PackagedMiniLMEmbedding()


@pytest.fixture(scope="module")
def nodes():
    return [
        TextNode(text=t, id_=f"n{i}", metadata={"source": f"doc{i}"}) for i, t in enumerate(TEXTS)
    ]


def test_vector_index_retriever_with_cage_postprocessor(nodes, embed_model):
    index = VectorStoreIndex(nodes, embed_model=embed_model)
    retrieved = index.as_retriever(similarity_top_k=6).retrieve(QUERY)
    before = copy.deepcopy(retrieved)
    out = CageRerank(top_n=3, keep_retrieval_score=True).postprocess_nodes(
        retrieved, query_str=QUERY
    )
    assert len(out) == 3
    assert [n.node.metadata["cage_rank"] for n in out] == [0, 1, 2]
    assert [n.score for n in out] == [n.node.metadata["relevance_score"] for n in out]
    assert all(SCORE_KEYS | {"retrieval_score"} <= set(n.node.metadata) for n in out)
    # the retriever's cosine was used as relevance (no re-embedding)
    by_id = {n.node.node_id: n.score for n in retrieved}
    assert all(
        n.node.metadata["cage_similarity"] == pytest.approx(by_id[n.node.node_id]) for n in out
    )
    # scores never reach the prompt or the embedding, and the caller's nodes are untouched
    assert "cage_rank" not in out[0].node.get_content(metadata_mode=MetadataMode.LLM)
    assert [(n.node.metadata, n.score) for n in retrieved] == [
        (n.node.metadata, n.score) for n in before
    ]


def test_query_engine_style_node_postprocessors(nodes, embed_model):
    index = VectorStoreIndex(nodes, embed_model=embed_model)
    retriever = index.as_retriever(similarity_top_k=6)
    from llama_index.core.llms import MockLLM
    from llama_index.core.query_engine import RetrieverQueryEngine
    from llama_index.core.response_synthesizers import get_response_synthesizer

    engine = RetrieverQueryEngine(
        retriever=retriever,
        node_postprocessors=[CageRerank(top_n=2)],
        response_synthesizer=get_response_synthesizer(llm=MockLLM()),
    )
    response = engine.query(QUERY)
    assert len(response.source_nodes) == 2
    assert all("cage_coherence" in n.node.metadata for n in response.source_nodes)


def test_same_order_and_scores_as_cage_core(nodes, reranker):
    sims = [0.6, 0.2, 0.1, 0.5, 0.3, 0.4]
    scored = [NodeWithScore(node=n, score=s) for n, s in zip(nodes, sims)]
    out = CageRerank(top_n=None).postprocess_nodes(scored, QueryBundle(QUERY))
    core = reranker.rerank(QUERY, [Passage(t) for t in TEXTS], query_similarities=sims)
    assert [n.node.get_content() for n in out] == [r.text for r in core]
    assert [n.node.metadata["cage_score"] for n in out] == [r.score for r in core]
    expected = pool_relevance([r.score for r in core], sims, query_word_coverage(QUERY, TEXTS))
    assert [n.score for n in out] == expected.tolist()


def test_the_evidence_chain_is_in_metadata_but_never_in_prompts_or_embeddings(nodes, reranker):
    sims = [0.6, 0.5, 0.1, 0.4, 0.3, 0.2]  # Warsaw's passage second
    scored = [NodeWithScore(node=n, score=s) for n, s in zip(nodes, sims)]
    before = copy.deepcopy(scored)
    out = CageRerank(top_n=4).postprocess_nodes(scored, QueryBundle(QUERY))
    core = reranker.rerank(QUERY, [Passage(t) for t in TEXTS], query_similarities=sims, top_n=4)
    assert [n.node.metadata["cage_via"] for n in out] == [
        None if r.via is None else {"name": r.via.name, "rank": r.via.rank, "kind": r.via.kind}
        for r in core
    ]
    warsaw = next(n for n in out if n.node.get_content().startswith("Warsaw"))
    assert warsaw.node.metadata["cage_via"]["name"] == "Warsaw"
    assert "cage_via" in warsaw.node.get_content(metadata_mode=MetadataMode.ALL)
    for n in out:
        assert "cage_via" in n.node.excluded_llm_metadata_keys
        assert "cage_via" in n.node.excluded_embed_metadata_keys
        assert "cage_via" not in n.node.get_content(metadata_mode=MetadataMode.LLM)
        assert "cage_via" not in n.node.get_content(metadata_mode=MetadataMode.EMBED)

    def view(ns):
        return [
            (
                n.node.metadata,
                n.node.excluded_llm_metadata_keys,
                n.node.excluded_embed_metadata_keys,
                n.score,
            )
            for n in ns
        ]

    assert view(scored) == view(before)  # the caller's nodes are untouched


def test_ingestion_pipeline_stores_graphs_hidden_from_prompts(nodes):
    pipeline = IngestionPipeline(transformations=[CageGraphExtractor()])
    enriched = pipeline.run(nodes=nodes)
    assert all("cage_graph" in n.metadata for n in enriched)
    assert all("cage_graph" not in n.metadata for n in nodes)
    for n in enriched:
        assert (
            "cage_graph" in n.excluded_embed_metadata_keys
            and "cage_graph" in n.excluded_llm_metadata_keys
        )
        assert "cage-passage-graph" not in n.get_content(metadata_mode=MetadataMode.LLM)
        assert "cage-passage-graph" not in n.get_content(metadata_mode=MetadataMode.EMBED)
    sims = [0.6, 0.2, 0.1, 0.5, 0.3, 0.4]
    rerank = CageRerank(top_n=None)
    with_graphs = rerank.postprocess_nodes(
        [NodeWithScore(node=n, score=s) for n, s in zip(enriched, sims)], query_str=QUERY
    )
    assert rerank.reranker.graph_cache.misses == 0  # nothing was parsed at query time
    plain = CageRerank(top_n=None).postprocess_nodes(
        [NodeWithScore(node=n, score=s) for n, s in zip(nodes, sims)], query_str=QUERY
    )
    assert [(n.node.node_id, n.score) for n in with_graphs] == [
        (n.node.node_id, n.score) for n in plain
    ]


def test_pickle_round_trip_reloads_models_lazily(nodes):
    rerank = CageRerank(top_n=2, alpha=0.6)
    scored = [NodeWithScore(node=n, score=0.5) for n in nodes]
    first = rerank.postprocess_nodes(scored, query_str=QUERY)
    clone = pickle.loads(pickle.dumps(rerank))
    assert clone._reranker is None and clone.alpha == 0.6
    again = clone.postprocess_nodes(scored, query_str=QUERY)
    assert [(n.node.node_id, n.score) for n in again] == [(n.node.node_id, n.score) for n in first]
    assert pickle.loads(pickle.dumps(CageGraphExtractor())).class_name() == "CageGraphExtractor"


def test_async_gather_matches_sequential_calls(nodes):
    rerank = CageRerank(top_n=3)
    scored = [NodeWithScore(node=n, score=0.1 * i) for i, n in enumerate(nodes)]
    queries = [
        QUERY,
        "Who was a French physicist?",
        "What fruit has potassium?",
        "capital of France",
    ] * 3

    async def run_all():
        return await asyncio.gather(
            *(rerank.apostprocess_nodes(scored, query_str=q) for q in queries)
        )

    together = asyncio.run(run_all())
    one_by_one = [rerank.postprocess_nodes(scored, query_str=q) for q in queries]
    assert [[(n.node.node_id, n.score) for n in r] for r in together] == [
        [(n.node.node_id, n.score) for n in r] for r in one_by_one
    ]


def test_missing_query_is_a_clear_error(nodes):
    with pytest.raises(ValueError, match="needs the query"):
        CageRerank().postprocess_nodes([NodeWithScore(node=nodes[0], score=1.0)])


def test_empty_input_returns_empty_list():
    assert CageRerank().postprocess_nodes([], query_str=QUERY) == []


@pytest.mark.parametrize("texts", [[], ["Warsaw lies on the Vistula."]])
def test_a_blank_query_is_refused_whatever_the_pool(texts):
    nodes = [NodeWithScore(node=TextNode(text=t), score=0.5) for t in texts]
    with pytest.raises(ValueError, match="the query is blank"):
        CageRerank().postprocess_nodes(nodes, query_str="")


@pytest.mark.parametrize("component", ["rerank", "extractor"])
@pytest.mark.parametrize("used", [False, True])
def test_components_pickle_and_deep_copy_before_and_after_use(nodes, component, used, caplog):
    scored = [NodeWithScore(node=n, score=0.1 * i) for i, n in enumerate(nodes)]
    made = (
        CageRerank(top_n=2, alpha=0.6, similarity_source="score")  # declared cosines: quiet
        if component == "rerank"
        else CageGraphExtractor()
    )

    def run(c):
        if component == "rerank":
            return [(n.node.node_id, n.score) for n in c.postprocess_nodes(scored, query_str=QUERY)]
        return [n.metadata["cage_graph"] for n in c(nodes)]

    expected = run(made) if used else None
    for clone in (pickle.loads(pickle.dumps(made)), copy.deepcopy(made)):
        assert clone.to_dict() == made.to_dict()
        assert run(clone) == (expected if used else run(made))
    assert caplog.text == ""


def _ranking(rerank, nodes, query=QUERY):
    scored = [NodeWithScore(node=n, score=0.9 - 0.1 * i) for i, n in enumerate(nodes)]
    return [
        (n.node.get_content(), n.score) for n in rerank.postprocess_nodes(scored, query_str=query)
    ]


def test_split_after_extraction_uses_each_chunks_own_graph(caplog):
    from llama_index.core import Document as LIDocument
    from llama_index.core.node_parser import SentenceSplitter

    doc = LIDocument(text=" ".join(TEXTS), metadata={"title": "Curie notes"})
    chunks = IngestionPipeline(
        transformations=[CageGraphExtractor(), SentenceSplitter(chunk_size=24, chunk_overlap=0)]
    ).run(documents=[doc])
    assert len(chunks) > 2 and all("cage_graph" in c.metadata for c in chunks)  # the parent's graph
    rerank = CageRerank(top_n=None)
    got = _ranking(rerank, chunks)
    plain = [
        TextNode(
            text=c.get_content(),
            metadata={"title": "Curie notes"},  # no graph,
            relationships=c.relationships,
            start_char_idx=c.start_char_idx,
        )
        for c in chunks
    ]  # the same document structure
    assert got == _ranking(CageRerank(top_n=None), plain)
    assert rerank.reranker.parse_count == len(chunks)
    assert caplog.text.count("ignoring") == 1


def test_swapped_graphs_are_detected(nodes):
    enriched = CageGraphExtractor()(nodes)
    swapped = [
        TextNode(
            text=n.text,
            id_=n.node_id,
            metadata={"cage_graph": enriched[(i + 1) % len(nodes)].metadata["cage_graph"]},
        )
        for i, n in enumerate(nodes)
    ]
    rerank = CageRerank(top_n=None)
    assert _ranking(rerank, swapped) == _ranking(CageRerank(top_n=None), nodes)
    assert rerank.reranker.parse_count == len(nodes)


def test_stored_graphs_are_one_flat_string(nodes):
    enriched = CageGraphExtractor()(nodes)
    assert all(isinstance(n.metadata["cage_graph"], str) for n in enriched)
    assert max(len(n.metadata["cage_graph"]) for n in enriched) < 1500


def _fallback_warnings(caplog):
    return [
        r for r in caplog.records if r.name == "cage_llamaindex.rerank" and r.levelname == "WARNING"
    ]


@pytest.mark.parametrize("bad", [float("nan"), None])
def test_nan_or_missing_scores_warn_once_per_reranker_with_the_cost_and_the_fix(nodes, bad, caplog):
    scored = [NodeWithScore(node=n, score=bad if i == 2 else 0.1 * i) for i, n in enumerate(nodes)]
    rerank = CageRerank(top_n=2)
    for q in (QUERY, "capital of France"):
        assert len(rerank.postprocess_nodes(scored, query_str=q)) == 2
    asyncio.run(rerank.apostprocess_nodes(scored, query_str=QUERY))
    (record,) = _fallback_warnings(caplog)
    message = record.getMessage()
    assert "1 of 6 nodes have no retriever score (None or NaN)" in message
    assert "the query and 6 passages were embedded" in message and " ms on this call" in message
    assert 'similarity_source="embed"' in message
    CageRerank(top_n=2, similarity_source="embed").postprocess_nodes(scored, query_str=QUERY)
    assert len(_fallback_warnings(caplog)) == 1  # embedding on purpose: no warning


def test_similarity_cutoff_after_cage_on_a_persisted_index(nodes, embed_model, tmp_path):
    import math

    from llama_index.core import StorageContext, load_index_from_storage
    from llama_index.core.llms import MockLLM
    from llama_index.core.postprocessor import SimilarityPostprocessor

    VectorStoreIndex(nodes, embed_model=embed_model).storage_context.persist(str(tmp_path))
    index = load_index_from_storage(
        StorageContext.from_defaults(persist_dir=str(tmp_path)), embed_model=embed_model
    )
    cutoff = CUTOFF
    engine = index.as_query_engine(
        llm=MockLLM(),
        similarity_top_k=6,
        node_postprocessors=[
            CageRerank(top_n=None),
            SimilarityPostprocessor(similarity_cutoff=cutoff),
        ],
    )
    everything = index.as_query_engine(
        llm=MockLLM(), similarity_top_k=6, node_postprocessors=[CageRerank(top_n=None)]
    )
    kept = {}
    off_topic = "Who won the 2018 FIFA World Cup?"
    for q in (QUERY, "capital of France", "What fruit has potassium?", off_topic):
        got = engine.query(q).source_nodes
        every = everything.query(q).source_nodes
        assert all(0.0 < n.score < 1.0 for n in every)
        fused = [n.node.metadata["cage_score"] for n in every]
        assert fused == sorted(fused, reverse=True)
        # the fused score the cutoff stands for in this pool (cage_core.relevance)
        best = max(n.node.metadata["cage_similarity"] for n in every)
        coverage = query_word_coverage(q, [n.node.get_content() for n in every])
        evidence = 1 / (1 + math.exp(-SLOPE * (best + WEIGHT * coverage - MIDPOINT)))
        bar = fused[0] - SPREAD * math.log(evidence / cutoff)
        assert [n.node.node_id for n in got] == [
            n.node.node_id for n, f in zip(every, fused) if f >= bar - 1e-9
        ]
        kept[q] = got
    assert kept[off_topic] == [] and all(kept[q] for q in kept if q != off_topic)


def test_with_an_integrity_key_a_forged_graph_in_a_persisted_index_is_ignored(
    nodes, embed_model, tmp_path, caplog
):
    from llama_index.core import StorageContext, load_index_from_storage

    from cage_core.graphs.passage_graph import PassageGraph, content_hash

    key = "shared by ingest and rerank"
    signed = IngestionPipeline(transformations=[CageGraphExtractor(integrity_key=key)]).run(
        nodes=nodes
    )
    VectorStoreIndex(signed, embed_model=embed_model).storage_context.persist(str(tmp_path))
    index = load_index_from_storage(
        StorageContext.from_defaults(persist_dir=str(tmp_path)), embed_model=embed_model
    )
    retrieved = index.as_retriever(similarity_top_k=6).retrieve(QUERY)
    victim = retrieved[-1].node
    donor = PassageGraph.from_stored(retrieved[0].node.metadata["cage_graph"])
    forged = donor.__class__(
        **{
            **donor.__dict__,
            "content_sha": content_hash(
                Passage(victim.get_content(metadata_mode=MetadataMode.NONE)).content
            ),
        }
    )
    tampered = victim.model_copy()
    tampered.metadata = {**victim.metadata, "cage_graph": forged.to_text()}
    pool = retrieved[:-1] + [NodeWithScore(node=tampered, score=retrieved[-1].score)]
    trusting = CageRerank(top_n=None)
    trusting.postprocess_nodes(pool, query_str=QUERY)
    assert trusting.reranker.parse_count == 0  # no key: the content hash alone lets it through
    caplog.clear()
    keyed = CageRerank(top_n=None, integrity_key=key)
    keyed.postprocess_nodes(pool, query_str=QUERY)
    assert keyed.reranker.parse_count == 1
    assert caplog.text.count("1 without a valid MAC under the integrity key") == 1
    assert key not in repr(keyed) and key not in keyed.to_json()
