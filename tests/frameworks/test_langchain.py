"""cage_langchain with real LangChain classes, a real vector store and real MiniLM embeddings."""

import asyncio
import copy
import json

import numpy as np
import pytest

pytest.importorskip(
    "langchain_classic", reason='needs the extras: pip install "cage-rag[all,test]"'
)

from langchain_classic.retrievers import ContextualCompressionRetriever
from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore
from pools import QUERY, SCORE_KEYS, TEXTS

from cage_core import CageConfig, CageReranker, Passage
from cage_core.config import EncoderConfig
from cage_core.metadata import chain_from_metadata
from cage_core.ranking.pool_bm25 import query_word_coverage
from cage_core.relevance import CUTOFF, MIDPOINT, SLOPE, SPREAD, WEIGHT, pool_relevance
from cage_langchain import (
    CageGraphTransformer,
    CageRerank,
    PackagedMiniLMEmbeddings,
    ScoredVectorStoreRetriever,
)

pytestmark = pytest.mark.models  # every test here loads the spaCy pipeline or MiniLM


@pytest.fixture(scope="module")
def embeddings():
    return PackagedMiniLMEmbeddings()


@pytest.fixture(scope="module")
def docs():
    return [
        Document(page_content=t, metadata={"source": f"doc{i}"}, id=f"d{i}")
        for i, t in enumerate(TEXTS)
    ]


def _retriever(docs, embeddings, compressor, k=6):
    store = InMemoryVectorStore(embedding=embeddings)
    store.add_documents(docs)
    return ContextualCompressionRetriever(
        base_compressor=compressor, base_retriever=store.as_retriever(search_kwargs={"k": k})
    )


def test_compression_retriever_returns_ranked_documents_with_scores(docs, embeddings):
    retriever = _retriever(docs, embeddings, CageRerank(top_n=3, embeddings=embeddings))
    out = retriever.invoke(QUERY)
    assert len(out) == 3
    assert all(SCORE_KEYS <= set(d.metadata) for d in out)
    assert [d.metadata["cage_rank"] for d in out] == [0, 1, 2]
    scores = [d.metadata["relevance_score"] for d in out]
    assert scores == sorted(scores, reverse=True)
    assert out[0].metadata["source"] == "doc0"


def test_callers_documents_are_not_mutated(docs, embeddings):
    before = copy.deepcopy(docs)
    out = CageRerank(top_n=None, embeddings=embeddings).compress_documents(docs, QUERY)
    assert docs == before
    assert all(o is not d for o in out for d in docs)


def test_empty_input_returns_empty_list():
    assert CageRerank().compress_documents([], QUERY) == []


@pytest.mark.parametrize("documents", [[], [Document(page_content="Warsaw lies on the Vistula.")]])
def test_a_blank_query_is_refused_whatever_the_pool(documents):
    with pytest.raises(ValueError, match="the query is blank"):
        CageRerank().compress_documents(documents, "  ")


def test_same_order_and_scores_as_cage_core(docs, embeddings, reranker):
    sims = [0.6, 0.2, 0.1, 0.5, 0.3, 0.4]
    scored = [
        Document(page_content=d.page_content, metadata={"score": s}) for d, s in zip(docs, sims)
    ]
    out = CageRerank(top_n=None, score_key="score").compress_documents(scored, QUERY)
    core = reranker.rerank(QUERY, [Passage(t) for t in TEXTS], query_similarities=sims)
    assert [d.page_content for d in out] == [r.text for r in core]
    assert [d.metadata["cage_score"] for d in out] == [r.score for r in core]
    expected = pool_relevance([r.score for r in core], sims, query_word_coverage(QUERY, TEXTS))
    assert [d.metadata["relevance_score"] for d in out] == expected.tolist()
    assert [d.metadata["cage_similarity"] for d in out] == [sims[r.index] for r in core]
    assert [d.metadata["cage_coherence"] for d in out] == [r.coherence for r in core]
    assert [d.metadata["cage_via"] for d in out] == [_via_metadata(r.via) for r in core]


def _via_metadata(via):
    return None if via is None else {"name": via.name, "rank": via.rank, "kind": via.kind}


