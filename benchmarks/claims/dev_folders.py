"""DEV folders benchmark (issue 45): on real folders nobody tuned on, does the README's CAGE path
beat a plain dense retriever and the frameworks' own hybrid retrievers, and does routing fire
for the questions that name a document (and only for them)?

Corpus: each ``benchmarks/data/dev_folders/<name>.json`` and its folder ``<name>/`` (the
questions and gold were committed before any ranking was run; ``benchmarks/checks/
dev_folders_check.py`` checks them). Every file is read as text, as published (HTML too), with
``metadata["source"]`` = its path in the folder, and split by the README's
``RecursiveCharacterTextSplitter(chunk_size=500, chunk_overlap=0, add_start_index=True)``; a
chunk's id is ``"<source>:<start_index>"``. A gold selector (file, verbatim phrase) names the
one chunk of its file that holds the phrase (the script stops when one names none or several).
Both frameworks rank the same chunks under the same ids.

Per folder and framework, ingest once (the CAGE component writes the link index, MiniLM
embeds), then per question, with nothing tuned:

- **plain**: the dense retriever's top ``k`` (20) (LangChain ``ScoredVectorStoreRetriever``
  over ``InMemoryVectorStore``; LlamaIndex ``index.as_retriever``);
- **cage**: that pool reranked by the default ``CageRerank()``;
- **cage --expand**: the pool of ``CageExpansionRetriever`` (links, same-document neighbours,
  routing) over the plain retriever, reranked by ``CageRerank()``;
- **hybrid legs N** (N = 5, 20): LangChain ``EnsembleRetriever`` of ``BM25Retriever`` and the
  store's retriever, each ``k=N``, weights 0.5 / 0.5; LlamaIndex ``QueryFusionRetriever`` of
  the vector retriever and ``BM25Retriever``, each ``similarity_top_k=N``,
  ``mode="reciprocal_rerank"``, ``num_queries=1`` (no LLM: ``MockLLM``).

Printed per framework: R@5 (share of a question's gold chunks in the top 5, mean over the
folder's questions) per folder and method, and pooled over every question; all@5 of the
two-document questions (share with every gold chunk in the top 5); and how often routing fired
(a document of the expanded pool carries ``cage_route``) for the questions that name a
document, for the other questions and for the off-topic ones. Run from the repository root::

    python benchmarks/claims/dev_folders.py [--frameworks langchain,llamaindex]
        [--folders ethereum_eips,httpx_docs] [--k 20] [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # rank with this tree's cage_core, not an installed copy
DATA = ROOT / "benchmarks" / "data" / "dev_folders"
FRAMEWORKS = ("langchain", "llamaindex")
CHUNK_SIZE = 500  # the README's splitter
LEGS = (5, 20)

# method -> question id -> (chunk ids best first, routing fired or None when not asked)
Ranked = dict[str, dict[str, tuple[list[str], bool | None]]]


def load_chunks(spec_path: Path, chunk_size: int = CHUNK_SIZE) -> tuple[dict, list]:
    """The folder's question file and its chunks, each with the id ``"<source>:<start_index>"``."""
    from langchain_core.documents import Document
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    folder = spec_path.with_suffix("")
    docs = [
        Document((folder / f).read_text(encoding="utf-8"), metadata={"source": f})
        for f in spec["files"]
    ]
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=chunk_size, chunk_overlap=0, add_start_index=True
    )
    chunks = splitter.split_documents(docs)
    for chunk in chunks:
        chunk.id = f"{chunk.metadata['source']}:{chunk.metadata['start_index']}"
    return spec, chunks


def gold_ids(spec: dict, chunks: Sequence) -> dict[str, list[str]]:
    """Each question's gold chunk ids (two parts in one chunk count once); exits when a selector
    names no chunk or several."""
    problems, out = [], {}
    for q in spec["questions"]:
        ids: list[str] = []
        for selector in q["gold"]:
            found = [
                c.id
                for c in chunks
                if c.metadata["source"] == selector["file"]
                and selector["contains"] in c.page_content
            ]
            if len(found) != 1:
                problems.append(f"{q['id']}: {selector} names {len(found)} chunks")
            ids += [i for i in found[:1] if i not in ids]
        out[q["id"]] = ids
    if problems:
        sys.exit("gold selectors that do not name exactly one chunk:\n  " + "\n  ".join(problems))
    return out


