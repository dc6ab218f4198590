"""CAGE behind the frameworks' hybrid retrievers, on the DEV folders: does it still lift them?

    python benchmarks/claims/hybrid_folders.py [--data DIR] [--folders NAME,...]
        [--frameworks langchain,llamaindex] [--legs 10,20] [--json OUT.json]

The docs show ``CageRerank`` behind a hybrid retriever (``docs/langchain.md``,
``docs/llamaindex.md``) and ``benchmarks/claims/hybrid_retrievers.py`` times it; this script
measures what it does to the ranking. Per folder (``benchmarks/data/dev_folders``, or
``--data``: the chunks and gold of ``benchmarks/claims/dev_folders.py``) and framework, the
README path's ingest (``crossval.dev_folders.langchain_ingest`` / ``llamaindex_ingest``), then
per question and base retriever:

- **dense 20**, the README's base: ``ScoredVectorStoreRetriever(k=20)`` /
  ``index.as_retriever(similarity_top_k=20)``;
- **hybrid legs N**: the BM25 leg and the dense leg, each its top N, fused by reciprocal rank
  into their union (at most 2N): LangChain ``EnsembleRetriever`` (weights 0.5 / 0.5),
  LlamaIndex ``QueryFusionRetriever`` (``mode="reciprocal_rerank"``, ``num_queries=1``,
  ``similarity_top_k=2N``, ``MockLLM``: no query is generated).

Behind each base: **plain** (the base's own order), **cage** (the base's pool reranked by
``CageRerank``) and **cage --expand** (``CageExpansionRetriever`` over the base, then
``CageRerank``). ``CageRerank`` reads the cosines of the stored vectors
(``vectorstore=store`` / ``index=index``; the dense base's LangChain path reads the
retriever's scores, as the README does: the same cosines). Printed per framework: R@5 per
folder, base and method, pooled over every question, and the share of gold parts in the
expanded pool.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # rank with this tree's cage_core, not an installed copy
sys.path.insert(0, str(ROOT / "benchmarks"))  # crossval: the DEV folders' shared parts

from crossval.dev_folders import (
    DATA,
    gold_ids,
    langchain_hybrid,
    langchain_ingest,
    llamaindex_hybrid,
    llamaindex_ingest,
    load_chunks,
    parsed_folder_specs,
    recall,
)

K = 20
FRAMEWORKS = ("langchain", "llamaindex")
METHODS = ("plain", "cage", "cage --expand")
Ranker = Callable[[str], dict[str, list[str]]]
"""``rank(question)``: per method, the ranked ids, and ``"pool"``: the expanded pool's ids."""


def langchain_rankers(chunks: list, legs: Sequence[int]) -> dict[str, Ranker]:
    """Per base retriever (module docstring), the LangChain path's :data:`Ranker`."""
    from cage_langchain import CageExpansionRetriever, CageRerank, ScoredVectorStoreRetriever

    enriched, store, links = langchain_ingest(chunks)
    bases: dict[str, tuple[Any, Any]] = {
        f"dense {K}": (ScoredVectorStoreRetriever(vectorstore=store, k=K), CageRerank(top_n=5))
    }
    for n in legs:
        hybrid = langchain_hybrid(enriched, store, n)
        bases[f"hybrid legs {n}"] = (hybrid, CageRerank(top_n=5, vectorstore=store))

    def ranker(base: Any, rerank: Any) -> Ranker:
        expand = CageExpansionRetriever(base_retriever=base, vectorstore=store, link_index=links)

        def rank(question: str) -> dict[str, list[str]]:
            pool, expanded = base.invoke(question), expand.invoke(question)
            return {
                "plain": [str(d.id) for d in pool],
                "cage": [str(d.id) for d in rerank.compress_documents(pool, question)],
                "cage --expand": [str(d.id) for d in rerank.compress_documents(expanded, question)],
                "pool": [str(d.id) for d in expanded],
            }

        return rank

    return {name: ranker(*parts) for name, parts in bases.items()}


