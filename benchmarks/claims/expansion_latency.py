"""Latency the expansion retrievers add per query, the link index's size per passage, and
what the added passages' score mode does to CAGE's Recall@5.

    python benchmarks/claims/expansion_latency.py [--data FILE] [--graph-store FILE]
        [--questions N] [--store-dir DIR] [--frameworks langchain,llamaindex]

Corpus: the distinct (title, text) passages of the union of the DEV file's pools, ids
``p0``…, in a real Chroma store (``chromadb.PersistentClient`` under ``--store-dir``, a
temporary directory by default; a filled collection there is reused), MiniLM embeddings.
Light graphs from the graph store (``CageReranker(graph_store=...)``; default the package's,
``~/.cache/cage-rag/graphs.sqlite``); the
:class:`~cage_core.expansion.index.LinkIndex` is built from them, with titles and without
(``Passage(title="")``), and its stored size per passage printed.

Per question (the first ``N``), after a warm-up of 10 questions, in turn (each call with the
query-embedding cache emptied, so each embeds its question once): the base retriever
alone (LangChain: ``ScoredVectorStoreRetriever(k=20)``; LlamaIndex:
``index.as_retriever(similarity_top_k=20)``), then the expansion retriever around it
(default ``seeds``/``limit``) with ``added_score="lowest"`` (default) and ``"store"``.
Printed: median / mean / p90 wall time of each and the median of the per-query difference
to the base (the added latency), the passages added per query, the gold passages among the
base top 20 and among the expanded pool, and (LangChain) Recall@5 after the default CAGE
reranks each pool with its retrieval scores and the stored graphs.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from cage_core import CageReranker, Passage
from cage_core.eval.datasets import load_questions
from cage_core.expansion.index import LinkIndex
from cage_core.graphs.store import default_store_path
from cage_core.metadata import RETRIEVAL_SCORE_KEY
from cage_core.models import default_query_embedding

K = 20
TOP_N = 5
WARM_UP = 10
MODES = ("lowest", "store")


def summary(values: list[float]) -> str:
    ms = sorted(v * 1000 for v in values)
    p90 = ms[min(len(ms) - 1, int(0.9 * len(ms)))]
    return (
        f"median {statistics.median(ms):7.2f} ms  mean {statistics.fmean(ms):7.2f} ms  "
        f"p90 {p90:7.2f} ms"
    )


def timed(call, query):
    """Wall time of one call, the per-process query-embedding cache emptied first: each call
    embeds its query once, as a new question does."""
    default_query_embedding.cache_clear()
    start = time.perf_counter()
    out = call(query)
    return time.perf_counter() - start, out


def measure(name, base_call, expansion_calls, ids_of, questions, gold_ids, recall_at_5=None):
    """Time the base and each expansion retriever per question (module docstring)."""
    for q in questions[:WARM_UP]:
        base_call(q.question)
        for call in expansion_calls.values():
            call(q.question)
    times = {"base": [], **{mode: [] for mode in expansion_calls}}
    added, in_pool, recalls = (
        [],
        {"base": 0, "pool": 0},
        {m: [] for m in ("base", *expansion_calls)},
    )
    gold_total = 0
    for q in questions:
        elapsed, base = timed(base_call, q.question)
        times["base"].append(elapsed)
        gold = gold_ids[q.id]
        gold_total += len(gold)
        in_pool["base"] += len(gold & set(ids_of(base)))
        if recall_at_5:
            recalls["base"].append(recall_at_5(q, base))
        for mode, call in expansion_calls.items():
            elapsed, pool = timed(call, q.question)
            times[mode].append(elapsed)
            if recall_at_5:
                recalls[mode].append(recall_at_5(q, pool))
        added.append(len(pool) - len(base))
        in_pool["pool"] += len(gold & set(ids_of(pool)))
    print(f"\n{name}: {len(questions)} questions, k={K}")
    print(f"  base retriever             {summary(times['base'])}")
    for mode in expansion_calls:
        extra = statistics.median(t - b for t, b in zip(times[mode], times["base"])) * 1000
        print(
            f"  expansion, added_score={mode:6s} {summary(times[mode])}  (+{extra:.2f} ms median)"
        )
    print(f"  passages added per query: mean {statistics.fmean(added):.2f}")
    print(
        f"  gold passages in the base top {K}: {in_pool['base'] / gold_total:.3f}; "
        f"in the expanded pool: {in_pool['pool'] / gold_total:.3f}"
    )
    if recall_at_5:
        print(
            "  Recall@5 after CAGE: "
            + ", ".join(f"{m} {statistics.fmean(v):.3f}" for m, v in recalls.items())
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="../shared/data/2wikimultihopqa.jsonl")
    parser.add_argument("--graph-store", default=str(default_store_path()), help="graph store")
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--store-dir", help="Chroma directory (reused when filled)")
    parser.add_argument("--frameworks", default="langchain,llamaindex")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)

    import chromadb
    from chromadb.config import Settings
    from langchain_chroma import Chroma
    from langchain_core.documents import Document

    from cage_langchain import (
        CageExpansionRetriever,
        PackagedMiniLMEmbeddings,
        ScoredVectorStoreRetriever,
    )

    data = Path(args.data)
    questions = load_questions(data)
    pairs = sorted({(p.title, p.text) for q in questions for p in q.passages})
    id_of = {pair: f"p{i}" for i, pair in enumerate(pairs)}
    position = {pid: i for i, pid in enumerate(id_of.values())}
    gold_ids = {q.id: {id_of[(p.title, p.text)] for p in q.passages if p.gold} for q in questions}
    reranker = CageReranker(graph_store=args.graph_store)
    passages = [Passage(text, title=title) for title, text in pairs]
    start = time.perf_counter()
    graphs = reranker.graphs(passages, level="light")
    print(f"{data.name}: {len(pairs)} passages; light graphs in {time.perf_counter() - start:.1f}s")
    titled = LinkIndex.build((id_of[pair], p, g) for pair, p, g in zip(pairs, passages, graphs))
    untitled = LinkIndex.build((id_of[pair], Passage(pair[1]), g) for pair, g in zip(pairs, graphs))
    for label, index in (("with titles", titled), ("without titles", untitled)):
        print(
            f"link index {label}: {len(index)} passages, {index.stored_bytes()} bytes stored, "
            f"{index.bytes_per_passage():.0f} bytes per passage"
        )

    def recall_at_5(question, docs):
        ids = [d.id for d in docs]
        sims = np.asarray([d.metadata[RETRIEVAL_SCORE_KEY] for d in docs], dtype=np.float64)
        ranked = reranker.rerank(
            question.question,
            [passages[position[i]] for i in ids],
            top_n=TOP_N,
            query_similarities=sims,
            graphs=[graphs[position[i]] for i in ids],
        )
        gold = gold_ids[question.id]
        return len(gold & {ids[r.index] for r in ranked}) / len(gold)

    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(args.store_dir or scratch)
        links = Path(scratch) / "links.jsonl"
        titled.save(links)
        settings = Settings(anonymized_telemetry=False)
        docs = [
            Document(page_content=text, metadata={"title": title}, id=id_of[(title, text)])
            for title, text in pairs
        ]
        sample = questions[: args.questions]
        frameworks = args.frameworks.split(",")
        if "langchain" in frameworks:
            store = Chroma(
                collection_name=f"lc-{data.stem}",
                embedding_function=PackagedMiniLMEmbeddings(),
                persist_directory=str(directory / "lc"),
                client_settings=settings,
            )
            if len(store.get_by_ids([d.id for d in docs])) != len(docs):
                start = time.perf_counter()
                store.add_documents(docs)
                print(f"LangChain Chroma store filled in {time.perf_counter() - start:.1f}s")
            base = ScoredVectorStoreRetriever(vectorstore=store, k=K)
            expansions = {
                mode: CageExpansionRetriever(
                    base_retriever=base, vectorstore=store, link_index=links, added_score=mode
                )
                for mode in MODES
            }
            print(
                f"expansion settings: seeds={expansions['lowest'].seeds}, "
                f"limit={expansions['lowest'].limit}"
            )
            measure(
                "LangChain (Chroma, ScoredVectorStoreRetriever)",
                base.invoke,
                {m: r.invoke for m, r in expansions.items()},
                lambda found: [d.id for d in found],
                sample,
                gold_ids,
                recall_at_5,
            )
        if "llamaindex" in frameworks:
            from llama_index.core import StorageContext, VectorStoreIndex
            from llama_index.core.schema import TextNode
            from llama_index.vector_stores.chroma import ChromaVectorStore

            from cage_llamaindex import CageExpansionRetriever as LlamaExpansion
            from cage_llamaindex import PackagedMiniLMEmbedding

            client = chromadb.PersistentClient(path=str(directory / "li"), settings=settings)
            collection = client.get_or_create_collection(f"li-{data.stem}")
            vector_store = ChromaVectorStore(chroma_collection=collection)
            embed_model = PackagedMiniLMEmbedding()
            if collection.count() != len(docs):
                start = time.perf_counter()
                nodes = [TextNode(text=d.page_content, id_=d.id, metadata=d.metadata) for d in docs]
                VectorStoreIndex(
                    nodes,
                    embed_model=embed_model,
                    storage_context=StorageContext.from_defaults(vector_store=vector_store),
                )
                print(f"LlamaIndex Chroma store filled in {time.perf_counter() - start:.1f}s")
            index = VectorStoreIndex.from_vector_store(vector_store, embed_model=embed_model)
            li_base = index.as_retriever(similarity_top_k=K)
            measure(
                "LlamaIndex (Chroma, VectorIndexRetriever)",
                li_base.retrieve,
                {m: LlamaExpansion(li_base, index, links, added_score=m).retrieve for m in MODES},
                lambda found: [n.node.node_id for n in found],
                sample,
                gold_ids,
            )


if __name__ == "__main__":
    main()