def is_two_document(question: dict) -> bool:
    return question["type"] == "two_document" or question.get("two_document") is True


def recall(order: Sequence[str], gold: Sequence[str], k: int = 5) -> float:
    return sum(g in order[:k] for g in gold) / len(gold)


def langchain_methods(
    chunks: list, k: int
) -> dict[str, Callable[[str], tuple[list[str], bool | None]]]:
    """The LangChain path (module docstring): method -> ``rank(question)``."""
    from langchain_classic.retrievers import EnsembleRetriever
    from langchain_community.retrievers import BM25Retriever
    from langchain_core.vectorstores import InMemoryVectorStore

    from cage_core.expansion.index import LinkIndex
    from cage_core.integrations.document_routing import ROUTE_KEY
    from cage_langchain import (
        CageExpansionRetriever,
        CageGraphTransformer,
        CageRerank,
        PackagedMiniLMEmbeddings,
        ScoredVectorStoreRetriever,
    )

    links = LinkIndex()
    enriched = list(CageGraphTransformer(link_index=links).transform_documents(chunks))
    store = InMemoryVectorStore(PackagedMiniLMEmbeddings())
    store.add_documents(enriched)
    base = ScoredVectorStoreRetriever(vectorstore=store, k=k)
    expand = CageExpansionRetriever(base_retriever=base, vectorstore=store, link_index=links)
    cage = CageRerank(top_n=None)

    def plain(q: str) -> tuple[list[str], bool | None]:
        return [d.id for d in base.invoke(q)], None

    def reranked(q: str) -> tuple[list[str], bool | None]:
        return [d.id for d in cage.compress_documents(base.invoke(q), q)], None

    def expanded(q: str) -> tuple[list[str], bool | None]:
        pool = expand.invoke(q)
        routed = any(ROUTE_KEY in d.metadata for d in pool)
        return [d.id for d in cage.compress_documents(pool, q)], routed

    methods = {"plain": plain, "cage": reranked, "cage --expand": expanded}
    for n in LEGS:
        ensemble = EnsembleRetriever(
            retrievers=[
                BM25Retriever.from_documents(enriched, k=n),
                store.as_retriever(search_kwargs={"k": n}),
            ],
            weights=[0.5, 0.5],
        )
        methods[f"hybrid legs {n}"] = lambda q, e=ensemble: ([d.id for d in e.invoke(q)], None)
    return methods


