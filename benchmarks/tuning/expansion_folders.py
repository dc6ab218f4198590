"""The link expansion's seeds and limit on the DEV folders, through the README paths.

    python benchmarks/tuning/expansion_folders.py [--folders NAME,...]
        [--frameworks langchain,llamaindex] [--out FILE]

Per DEV folder (``benchmarks/data/dev_folders``, the chunks and gold of
``benchmarks/claims/dev_folders.py``) and framework, the README path's ingest
(``crossval.dev_folders.langchain_ingest`` / ``llamaindex_ingest``: the CAGE component writes
the link index, MiniLM embeds), the base retriever's top 20 (``ScoredVectorStoreRetriever`` /
``index.as_retriever``); then for each seeds s in ``EXPANSION_SEEDS`` and limit l in
``EXPANSION_LIMITS`` (``crossval.grids``), ``CageExpansionRetriever`` with ``seeds=s,
limit=l`` (its other settings the defaults: same-document neighbours, citations, routing)
and ``CageRerank()`` (LlamaIndex: ``CageRerank(index=index)``); per question, Recall@5 of
that ranking. The records (``--out``, JSON) take the form of ``tuning/link_expansion.py``'s
(with ``framework``), so that script pools them with its own (``--with-records``) and
chooses (s, l) by one cross-validation over every DEV question: a question's records of
both frameworks fall in one fold.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # this tree's cage_core
sys.path.insert(0, str(ROOT / "benchmarks"))  # crossval

from crossval.dev_folders import (
    DATA,
    gold_ids,
    langchain_ingest,
    llamaindex_ingest,
    load_chunks,
    recall,
)
from crossval.grids import EXPANSION_LIMITS, EXPANSION_SEEDS

K = 20


def langchain_ranker(chunks: list) -> Callable[[str, int, int], list[str]]:
    """``rank(question, seeds, limit)``: the LangChain README path's top 5 ids."""
    from cage_langchain import CageExpansionRetriever, CageRerank, ScoredVectorStoreRetriever

    _, store, links = langchain_ingest(chunks)
    base = ScoredVectorStoreRetriever(vectorstore=store, k=K)
    cage = CageRerank()

    def rank(question: str, seeds: int, limit: int) -> list[str]:
        retriever = CageExpansionRetriever(
            base_retriever=base, vectorstore=store, link_index=links, seeds=seeds, limit=limit
        )
        return [d.id for d in cage.compress_documents(retriever.invoke(question), question)]

    return rank


def llamaindex_ranker(chunks: list) -> Callable[[str, int, int], list[str]]:
    """``rank(question, seeds, limit)``: the LlamaIndex README path's top 5 ids."""
    from cage_llamaindex import CageExpansionRetriever, CageRerank

    _, index, links = llamaindex_ingest(chunks)
    base = index.as_retriever(similarity_top_k=K)
    cage = CageRerank(index=index)

    def rank(question: str, seeds: int, limit: int) -> list[str]:
        retriever = CageExpansionRetriever(base, index, links, seeds=seeds, limit=limit)
        pool = retriever.retrieve(question)
        return [n.node_id for n in cage.postprocess_nodes(pool, query_str=question)]

    return rank


RANKERS = {"langchain": langchain_ranker, "llamaindex": llamaindex_ranker}


def folder(name: str, framework: str) -> list[dict]:
    """One record per question with gold: its Recall@5 for every (seeds, limit)."""
    spec, chunks = load_chunks(DATA / f"{name}.json")
    gold = gold_ids(spec, chunks)
    rank = RANKERS[framework](chunks)
    records = []
    for q in spec["questions"]:
        g = gold.get(q["id"]) or []
        if not g:
            continue
        settings = {
            f"{s},{limit}": {"r5": recall(rank(q["question"], s, limit), g)}
            for s in EXPANSION_SEEDS
            for limit in EXPANSION_LIMITS
        }
        records.append(
            {
                "file": name,
                "titles": True,
                "question": q["id"],
                "framework": framework,
                "settings": settings,
            }
        )
    return records


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--folders", default=None, help="comma-separated (default: all)")
    parser.add_argument(
        "--frameworks", default="langchain", help="langchain, llamaindex or both, comma-separated"
    )
    parser.add_argument("--out", type=Path, default=Path("expansion-folders.json"))
    args = parser.parse_args(argv)
    names = args.folders.split(",") if args.folders else sorted(p.stem for p in DATA.glob("*.json"))
    records: list[dict] = []
    for framework in args.frameworks.split(","):
        for name in names:
            start = time.perf_counter()
            mine = folder(name, framework)
            records += mine
            took = time.perf_counter() - start
            print(f"{framework} {name}: {len(mine)} questions in {took:.0f} s", flush=True)
            for s in EXPANSION_SEEDS:
                print(
                    f"  seeds {s}: "
                    + " ".join(
                        f"{sum(r['settings'][f'{s},{limit}']['r5'] for r in mine) / len(mine):.3f}"
                        for limit in EXPANSION_LIMITS
                    ),
                    flush=True,
                )
    args.out.write_text(json.dumps({"records": records}), encoding="utf-8")


if __name__ == "__main__":
    main()