def llamaindex_rankers(chunks: list, legs: Sequence[int]) -> dict[str, Ranker]:
    """Per base retriever (module docstring), the LlamaIndex path's :data:`Ranker`."""
    from cage_llamaindex import CageExpansionRetriever, CageRerank

    enriched, index, links = llamaindex_ingest(chunks)
    bases: dict[str, Any] = {f"dense {K}": index.as_retriever(similarity_top_k=K)}
    for n in legs:
        bases[f"hybrid legs {n}"] = llamaindex_hybrid(enriched, index, n, top=2 * n)
    rerank = CageRerank(top_n=5, index=index)

    def ranker(base: Any) -> Ranker:
        expand = CageExpansionRetriever(base, index, links)

        def rank(question: str) -> dict[str, list[str]]:
            pool, expanded = base.retrieve(question), expand.retrieve(question)
            return {
                "plain": [n.node_id for n in pool],
                "cage": [n.node_id for n in rerank.postprocess_nodes(pool, query_str=question)],
                "cage --expand": [
                    n.node_id for n in rerank.postprocess_nodes(expanded, query_str=question)
                ],
                "pool": [n.node_id for n in expanded],
            }

        return rank

    return {name: ranker(base) for name, base in bases.items()}


def folder_rows(spec_path: Path, framework: str, legs: Sequence[int]) -> dict[str, dict]:
    """Per question with gold, per base: R@5 of each method and the expanded pool's gold share."""
    spec, chunks = load_chunks(spec_path)
    gold = gold_ids(spec, chunks)
    make = langchain_rankers if framework == "langchain" else llamaindex_rankers
    rankers = make(chunks, legs)
    rows: dict[str, dict] = {}
    for q in spec["questions"]:
        g = gold.get(q["id"]) or []
        if not g:
            continue
        row = {}
        for base, rank in rankers.items():
            ranked = rank(q["question"])
            row[base] = {m: recall(ranked[m], g, 5) for m in METHODS}
            row[base]["pool"] = len(set(ranked["pool"]) & set(g)) / len(g)
        rows[q["id"]] = row
    return rows


def table(framework: str, results: dict[str, dict[str, dict]]) -> None:
    """Per folder and pooled: R@5 of plain / cage / cage --expand, and the pool's gold share."""
    bases = list(next(iter(next(iter(results.values())).values())))
    print(f"\n{framework}: R@5 plain / cage / cage --expand (gold share of the expanded pool)\n")
    print("| folder | questions | " + " | ".join(bases) + " |")
    print("|---|---|" + "---|" * len(bases))
    every = [row for rows in results.values() for row in rows.values()]
    for name, rows in [*results.items(), ("pooled", dict(enumerate(every)))]:
        cells = []
        for base in bases:
            mean = {
                k: sum(r[base][k] for r in rows.values()) / len(rows) for k in (*METHODS, "pool")
            }
            cells.append(" / ".join(f"{mean[m]:.3f}" for m in METHODS) + f" ({mean['pool']:.3f})")
        print(f"| {name} | {len(rows)} | " + " | ".join(cells) + " |", flush=True)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help="the folder of folder specs")
    parser.add_argument("--folders", default="", help="folders of --data, comma-separated (all)")
    parser.add_argument("--frameworks", default=",".join(FRAMEWORKS))
    parser.add_argument("--legs", default="10,20", help="each leg's k, comma-separated")
    parser.add_argument("--json", type=Path, default=None, help="every question's figures")
    args = parser.parse_args(argv)
    frameworks = args.frameworks.split(",")
    if unknown := set(frameworks) - set(FRAMEWORKS):
        parser.error(f"unknown framework(s) {sorted(unknown)}; choose among {FRAMEWORKS}")
    try:
        legs = [int(n) for n in args.legs.split(",")]
    except ValueError:
        parser.error(f"--legs must be whole numbers, comma-separated, got {args.legs!r}")
    if any(n < 1 for n in legs):
        parser.error("--legs must be at least 1")
    paths = parsed_folder_specs(parser, args.data, args.folders)
    dump = {}
    for framework in frameworks:
        results = {p.stem: folder_rows(p, framework, legs) for p in paths}
        table(framework, results)
        dump[framework] = results
    if args.json:
        args.json.write_text(json.dumps(dump, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
