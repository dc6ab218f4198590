"""Whether the expansion retrievers' two bounds, the same-document neighbours (``siblings``)
and the documents the seeds cite (``cited``), act on the DEV folders, through both README paths.

    python benchmarks/checks/expansion_bounds.py [--data DIR] [--frameworks langchain,llamaindex]

Per folder (``benchmarks/data/dev_folders``, or ``--data``: the chunks of
``benchmarks/claims/dev_folders.py``) and framework, the README path's ingest
(``crossval.dev_folders.langchain_ingest`` / ``llamaindex_ingest``), the base retriever's top
20, then each question's pool from ``CageExpansionRetriever``. Printed per folder and
framework, of all its questions, those whose pool (its set of ids) changes:

* with ``siblings`` at its default against 0, at the default ``limit`` and at ``limit=0`` (no
  linked passages). The link index the ingest writes links a chunk to its neighbours itself
  (``expansion.adjacent``), so at the default ``limit`` the linked passages may already hold
  every neighbour the ``siblings`` step would add;
* with ``cited`` at its default against 0, and of those, the questions whose top 5 after
  ``CageRerank()`` changes (its ids in order).
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
    langchain_ingest,
    llamaindex_ingest,
    load_chunks,
    parsed_folder_specs,
)

from cage_core.expansion.algorithm import DEFAULT_LIMIT

K = 20
FRAMEWORKS = ("langchain", "llamaindex")
Pool = Callable[[str, dict[str, int], bool], tuple[set[str], list[str]]]
"""``pool(question, bounds, ranked)``: the ids of the expanded pool under ``bounds`` (the
retriever's ``siblings``, ``limit`` and ``cited``; the others at their defaults), and, when
``ranked``, of its top 5 after ``CageRerank()`` (else none)."""


def langchain_pool(chunks: list) -> Pool:
    """The LangChain README path's :data:`Pool`."""
    from cage_langchain import CageExpansionRetriever, CageRerank, ScoredVectorStoreRetriever

    _, store, links = langchain_ingest(chunks)
    base = ScoredVectorStoreRetriever(vectorstore=store, k=K)
    rerank = CageRerank()

    def pool(question: str, bounds: dict[str, int], ranked: bool) -> tuple[set[str], list[str]]:
        retriever = CageExpansionRetriever(
            base_retriever=base, vectorstore=store, link_index=links, **bounds
        )
        found = retriever.invoke(question)
        top = rerank.compress_documents(found, question) if ranked else []
        return {str(d.id) for d in found}, [str(d.id) for d in top]

    return pool


def llamaindex_pool(chunks: list) -> Pool:
    """The LlamaIndex README path's :data:`Pool`."""
    from cage_llamaindex import CageExpansionRetriever, CageRerank

    _, index, links = llamaindex_ingest(chunks)
    base = index.as_retriever(similarity_top_k=K)
    rerank = CageRerank(index=index)

    def pool(question: str, bounds: dict[str, int], ranked: bool) -> tuple[set[str], list[str]]:
        found = CageExpansionRetriever(base, index, links, **bounds).retrieve(question)
        top = rerank.postprocess_nodes(found, query_str=question) if ranked else []
        return {n.node_id for n in found}, [n.node_id for n in top]

    return pool


def changes(pool: Pool, question: str) -> dict[str, bool]:
    """Which of the printed columns ``question``'s pool counts in (module docstring): five
    pools, the default one (every bound at its default) ranked, as is the one without ``cited``."""
    default = pool(question, {}, True)
    uncited = pool(question, {"cited": 0}, True)
    unlimited = pool(question, {"limit": 0}, False)[0]
    return {
        f"siblings, limit {DEFAULT_LIMIT}": default[0] != pool(question, {"siblings": 0}, False)[0],
        "siblings, limit 0": unlimited != pool(question, {"siblings": 0, "limit": 0}, False)[0],
        "cited": default[0] != uncited[0],
        "cited, top 5": default[1] != uncited[1],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help="the folder of folder specs")
    parser.add_argument("--frameworks", default=",".join(FRAMEWORKS))
    args = parser.parse_args()
    frameworks = args.frameworks.split(",")
    if unknown := set(frameworks) - set(FRAMEWORKS):
        parser.error(f"unknown framework(s) {sorted(unknown)}; choose among {FRAMEWORKS}")
    paths = parsed_folder_specs(parser, args.data)
    columns = [f"siblings, limit {DEFAULT_LIMIT}", "siblings, limit 0", "cited", "cited, top 5"]
    print("| folder | framework | questions | " + " | ".join(columns) + " |")
    print("|---|---|---|" + "---|" * len(columns))
    totals = dict.fromkeys(["questions", *columns], 0)
    for spec_path in paths:
        spec, chunks = load_chunks(spec_path)
        questions = [q["question"] for q in spec["questions"]]
        for framework in frameworks:
            pool = (langchain_pool if framework == "langchain" else llamaindex_pool)(chunks)
            counts = dict.fromkeys(["questions", *columns], 0)
            for question in questions:
                counts["questions"] += 1
                for column, changed in changes(pool, question).items():
                    counts[column] += changed
            for column, n in counts.items():
                totals[column] += n
            cells = " | ".join(str(counts[c]) for c in ["questions", *columns])
            print(f"| {spec_path.stem} | {framework} | {cells} |", flush=True)
    print("| all | | " + " | ".join(str(totals[c]) for c in ["questions", *columns]) + " |")


if __name__ == "__main__":
    main()