def test_each_document_names_the_earlier_one_it_is_linked_to(docs, reranker):
    sims = [0.6, 0.5, 0.1, 0.4, 0.3, 0.2]  # Warsaw's passage second
    scored = [
        Document(page_content=d.page_content, metadata={"score": s}) for d, s in zip(docs, sims)
    ]
    before = copy.deepcopy(scored)
    out = CageRerank(top_n=3, score_key="score").compress_documents(scored, QUERY)
    core = reranker.rerank(QUERY, [Passage(t) for t in TEXTS], query_similarities=sims)
    # "Warsaw is the capital of Poland." is linked to the Marie Curie passage through Warsaw
    warsaw = next(d for d in out if d.page_content.startswith("Warsaw"))
    assert warsaw.metadata["cage_via"]["name"] == "Warsaw"
    assert out[warsaw.metadata["cage_via"]["rank"]].page_content.startswith(
        "Marie Curie was born in Warsaw"
    )
    assert [d.metadata["cage_via"] for d in out] == [_via_metadata(r.via) for r in core[:3]]
    assert json.loads(json.dumps([d.metadata for d in out])) == [
        d.metadata for d in out
    ]  # JSON-safe
    assert chain_from_metadata([d.metadata for d in out]) == [r.via for r in core[:3]]
    assert scored == before  # the caller's documents keep their metadata


def test_stored_graphs_give_the_identical_ranking(docs, embeddings):
    enriched = CageGraphTransformer().transform_documents(docs)
    assert all("cage_graph" in d.metadata for d in enriched)
    assert all("cage_graph" not in d.metadata for d in docs)  # inputs untouched
    plain = _retriever(docs, embeddings, CageRerank(top_n=4, embeddings=embeddings)).invoke(QUERY)
    with_graphs = _retriever(
        enriched, embeddings, CageRerank(top_n=4, embeddings=embeddings)
    ).invoke(QUERY)

    def strip(ds):  # what ingest adds: the graph, each one-chunk document's order (0), name
        added = ("cage_graph", "cage_chunk_order", "cage_document")
        return [
            (d.page_content, {k: v for k, v in d.metadata.items() if k not in added}) for d in ds
        ]

    assert strip(with_graphs) == strip(plain)


def test_stored_graph_is_used_instead_of_parsing(docs):
    enriched = CageGraphTransformer().transform_documents(docs)
    rerank = CageRerank(top_n=2, score_key="score")
    scored = [
        Document(page_content=d.page_content, metadata={**d.metadata, "score": 0.5})
        for d in enriched
    ]
    rerank.compress_documents(scored, QUERY)
    assert rerank.reranker.graph_cache.misses == 0


def test_a_corrupt_stored_graph_is_ignored_and_the_passage_parsed(docs, caplog):
    bad = [
        Document(
            page_content=docs[0].page_content,
            metadata={"cage_graph": '{"format": "junk"}', "score": 0.3},
        ),
        Document(page_content=docs[1].page_content, metadata={"score": 0.2}),
    ]
    out = CageRerank(top_n=None, score_key="score").compress_documents(bad, QUERY)
    assert len(out) == 2
    assert (
        "ignoring 1 of 2 stored passage graphs (1 invalid: not a cage passage graph" in caplog.text
    )


def _fallback_warnings(caplog):
    return [
        r for r in caplog.records if r.name == "cage_langchain.rerank" and r.levelname == "WARNING"
    ]


def test_a_score_key_on_some_documents_only_falls_back_to_embedding_with_a_warning(docs, caplog):
    partial = [
        Document(page_content=d.page_content, metadata={"nope": 0.5} if i else {})
        for i, d in enumerate(docs)
    ]
    out = CageRerank(top_n=2, score_key="nope").compress_documents(partial, QUERY)
    assert len(out) == 2
    assert "metadata['nope'] is missing or not a finite number on 1 of 6 documents" in caplog.text


def test_the_plain_as_retriever_recipe_warns_once_per_reranker_with_the_cost_and_the_fix(
    docs, embeddings, caplog
):
    store = InMemoryVectorStore(embedding=embeddings)
    store.add_documents(docs)
    rerank = CageRerank(top_n=2)
    retriever = ContextualCompressionRetriever(
        base_compressor=rerank, base_retriever=store.as_retriever(search_kwargs={"k": 6})
    )
    for q in (QUERY, "capital of France", "Who was a French physicist?"):
        assert len(retriever.invoke(q)) == 2
    asyncio.run(retriever.ainvoke(QUERY))
    (record,) = _fallback_warnings(caplog)
    message = record.getMessage()
    assert "the documents came without retriever scores (no metadata['retrieval_score'])" in message
    assert "the query and 6 passages were embedded" in message and " ms on this call" in message
    assert "ScoredVectorStoreRetriever(vectorstore=store, k=...)" in message
    assert "score_key=None" in message
    CageRerank(top_n=2).compress_documents(docs, QUERY)  # another reranker: its own warning
    assert len(_fallback_warnings(caplog)) == 2


