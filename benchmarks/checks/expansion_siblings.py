"""Whether the expansion retrievers' same-document neighbours (``siblings``) add a passage on
the DEV folders, through both README paths.

    python benchmarks/checks/expansion_siblings.py [--data DIR] [--frameworks langchain,llamaindex]

Per folder (``benchmarks/data/dev_folders``, or ``--data``: the chunks of
``benchmarks/claims/dev_folders.py``) and framework, the README path's ingest
(``crossval.dev_folders.langchain_ingest`` / ``llamaindex_ingest``), the base retriever's top
20, then each question's pool from ``CageExpansionRetriever`` with ``siblings`` at its default
and at 0, at the default ``limit`` and at ``limit=0`` (no linked passages). Printed per folder
and framework: the questions whose pool the neighbours change (its set of ids), of all. The
link index the ingest writes links a chunk to its neighbours itself (``expansion.adjacent``),
so at the default ``limit`` the linked passages may already hold every neighbour the
``siblings`` step would add.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # this tree's cage_core
sys.path.insert(0, str(ROOT / "benchmarks"))  # crossval

from crossval.dev_folders import (
    DATA,
    folder_specs,
    langchain_ingest,
    llamaindex_ingest,
    load_chunks,
)

from cage_core.expansion.algorithm import DEFAULT_LIMIT
from cage_core.expansion.contract import DEFAULT_SIBLINGS

K = 20
FRAMEWORKS = ("langchain", "llamaindex")


def langchain_pool(chunks: list) -> Callable[[str, int, int], set[str]]:
    """``pool(question, siblings, limit)``: the ids of the LangChain expanded pool."""
    from cage_langchain import CageExpansionRetriever, ScoredVectorStoreRetriever

    _, store, links = langchain_ingest(chunks)
    base = ScoredVectorStoreRetriever(vectorstore=store, k=K)

    def pool(question: str, siblings: int, limit: int) -> set[str]:
        retriever = CageExpansionRetriever(
            base_retriever=base,
            vectorstore=store,
            link_index=links,
            siblings=siblings,
            limit=limit,
        )
        return {str(d.id) for d in retriever.invoke(question)}

    return pool


def llamaindex_pool(chunks: list) -> Callable[[str, int, int], set[str]]:
    """``pool(question, siblings, limit)``: the ids of the LlamaIndex expanded pool."""
    from cage_llamaindex import CageExpansionRetriever

    _, index, links = llamaindex_ingest(chunks)
    base = index.as_retriever(similarity_top_k=K)

    def pool(question: str, siblings: int, limit: int) -> set[str]:
        retriever = CageExpansionRetriever(base, index, links, siblings=siblings, limit=limit)
        return {n.node_id for n in retriever.retrieve(question)}

    return pool


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help="the folder of folder specs")
    parser.add_argument("--frameworks", default=",".join(FRAMEWORKS))
    args = parser.parse_args()
    frameworks = args.frameworks.split(",")
    if unknown := set(frameworks) - set(FRAMEWORKS):
        parser.error(f"unknown framework(s) {sorted(unknown)}; choose among {FRAMEWORKS}")
    print(
        f"| folder | framework | questions | siblings change the pool, limit {DEFAULT_LIMIT}"
        " | the same, limit 0 |"
    )
    print("|---|---|---|---|---|")
    totals = {"questions": 0, DEFAULT_LIMIT: 0, 0: 0}
    for spec_path in folder_specs(args.data):
        spec, chunks = load_chunks(spec_path)
        questions = [q["question"] for q in spec["questions"]]
        for framework in frameworks:
            pool = (langchain_pool if framework == "langchain" else llamaindex_pool)(chunks)
            changed = {
                limit: sum(pool(q, DEFAULT_SIBLINGS, limit) != pool(q, 0, limit) for q in questions)
                for limit in (DEFAULT_LIMIT, 0)
            }
            totals["questions"] += len(questions)
            for limit, n in changed.items():
                totals[limit] += n
            print(
                f"| {spec_path.stem} | {framework} | {len(questions)} | {changed[DEFAULT_LIMIT]}"
                f" | {changed[0]} |",
                flush=True,
            )
    print(f"| all | | {totals['questions']} | {totals[DEFAULT_LIMIT]} | {totals[0]} |")


if __name__ == "__main__":
    main()
