"""The README's LangChain recipe, the plain ``store.as_retriever()`` recipe and the LlamaIndex
query engine over Chroma, measured.

    python benchmarks/claims/real_pipelines.py [--queries N]

For each recipe and k in (10, 20): the example documents (examples/data, 40 Wikipedia
passages) are enriched at ingest (CageGraphTransformer / CageGraphExtractor), stored in an
embedded Chroma collection on disk, and queried with the bundled questions and one question per
document title. The recipes: "langchain" (ScoredVectorStoreRetriever → CageRerank, the README's),
"langchain-plain" (``store.as_retriever()`` → CageRerank: no scores, so CageRerank embeds;
the slow path it warns about once), "llamaindex" (``index.as_retriever()`` → CageRerank).
Printed per row:

* stored graph bytes per document (UTF-8 of the ``cage_graph`` metadata string): median, max;
* the rerank step (CageRerank on the k retrieved documents, plus one query embedding) warm in
  this process, p50 and p95 over the queries, and its ratio to embedding the same k documents
  (what the rerank step would otherwise add: the old recipe re-embedded them every query);
* the first rerank step in a fresh process that reopens the store (and whether it loaded spaCy);
* passages parsed per query (0 when every stored graph is used);
* the warnings printed (logged at WARNING or raised as Python warnings) during the warm row,
  counted, with the first one's opening words. The first query of a row also appears alone
  (its step embeds every document it has not seen; later ones reuse CageRerank's cache).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "examples" / "data" / "wiki_passages.jsonl"
DEMO = ROOT / "cage_core" / "data" / "demo.jsonl"
KS = (10, 20)
TOP_N = 5
COLLECTION = "cage-bench"


def rows() -> list[dict]:
    return [json.loads(line) for line in DOCS.read_text(encoding="utf-8").splitlines()]


def queries(n: int) -> list[str]:
    demo = [json.loads(line)["question"] for line in DEMO.read_text(encoding="utf-8").splitlines()]
    titles = [f"What is known about {r['title']}?" for r in rows()]
    return (demo + titles)[:n]


def chroma_settings():
    from chromadb.config import Settings

    return Settings(anonymized_telemetry=False)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def timed_steps(
    qs: list[str],
    *,
    retrieve: Callable[[str], Any],
    step: Callable[[str, Any], Any],
    embed_docs: Callable[[Any], Any],
    parses: Callable[[], int],
) -> dict:
    """Per query: ``retrieve`` (not timed), then time ``step`` (one query embedding + the
    rerank) and, for comparison, ``embed_docs`` (embedding the retrieved documents again)."""
    step_s, embed_s = [], []
    printed = _Printed()
    with printed:
        for q in qs:
            found = retrieve(q)
            start = time.perf_counter()
            step(q, found)
            step_s.append(time.perf_counter() - start)
            start = time.perf_counter()
            embed_docs(found)
            embed_s.append(time.perf_counter() - start)
    return {
        "step": step_s,
        "embed_docs": embed_s,
        "parses": parses(),
        "spacy": "spacy" in sys.modules,
        "warnings": printed.lines,
    }


class _Printed(logging.Handler):
    """What a user would see on stderr: WARNING+ log records and Python warnings, as lines."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.name}: {record.getMessage()}")

    def __enter__(self) -> _Printed:
        logging.getLogger().addHandler(self)
        self._caught = warnings.catch_warnings(record=True)
        self._records = self._caught.__enter__()
        warnings.simplefilter("default")
        return self

    def __exit__(self, *exc: object) -> None:
        self._caught.__exit__(*exc)
        logging.getLogger().removeHandler(self)
        self.lines += [f"{w.category.__name__}: {w.message}" for w in self._records]


# -- LangChain: the README recipe ----------------------------------------------------------
def langchain_ingest(path: str) -> list[int]:
    from langchain_chroma import Chroma
    from langchain_core.documents import Document

    from cage_langchain import CageGraphTransformer, PackagedMiniLMEmbeddings

    docs = [
        Document(page_content=r["text"], metadata={"title": r["title"]}, id=str(i))
        for i, r in enumerate(rows())
    ]
    docs = CageGraphTransformer().transform_documents(docs)
    Chroma.from_documents(
        docs,
        PackagedMiniLMEmbeddings(),
        collection_name=COLLECTION,
        persist_directory=path,
        client_settings=chroma_settings(),
    )
    return [len(d.metadata["cage_graph"].encode("utf-8")) for d in docs]


def langchain_steps(path: str, k: int, qs: list[str]) -> dict:
    """Per query: retrieve (not timed), then time [embed the query + CageRerank]."""
    from langchain_chroma import Chroma

    from cage_langchain import CageRerank, PackagedMiniLMEmbeddings, ScoredVectorStoreRetriever

    embeddings = PackagedMiniLMEmbeddings()
    store = Chroma(
        collection_name=COLLECTION,
        embedding_function=embeddings,
        persist_directory=path,
        client_settings=chroma_settings(),
    )
    retriever = ScoredVectorStoreRetriever(vectorstore=store, k=k)
    rerank = CageRerank(top_n=TOP_N)
    return timed_steps(
        qs,
        retrieve=retriever.invoke,
        step=lambda q, docs: (embeddings.embed_query(q), rerank.compress_documents(docs, q)),
        embed_docs=lambda docs: embeddings.embed_documents([d.page_content for d in docs]),
        parses=lambda: rerank.reranker.parse_count,
    )