def llamaindex_methods(
    chunks: list, k: int
) -> dict[str, Callable[[str], tuple[list[str], bool | None]]]:
    """The LlamaIndex path: the same chunks as ``TextNode``s under the same ids, with what a
    node parser gives them (``SOURCE`` = the file, ``PREVIOUS`` / ``NEXT`` within it,
    ``start_char_idx``; ``source`` in metadata, not embedded), ``CageGraphExtractor`` in an
    ``IngestionPipeline``, ``VectorStoreIndex`` with the packaged MiniLM."""
    from llama_index.core import VectorStoreIndex
    from llama_index.core.ingestion import IngestionPipeline
    from llama_index.core.llms import MockLLM
    from llama_index.core.retrievers import QueryFusionRetriever
    from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode
    from llama_index.retrievers.bm25 import BM25Retriever

    from cage_core.expansion.index import LinkIndex
    from cage_core.integrations.document_routing import ROUTE_KEY
    from cage_llamaindex import (
        CageExpansionRetriever,
        CageGraphExtractor,
        CageRerank,
        PackagedMiniLMEmbedding,
    )

    nodes = []
    for chunk in chunks:
        offset = chunk.metadata["start_index"]
        node = TextNode(
            id_=chunk.id,
            text=chunk.page_content,
            metadata={"source": chunk.metadata["source"]},
            excluded_embed_metadata_keys=["source"],
            start_char_idx=offset,
            end_char_idx=offset + len(chunk.page_content),
        )
        node.relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(
            node_id=chunk.metadata["source"]
        )
        nodes.append(node)
    for before, after in zip(nodes, nodes[1:]):
        if before.ref_doc_id == after.ref_doc_id:
            before.relationships[NodeRelationship.NEXT] = RelatedNodeInfo(node_id=after.node_id)
            after.relationships[NodeRelationship.PREVIOUS] = RelatedNodeInfo(node_id=before.node_id)
    links = LinkIndex()
    enriched = IngestionPipeline(transformations=[CageGraphExtractor(link_index=links)]).run(
        nodes=nodes
    )
    index = VectorStoreIndex(enriched, embed_model=PackagedMiniLMEmbedding())
    base = index.as_retriever(similarity_top_k=k)
    expand = CageExpansionRetriever(base, index, links)
    cage = CageRerank(top_n=None)

    def plain(q: str) -> tuple[list[str], bool | None]:
        return [n.node_id for n in base.retrieve(q)], None

    def reranked(q: str) -> tuple[list[str], bool | None]:
        return [n.node_id for n in cage.postprocess_nodes(base.retrieve(q), query_str=q)], None

    def expanded(q: str) -> tuple[list[str], bool | None]:
        pool = expand.retrieve(q)
        routed = any(ROUTE_KEY in n.node.metadata for n in pool)
        return [n.node_id for n in cage.postprocess_nodes(pool, query_str=q)], routed

    methods = {"plain": plain, "cage": reranked, "cage --expand": expanded}
    for n in LEGS:
        fusion = QueryFusionRetriever(
            [
                index.as_retriever(similarity_top_k=n),
                BM25Retriever.from_defaults(nodes=enriched, similarity_top_k=n),
            ],
            llm=MockLLM(),  # num_queries=1 generates no query; no LLM is configured offline
            mode="reciprocal_rerank",
            similarity_top_k=n,
            num_queries=1,
            use_async=False,
        )
        methods[f"hybrid legs {n}"] = lambda q, f=fusion: ([x.node_id for x in f.retrieve(q)], None)
    return methods


def run_folder(spec_path: Path, framework: str, k: int) -> dict:
    """Every method's ranking of every question (and the off-topic ones' routing) of one folder."""
    spec, chunks = load_chunks(spec_path)
    gold = gold_ids(spec, chunks)  # before any ranking: a bad selector stops here
    started = time.perf_counter()
    methods = (langchain_methods if framework == "langchain" else llamaindex_methods)(chunks, k)
    print(
        f"{spec_path.stem}: {len(chunks)} chunks of {len(spec['files'])} files, "
        f"{len(spec['questions'])} questions; ingest {time.perf_counter() - started:.0f} s",
        file=sys.stderr,
    )
    ranked: Ranked = {
        name: {q["id"]: rank(q["question"]) for q in spec["questions"]}
        for name, rank in methods.items()
    }
    off_routed = [methods["cage --expand"](q["question"])[1] for q in spec.get("off_topic", [])]
    return {"spec": spec, "gold": gold, "ranked": ranked, "off_routed": off_routed}


def folder_rows(result: dict) -> dict[str, dict[str, float]]:
    """Per method: R@5 over the folder's questions, all@5 of its two-document questions."""
    questions, gold = result["spec"]["questions"], result["gold"]
    two = [q["id"] for q in questions if is_two_document(q)]
    rows = {}
    for name, by_question in result["ranked"].items():
        rows[name] = {
            "R@5": sum(recall(by_question[i][0], gold[i]) for i in gold) / len(gold),
            "two-doc all@5": sum(recall(by_question[i][0], gold[i]) == 1 for i in two) / len(two),
        }
    return rows


