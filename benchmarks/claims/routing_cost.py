"""What routing costs in the frameworks' expansion retrievers (issue 37): ms per query.

    python benchmarks/claims/routing_cost.py [--data ../shared/data/beyond-wikipedia/cuad.jsonl]
        [--corpus ../shared/data/beyond-wikipedia/cuad.corpus.jsonl]
        [--unnamed ../shared/data/hotpotqa.jsonl] [--questions 100] [--repeats 5]
        [--store-dir DIR] [--frameworks langchain,llamaindex]

Setup (kept in ``--store-dir``, a temporary directory by default; a filled one is reused):
the corpus's chunks, untitled, in a persisted Chroma store with MiniLM embeddings (LangChain:
``Chroma``, metadata ``doc_id`` / ``position``; LlamaIndex: a ``VectorStoreIndex`` over
``ChromaVectorStore`` of the same vectors, each node's ``ref_doc_id`` its document), and a
SQLite link store with each chunk's entry (its document and place; no graphs: routing reads
none, so the expansion adds the seeds' neighbours only) and each document's record, built from
its first chunk as ``cage eval`` builds them
(:class:`~cage_core.eval.open_routing.CorpusDocuments`).

Per question, k = 20: the expansion retriever with routing (default ``RoutingSettings``) and
without (``routing=None``), in turn, ``--repeats`` times each, the MiniLM query-embedding cache
emptied before every call (each call embeds its question, as a new question does; with
routing, the question less its naming words too). The routing step's cost of a question is
the difference of its two fastest runs (on a shared machine the fastest run is the one least
slowed by other processes; ``--repeats`` 5 by default). Printed per framework: its p50 / p95
over the questions of ``--data`` that are routed and those that are not, and over the
questions of ``--unnamed`` asked of the same collection (they name no contract: those routed
are false routes, by words a few contracts' openings hold); then
``route()`` alone (the link store's part: all that routing adds to a question it does not
route, whose path is otherwise the same code, so the differences there show the timing's
noise), and the whole retriever's p50 / p95 with and without routing.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from cage_core import Passage
from cage_core.eval.corpus import Corpus, load_corpus
from cage_core.eval.datasets import load_questions
from cage_core.eval.open_routing import CorpusDocuments
from cage_core.expansion.index import LinkIndex, entry_for
from cage_core.models import default_query_embedding

K = 20
BATCH = 2_000
WARM_UP = 5


def percentiles(values: Sequence[float]) -> str:
    ms = sorted(v * 1000 for v in values)
    if not ms:
        return "no questions"
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return f"p50 {statistics.median(ms):7.2f} ms  p95 {p95:7.2f} ms  (n={len(ms)})"


def timed(call: Callable[[str], Any], query: str) -> tuple[float, Any]:
    default_query_embedding.cache_clear()
    start = time.perf_counter()
    out = call(query)
    return time.perf_counter() - start, out


def link_store(path: Path, corpus: Corpus) -> Path:
    """The SQLite link store of the corpus (module docstring), written once."""
    if path.exists():
        return path
    with LinkIndex.open(path, create=True) as index:
        index.add_entries(
            entry_for(p.id or "", Passage(p.text, doc_id=p.doc_id, position=p.position), None)
            for p in corpus.passages
        )
        index.add_documents(CorpusDocuments(corpus).names.records())
    return path


def chroma_client(directory: Path) -> Any:
    import chromadb
    from chromadb.config import Settings

    return chromadb.PersistentClient(
        path=str(directory), settings=Settings(anonymized_telemetry=False)
    )


def langchain_store(directory: Path, corpus: Corpus) -> Any:
    from langchain_chroma import Chroma

    from cage_langchain import PackagedMiniLMEmbeddings

    store = Chroma(
        collection_name="langchain",
        embedding_function=PackagedMiniLMEmbeddings(),
        client=chroma_client(directory),
    )
    if store._collection.count() != len(corpus):
        held = set(store._collection.get(include=[])["ids"])
        passages = [p for p in corpus.passages if p.id not in held]
        print(f"embedding {len(passages)} chunks into Chroma ...", flush=True)
        for start in range(0, len(passages), BATCH):
            batch = passages[start : start + BATCH]
            store.add_texts(
                [p.text for p in batch],
                metadatas=[{"doc_id": p.doc_id, "position": p.position} for p in batch],
                ids=[p.id for p in batch],
            )
            print(f"  {start + len(batch)} / {len(passages)}", flush=True)
    return store


def llamaindex_index(directory: Path, corpus: Corpus, vectors: Any) -> Any:
    from llama_index.core import StorageContext, VectorStoreIndex
    from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode
    from llama_index.vector_stores.chroma import ChromaVectorStore

    from cage_llamaindex import PackagedMiniLMEmbedding

    client = chroma_client(directory)
    collection = client.get_or_create_collection("llamaindex")
    store = ChromaVectorStore(chroma_collection=collection)
    embed_model = PackagedMiniLMEmbedding()
    if collection.count() != len(corpus):
        found = vectors.get(include=["embeddings"])
        by_id = dict(zip(found["ids"], found["embeddings"]))
        nodes = [
            TextNode(
                id_=p.id,
                text=p.text,
                metadata={"position": p.position},
                embedding=list(by_id[p.id]),
                relationships={NodeRelationship.SOURCE: RelatedNodeInfo(node_id=p.doc_id)},
            )
            for p in corpus.passages
        ]
        VectorStoreIndex(
            nodes,
            storage_context=StorageContext.from_defaults(vector_store=store),
            embed_model=embed_model,
            insert_batch_size=BATCH,
        )
    return VectorStoreIndex.from_vector_store(store, embed_model=embed_model)


def measure(
    name: str,
    calls: dict[str, Callable[[str], Any]],
    route: Callable[[str], Any],
    named: Sequence[str],
    unnamed: Sequence[str],
    repeats: int,
    added: Callable[[Any, Any], int],
) -> None:
    """Time the retriever with and without routing per question (module docstring)."""
    for q in [*named[:WARM_UP], *unnamed[:WARM_UP]]:
        for call in calls.values():
            call(q)
    groups: dict[str, list[float]] = {
        f"{group}, {state}": []
        for group in ("named", "unnamed")
        for state in ("routed", "not routed")
    }
    whole: dict[str, list[float]] = {"on": [], "off": []}
    route_times, chunks_added = [], []
    for group, questions in (("named", named), ("unnamed", unnamed)):
        for q in questions:
            start = time.perf_counter()
            routed = bool(route(q))
            route_times.append(time.perf_counter() - start)
            runs: dict[str, list[float]] = {"on": [], "off": []}
            outs: dict[str, Any] = {}
            for r in range(repeats):
                for mode in ("on", "off") if r % 2 == 0 else ("off", "on"):
                    elapsed, outs[mode] = timed(calls[mode], q)
                    runs[mode].append(elapsed)
            on, off = min(runs["on"]), min(runs["off"])
            whole["on"].append(on)
            whole["off"].append(off)
            groups[f"{group}, {'routed' if routed else 'not routed'}"].append(on - off)
            if routed:
                chunks_added.append(added(outs["on"], outs["off"]))
    print(f"\n{name}, k={K}:")
    for key, values in groups.items():
        print(f"  routing step, {key:20s} questions: {percentiles(values)}")
    print(f"  route() alone (link store):                  {percentiles(route_times)}")
    print(f"  retriever without routing:                   {percentiles(whole['off'])}")
    print(f"  retriever with routing:                      {percentiles(whole['on'])}")
    if chunks_added:
        print(f"  chunks added per routed question: mean {statistics.fmean(chunks_added):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="../shared/data/beyond-wikipedia/cuad.jsonl")
    parser.add_argument("--corpus", default="../shared/data/beyond-wikipedia/cuad.corpus.jsonl")
    parser.add_argument("--unnamed", default="../shared/data/hotpotqa.jsonl")
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--store-dir", help="Chroma and link store directory (reused)")
    parser.add_argument("--frameworks", default="langchain,llamaindex")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    directory = Path(args.store_dir or tempfile.mkdtemp(prefix="routing-cost-"))
    directory.mkdir(parents=True, exist_ok=True)
    corpus = load_corpus(args.corpus, titles=False)
    named = [q.question for q in load_questions(args.data)[: args.questions]]
    unnamed = [q.question for q in load_questions(args.unnamed)[: max(1, args.questions // 2)]]
    links = link_store(directory / "links.sqlite", corpus)
    print(f"{len(corpus)} chunks, {len(CorpusDocuments(corpus).chunks)} documents; {directory}")
    store = langchain_store(directory, corpus)
    frameworks = args.frameworks.split(",")
    if "langchain" in frameworks:
        from cage_langchain import CageExpansionRetriever, ScoredVectorStoreRetriever

        base = ScoredVectorStoreRetriever(vectorstore=store, k=K)
        on = CageExpansionRetriever(base_retriever=base, vectorstore=store, link_index=links)
        off = CageExpansionRetriever(
            base_retriever=base, vectorstore=store, link_index=links, routing=None
        )
        measure(
            "LangChain (Chroma, SQLite link store)",
            {"on": on.invoke, "off": off.invoke},
            on.route,
            named,
            unnamed,
            args.repeats,
            lambda with_, without: len({d.id for d in with_} - {d.id for d in without}),
        )
    if "llamaindex" in frameworks:
        from cage_llamaindex import CageExpansionRetriever as LlamaExpansionRetriever

        index = llamaindex_index(directory, corpus, store._collection)
        retriever = index.as_retriever(similarity_top_k=K)
        on_l = LlamaExpansionRetriever(retriever, index, links)
        off_l = LlamaExpansionRetriever(retriever, index, links, routing=None)
        measure(
            "LlamaIndex (Chroma, SQLite link store)",
            {"on": on_l.retrieve, "off": off_l.retrieve},
            on_l.route,
            named,
            unnamed,
            args.repeats,
            lambda with_, without: len(
                {n.node.node_id for n in with_} - {n.node.node_id for n in without}
            ),
        )


if __name__ == "__main__":
    main()