def test_embedding_on_purpose_or_with_scores_gives_no_warning(docs, caplog):
    CageRerank(top_n=2, score_key=None).compress_documents(docs, QUERY)
    scored = [
        Document(page_content=d.page_content, metadata={"retrieval_score": 0.1 * i})
        for i, d in enumerate(docs)
    ]
    CageRerank(top_n=2).compress_documents(scored, QUERY)
    assert _fallback_warnings(caplog) == []


def test_the_fallback_warning_is_given_once_under_threads_and_gather(docs, embeddings, caplog):
    from concurrent.futures import ThreadPoolExecutor

    rerank = CageRerank(top_n=2, embeddings=embeddings)
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda q: rerank.compress_documents(docs, q), [QUERY] * 16))

    async def gather():
        return await asyncio.gather(*(rerank.acompress_documents(docs, QUERY) for _ in range(16)))

    asyncio.run(gather())
    assert len(_fallback_warnings(caplog)) == 1


def test_relevance_score_is_a_0_1_relevance_in_the_fused_order_with_the_fused_score_kept(docs):
    sims = [0.6, 0.2, 0.1, 0.5, 0.3, 0.4]
    scored = [
        Document(page_content=d.page_content, metadata={"retrieval_score": s})
        for d, s in zip(docs, sims)
    ]
    for q in (QUERY, "capital of France"):
        out = CageRerank(top_n=None).compress_documents(scored, q)
        fused = [d.metadata["cage_score"] for d in out]
        relevance_scores = [d.metadata["relevance_score"] for d in out]
        assert fused == sorted(fused, reverse=True)
        assert relevance_scores == sorted(relevance_scores, reverse=True)
        assert all(0.0 < r < 1.0 for r in relevance_scores)
        coverage = query_word_coverage(q, [d.page_content for d in docs])
        expected = pool_relevance(fused, sims, coverage).tolist()
        assert relevance_scores == pytest.approx(expected, rel=1e-12)


def test_a_relevance_cutoff_after_cage_keeps_one_bar_per_pool_and_drops_an_off_topic_one(
    docs, embeddings
):
    from langchain_core.runnables import RunnableLambda

    store = InMemoryVectorStore(embedding=embeddings)
    store.add_documents(docs)
    cutoff = CUTOFF
    chain = ContextualCompressionRetriever(
        base_compressor=CageRerank(top_n=None),
        base_retriever=ScoredVectorStoreRetriever(vectorstore=store, k=6),
    ) | RunnableLambda(lambda found: [d for d in found if d.metadata["relevance_score"] >= cutoff])
    kept = {}
    off_topic = "Who won the 2018 FIFA World Cup?"
    for q in (QUERY, "capital of France", "What fruit has potassium?", off_topic):
        everything = ContextualCompressionRetriever(
            base_compressor=CageRerank(top_n=None),
            base_retriever=ScoredVectorStoreRetriever(vectorstore=store, k=6),
        ).invoke(q)
        kept[q] = chain.invoke(q)
        # the fused score the cutoff stands for in this pool (cage_core.relevance)
        best = max(d.metadata["cage_similarity"] for d in everything)
        coverage = query_word_coverage(q, [d.page_content for d in everything])
        evidence = 1 / (1 + np.exp(-SLOPE * (best + WEIGHT * coverage - MIDPOINT)))
        bar = everything[0].metadata["cage_score"] - SPREAD * np.log(evidence / cutoff)
        assert [d.page_content for d in kept[q]] == [
            d.page_content for d in everything if d.metadata["cage_score"] >= bar - 1e-9
        ]
    assert kept[off_topic] == [] and all(kept[q] for q in kept if q != off_topic)


def test_async_gather_matches_sequential_calls(docs, embeddings):
    rerank = CageRerank(top_n=3, embeddings=embeddings)
    queries = [
        QUERY,
        "Who was a French physicist?",
        "What fruit has potassium?",
        "capital of France",
    ] * 3

    async def run_all():
        return await asyncio.gather(*(rerank.acompress_documents(docs, q) for q in queries))

    together = asyncio.run(run_all())
    one_by_one = [rerank.compress_documents(docs, q) for q in queries]
    assert together == one_by_one


def test_alpha_and_config_reach_the_core():
    r = CageRerank(alpha=0.25, config=CageConfig(encoder=EncoderConfig(epochs=7)))
    assert (r.reranker.config.alpha, r.reranker.config.encoder.epochs) == (0.25, 7)
    with pytest.raises(ValueError):
        CageRerank(alpha=2.0)
    with pytest.raises(ValueError):
        CageRerank(top_n=-1)