def pooled_rows(results: Sequence[dict]) -> dict[str, dict[str, float]]:
    """R@5 and two-document all@5 over every question of every folder."""
    rows: dict[str, dict[str, float]] = {}
    for name in results[0]["ranked"]:
        r5, all5, n, n_two = 0.0, 0, 0, 0
        for result in results:
            gold = result["gold"]
            for q in result["spec"]["questions"]:
                hit = recall(result["ranked"][name][q["id"]][0], gold[q["id"]])
                r5, n = r5 + hit, n + 1
                if is_two_document(q):
                    all5, n_two = all5 + (hit == 1), n_two + 1
        rows[name] = {"R@5": r5 / n, "two-doc all@5": all5 / n_two}
    return rows


def routing_counts(result: dict) -> tuple[int, int, int, int, int, int]:
    """(fired, of) for the naming questions, the other questions and the off-topic ones."""
    expanded = result["ranked"]["cage --expand"]
    naming = [q["id"] for q in result["spec"]["questions"] if q["type"] == "names_document"]
    other = [q["id"] for q in result["spec"]["questions"] if q["type"] != "names_document"]
    off = result["off_routed"]
    return (
        sum(bool(expanded[i][1]) for i in naming),
        len(naming),
        sum(bool(expanded[i][1]) for i in other),
        len(other),
        sum(bool(r) for r in off),
        len(off),
    )


def print_tables(framework: str, results: Sequence[dict]) -> None:
    names = list(results[0]["ranked"])
    per_folder = {r["spec_name"]: folder_rows(r) for r in results}
    pooled = pooled_rows(results)
    for metric in ("R@5", "two-doc all@5"):
        print(f"\n{framework}: {metric}")
        print("| method | " + " | ".join(per_folder) + " | pooled |")
        print("|---|" + "---|" * (len(per_folder) + 1))
        for name in names:
            cells = [f"{rows[name][metric]:.3f}" for rows in per_folder.values()]
            print(f"| {name} | " + " | ".join(cells) + f" | {pooled[name][metric]:.3f} |")
    print(f"\n{framework}: routing fired (a document of the cage --expand pool carries cage_route)")
    print("| folder | naming questions | other questions | off-topic |")
    print("|---|---|---|---|")
    totals = [0] * 6
    for result in results:
        counts = routing_counts(result)
        totals = [a + b for a, b in zip(totals, counts)]
        print(
            f"| {result['spec_name']} | {counts[0]}/{counts[1]} | {counts[2]}/{counts[3]} | {counts[4]}/{counts[5]} |"
        )
    print(f"| all | {totals[0]}/{totals[1]} | {totals[2]}/{totals[3]} | {totals[4]}/{totals[5]} |")


def names_list(text: str, known: Sequence[str], what: str) -> tuple[str, ...]:
    names = tuple(part.strip() for part in text.split(",") if part.strip())
    unknown = [n for n in names if n not in known]
    if not names or unknown:
        raise argparse.ArgumentTypeError(
            f"unknown {what} {unknown or text!r}; known: {tuple(known)}"
        )
    return names


def main(argv: Sequence[str] | None = None) -> None:
    folders = sorted(p.stem for p in DATA.glob("*.json"))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--frameworks",
        type=lambda t: names_list(t, FRAMEWORKS, "framework"),
        default=FRAMEWORKS,
        help="langchain, llamaindex or both, comma-separated (default: both)",
    )
    parser.add_argument(
        "--folders",
        type=lambda t: names_list(t, folders, "folder"),
        default=tuple(folders),
        help="DEV folders, comma-separated (default: all)",
    )
    parser.add_argument("--k", type=int, default=20, help="the dense retriever's k (default: 20)")
    parser.add_argument("--json", type=Path, help="also write every ranking here")
    args = parser.parse_args(argv)
    if args.k < 1:
        parser.error("--k must be at least 1")
    dump = {}
    for framework in args.frameworks:
        results = []
        for name in args.folders:
            result = run_folder(DATA / f"{name}.json", framework, args.k)
            result["spec_name"] = name
            results.append(result)
            dump[f"{framework}/{name}"] = {"gold": result["gold"], "ranked": result["ranked"]}
        print_tables(framework, results)
    if args.json:
        args.json.write_text(json.dumps(dump, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