# -- LlamaIndex: IngestionPipeline + VectorStoreIndex + query engine postprocessor ------------
def llamaindex_ingest(path: str) -> list[int]:
    import chromadb
    from llama_index.core import StorageContext, VectorStoreIndex
    from llama_index.core.ingestion import IngestionPipeline
    from llama_index.core.schema import TextNode
    from llama_index.vector_stores.chroma import ChromaVectorStore

    from cage_llamaindex import CageGraphExtractor, PackagedMiniLMEmbedding

    nodes = [
        TextNode(text=r["text"], id_=str(i), metadata={"title": r["title"]})
        for i, r in enumerate(rows())
    ]
    nodes = IngestionPipeline(transformations=[CageGraphExtractor()]).run(nodes=nodes)
    client = chromadb.PersistentClient(path=path, settings=chroma_settings())
    store = ChromaVectorStore(chroma_collection=client.get_or_create_collection(COLLECTION))
    VectorStoreIndex(
        nodes,
        storage_context=StorageContext.from_defaults(vector_store=store),
        embed_model=PackagedMiniLMEmbedding(),
    )
    return [len(n.metadata["cage_graph"].encode("utf-8")) for n in nodes]


def llamaindex_steps(path: str, k: int, qs: list[str]) -> dict:
    """Per query: retrieve (not timed), then time [embed the query + CageRerank]."""
    import chromadb
    from llama_index.core import VectorStoreIndex
    from llama_index.core.schema import QueryBundle
    from llama_index.vector_stores.chroma import ChromaVectorStore

    from cage_llamaindex import CageRerank, PackagedMiniLMEmbedding

    embed_model = PackagedMiniLMEmbedding()
    client = chromadb.PersistentClient(path=path, settings=chroma_settings())
    index = VectorStoreIndex.from_vector_store(
        ChromaVectorStore(chroma_collection=client.get_collection(COLLECTION)),
        embed_model=embed_model,
    )
    retriever = index.as_retriever(similarity_top_k=k)
    rerank = CageRerank(top_n=TOP_N)
    return timed_steps(
        qs,
        retrieve=retriever.retrieve,
        step=lambda q, nodes: (
            embed_model.get_query_embedding(q),
            rerank.postprocess_nodes(nodes, QueryBundle(q)),
        ),
        embed_docs=lambda nodes: embed_model.get_text_embedding_batch(
            [n.node.get_content() for n in nodes]
        ),
        parses=lambda: rerank.reranker.parse_count,
    )


def langchain_plain_steps(path: str, k: int, qs: list[str]) -> dict:
    """The plain recipe most tutorials show: ``store.as_retriever()`` → CageRerank."""
    from langchain_chroma import Chroma

    from cage_langchain import CageRerank, PackagedMiniLMEmbeddings

    embeddings = PackagedMiniLMEmbeddings()
    store = Chroma(
        collection_name=COLLECTION,
        embedding_function=embeddings,
        persist_directory=path,
        client_settings=chroma_settings(),
    )
    retriever = store.as_retriever(search_kwargs={"k": k})
    rerank = CageRerank(top_n=TOP_N)
    return timed_steps(
        qs,
        retrieve=retriever.invoke,
        step=lambda q, docs: (embeddings.embed_query(q), rerank.compress_documents(docs, q)),
        embed_docs=lambda docs: embeddings.embed_documents([d.page_content for d in docs]),
        parses=lambda: rerank.reranker.parse_count,
    )


FRAMEWORKS = {
    "langchain": (langchain_ingest, langchain_steps),
    "langchain-plain": (langchain_ingest, langchain_plain_steps),
    "llamaindex": (llamaindex_ingest, llamaindex_steps),
}


def fresh_process(framework: str, path: str, k: int, query: str) -> dict:
    """The first rerank step of a new Python process over the stored collection."""
    out = subprocess.run(
        [sys.executable, __file__, "--child", framework, path, str(k), query],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ},
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _warned(lines: list[str]) -> str:
    return "0" if not lines else f"{len(lines)}: {lines[0][:110]}…".replace("|", "/")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=30, help="queries per row (default 30)")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        framework, path, k, query = args.child
        result = FRAMEWORKS[framework][1](path, int(k), [query])
        print(
            json.dumps(
                {
                    "step": result["step"][0],
                    "spacy": result["spacy"],
                    "parses": result["parses"],
                    "warnings": result["warnings"],
                }
            )
        )
        return 0
    qs = queries(args.queries)
    print(f"{len(rows())} documents, {len(qs)} queries per row, top_n={TOP_N}; times in ms")
    print(
        "| pipeline | k | stored bytes/doc median (max) | rerank step: first query, p50 / p95 "
        "warm | embedding the k docs p50 | step p50 / embedding | fresh process step (spaCy "
        "loaded) | parses/query | warnings printed (warm; fresh process) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for framework, (ingest, steps) in FRAMEWORKS.items():
        with tempfile.TemporaryDirectory() as path:
            sizes = ingest(path)
            for k in KS:
                warm = steps(path, k, qs)
                cold = fresh_process(framework, path, k, qs[0])
                p50, p95 = percentile(warm["step"], 0.5), percentile(warm["step"], 0.95)
                embed = statistics.median(warm["embed_docs"])
                print(
                    f"| {framework} + Chroma | {k} | "
                    f"{statistics.median(sizes):.0f} ({max(sizes)}) | "
                    f"{1e3 * warm['step'][0]:.1f}, {1e3 * p50:.1f} / {1e3 * p95:.1f} | "
                    f"{1e3 * embed:.1f} | {p50 / embed:.2f} | "
                    f"{1e3 * cold['step']:.0f} ({'yes' if cold['spacy'] else 'no'}) | "
                    f"{warm['parses'] / len(qs):g} | {_warned(warm['warnings'])}; "
                    f"{_warned(cold['warnings'])} |",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