def test_acompress_does_not_block_the_event_loop(docs):
    long = CageConfig(encoder=EncoderConfig(epochs=400))  # long enough to observe
    rerank = CageRerank(top_n=3, config=long)

    async def main():
        ticks = 0
        done = asyncio.Event()

        async def ticker():
            nonlocal ticks
            while not done.is_set():
                ticks += 1
                await asyncio.sleep(0.005)

        task = asyncio.create_task(ticker())
        await rerank.acompress_documents(docs, QUERY)
        done.set()
        await task
        return ticks

    assert asyncio.run(main()) >= 5


def test_titles_in_metadata_reach_cage_and_stored_graphs_match(nlp):
    docs = [
        Document(
            page_content="A 1945 comedy starring Shirley Temple.",
            metadata={"title": "Kiss and Tell", "s": 0.7},
        ),
        Document(
            page_content="An actress who became Chief of Protocol.",
            metadata={"title": "Shirley Temple", "s": 0.2},
        ),
        Document(
            page_content="A radio sitcom.", metadata={"title": "Meet Corliss Archer", "s": 0.5}
        ),
        Document(page_content="Bananas are yellow.", metadata={"title": "Banana", "s": 0.1}),
    ]
    rerank = CageRerank(top_n=None, score_key="s", config=CageConfig(core_size=1))
    out = rerank.compress_documents(docs, "Who starred in Kiss and Tell?")
    core = CageReranker(CageConfig(core_size=1), nlp=nlp, embedder=lambda t: None).rerank(
        "Who starred in Kiss and Tell?",
        [Passage(d.page_content, title=d.metadata["title"]) for d in docs],
        query_similarities=[0.7, 0.2, 0.5, 0.1],
    )
    assert [d.metadata["title"] for d in out] == [docs[r.index].metadata["title"] for r in core]
    assert [d.metadata["title"] for d in out][:2] == ["Kiss and Tell", "Shirley Temple"]
    enriched = CageGraphTransformer().transform_documents(docs)
    stored = CageRerank(top_n=None, score_key="s", config=CageConfig(core_size=1))
    assert (
        stored.compress_documents(enriched, "Who starred in Kiss and Tell?")[0].metadata["title"]
        == "Kiss and Tell"
    )
    assert stored.reranker.parse_count == 0


class CountingEmbeddings(PackagedMiniLMEmbeddings):
    """The packaged MiniLM, counting the documents it embeds."""

    embedded: list = []

    def embed_documents(self, texts):
        self.embedded.extend(texts)
        return super().embed_documents(texts)


class RefusingEmbeddings(PackagedMiniLMEmbeddings):
    def embed_documents(self, texts):
        raise AssertionError("documents must not be embedded on this path")

    def embed_query(self, text):
        raise AssertionError("the query must not be embedded on this path")


@pytest.mark.parametrize("score", [np.float32(0.5), np.float64(0.5), np.int64(1), 0.5, 1])
def test_any_real_retriever_score_is_used_without_embedding(docs, score):
    scored = [
        Document(page_content=d.page_content, metadata={"retrieval_score": score * (i + 1)})
        for i, d in enumerate(docs)
    ]
    out = CageRerank(top_n=None, embeddings=RefusingEmbeddings()).compress_documents(scored, QUERY)
    assert sorted(d.metadata["cage_similarity"] for d in out) == [
        float(score * (i + 1)) for i in range(len(docs))
    ]


@pytest.mark.parametrize("score", [True, float("nan"), "0.5", None])
def test_a_non_number_score_is_not_used(docs, score):
    scored = [
        Document(page_content=d.page_content, metadata={"retrieval_score": score}) for d in docs
    ]
    out = CageRerank(top_n=1).compress_documents(scored, QUERY)
    assert out[0].metadata["cage_similarity"] != score


def test_scored_retriever_hands_the_stores_similarities_to_cage(docs, embeddings):
    store = InMemoryVectorStore.from_documents(docs, embeddings)
    base = ScoredVectorStoreRetriever(vectorstore=store, k=6)
    found = base.invoke(QUERY)
    expected = store.similarity_search_with_score(QUERY, k=6)  # cosine, for this store
    assert [(d.page_content, d.metadata["retrieval_score"]) for d in found] == [
        (d.page_content, s) for d, s in expected
    ]
    retriever = ContextualCompressionRetriever(
        base_compressor=CageRerank(top_n=3, embeddings=RefusingEmbeddings()), base_retriever=base
    )
    out = retriever.invoke(QUERY)
    assert [d.metadata["cage_rank"] for d in out] == [0, 1, 2]
    assert all("retrieval_score" not in d.metadata for d in docs)  # the store's documents untouched
    assert asyncio.run(retriever.ainvoke(QUERY)) == out


def test_each_document_is_embedded_once_across_queries(docs):
    counting = CountingEmbeddings()
    counting.embedded.clear()
    rerank = CageRerank(top_n=3, embeddings=counting, score_key=None)
    first = rerank.compress_documents(docs, QUERY)
    rerank.compress_documents(docs + docs[:2], "Who was a French physicist?")
    asyncio.run(rerank.acompress_documents(docs, "capital of France"))
    assert sorted(counting.embedded) == sorted(d.page_content for d in docs)
    fresh = CageRerank(top_n=3, embeddings=PackagedMiniLMEmbeddings(), score_key=None)
    assert fresh.compress_documents(docs, QUERY) == first


@pytest.mark.parametrize("component", ["rerank", "transformer"])
@pytest.mark.parametrize("used", [False, True])
def test_components_pickle_and_deep_copy_before_and_after_use(docs, component, used, caplog):
    import pickle

    scored = [
        Document(page_content=d.page_content, metadata={"retrieval_score": 0.1 * i})
        for i, d in enumerate(docs)
    ]
    made = CageRerank(top_n=2, alpha=0.6) if component == "rerank" else CageGraphTransformer()
    run = (
        (lambda c: c.compress_documents(scored, QUERY))
        if component == "rerank"
        else (lambda c: c.transform_documents(scored))
    )
    expected = run(made) if used else None
    for clone in (pickle.loads(pickle.dumps(made)), copy.deepcopy(made)):
        assert clone.model_dump() == made.model_dump()
        assert run(clone) == (expected if used else run(made))
    # nothing logged but, once per process, that alpha=0.6 does not apply to these untitled docs
    logged = [r.getMessage() for r in caplog.records]
    assert [m for m in logged if "no effect on untitled pools" not in m] == []


def test_split_after_enrichment_uses_each_chunks_own_graph(docs, caplog):
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    long_doc = Document(page_content=" ".join(TEXTS), metadata={"title": "Curie notes"})
    enriched = CageGraphTransformer().transform_documents([long_doc])
    chunks = RecursiveCharacterTextSplitter(chunk_size=80, chunk_overlap=0).split_documents(
        enriched
    )
    assert len(chunks) > 2 and all(
        "cage_graph" in c.metadata for c in chunks
    )  # inherited from the parent
    scored = [
        Document(
            page_content=c.page_content, metadata={**c.metadata, "retrieval_score": 0.9 - 0.1 * i}
        )
        for i, c in enumerate(chunks)
    ]
    rerank = CageRerank(top_n=None)
    got = rerank.compress_documents(scored, QUERY)
    plain = [
        Document(
            page_content=d.page_content,
            metadata={k: v for k, v in d.metadata.items() if k != "cage_graph"},
        )
        for d in scored
    ]
    expected = CageRerank(top_n=None).compress_documents(plain, QUERY)
    assert [(d.page_content, d.metadata["relevance_score"]) for d in got] == [
        (d.page_content, d.metadata["relevance_score"]) for d in expected
    ]
    assert rerank.reranker.parse_count == len(chunks)  # every stale parent graph was replaced
    assert caplog.text.count("ignoring") == 1  # one summary warning for the call
    assert f"ignoring {len(chunks)} of {len(chunks)} stored passage graphs" in caplog.text


def test_swapped_graphs_are_detected(docs):
    enriched = CageGraphTransformer().transform_documents(docs)
    swapped = [
        Document(
            page_content=d.page_content,
            metadata={
                "cage_graph": enriched[(i + 1) % len(docs)].metadata["cage_graph"],
                "retrieval_score": 0.1 * i,
            },
        )
        for i, d in enumerate(docs)
    ]
    rerank = CageRerank(top_n=None)
    got = rerank.compress_documents(swapped, QUERY)
    plain = [
        Document(page_content=d.page_content, metadata={"retrieval_score": 0.1 * i})
        for i, d in enumerate(docs)
    ]
    expected = CageRerank(top_n=None).compress_documents(plain, QUERY)
    assert [(d.page_content, d.metadata["relevance_score"]) for d in got] == [
        (d.page_content, d.metadata["relevance_score"]) for d in expected
    ]
    assert rerank.reranker.parse_count == len(docs)
