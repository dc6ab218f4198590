"""What a lexical leg adds to the expanded pool on the DEV folders (issue 45, item 4).

    python benchmarks/tuning/lexical_leg.py [--data DIR] [--folders NAME,...] [--json OUT]

The question: a passage the dense retriever missed may hold the question's rare words or
names; does adding such passages to the pool before CAGE ranks it lift Recall@5? Through the
LangChain README path of ``benchmarks/claims/dev_folders.py`` (README splitter, ``CageGraph
Transformer`` writing the link index, ``InMemoryVectorStore`` with the packaged MiniLM,
``ScoredVectorStoreRetriever`` k=20, ``CageExpansionRetriever``, then ``CageRerank()``), per
question, the expanded pool and the same pool with a leg's passages added (those not in it
already), each ranked by ``CageRerank``:

- ``expanded``: the pool as the retriever returns it;
- ``BM25 N`` (N = 5, 10): LangChain's ``BM25Retriever`` over the folder's chunks, its top N;
- ``names``: the link index's postings of the question's names: every run of 1–4 of its
  words that some passage is keyed by or mentions, at most 20 passages (rare), rarest first;
  their passages in that order (ties: by id), at most 5;
- ``names absent``: the same, only for the names no passage of the pool holds (the retriever
  missed what they name; a name the pool holds already brings nothing).

An added passage's score is its MiniLM cosine with the question (what the store's search
gives); in a routed pool (``cage_route``) also its cosine with the shortened question
(``cage_route_score``), so the reranker reads the same kind of score for every passage.
Printed per folder and pooled: the share of gold chunks in the pool and R@5 after CAGE, and
the passages each leg added per question.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # this tree's cage_core
sys.path.insert(0, str(ROOT / "benchmarks"))  # crossval

from crossval.dev_folders import (
    DATA,
    gold_ids,
    langchain_ingest,
    load_chunks,
    parsed_folder_specs,
    recall,
)

K = 20
LEGS = ("expanded", "BM25 5", "BM25 10", "names", "names absent")
MAX_NAME_WORDS = 4
MAX_NAME_HOLDERS = 20
NAME_PASSAGES = 5


def rare_names(links: Any, question: str) -> list[set[str]]:
    """The passages holding each of the question's rare names (module docstring, ``names``),
    rarest first."""
    from cage_core.names.forms import words

    tokens = words(question.lower())
    runs = {
        " ".join(tokens[i : i + n])
        for n in range(1, MAX_NAME_WORDS + 1)
        for i in range(len(tokens) - n + 1)
    }
    storage = links.storage
    with storage.reading():
        counts = storage.counts(runs)
        rare = sorted(
            (keyed + mentioned, name)
            for name, (keyed, mentioned) in counts.items()
            if 0 < keyed + mentioned <= MAX_NAME_HOLDERS
        )
        names = [name for _, name in rare]
        keyed_by, mentioned_by = storage.holders(names, "key"), storage.holders(names, "mention")
    return [{*keyed_by.get(name, ()), *mentioned_by.get(name, ())} for name in names]


def name_passages(names: list[set[str]], held: set[str] | None = None) -> list[str]:
    """The ``names`` leg: the passages of :func:`rare_names`' ``names`` in that order (ties: by
    id), at most :data:`NAME_PASSAGES`; with ``held`` (the pool's ids), only those of the names
    no passage of ``held`` holds (``names absent``)."""
    out: list[str] = []
    for holders in names:
        if held is not None and holders & held:
            continue
        for pid in sorted(holders):
            if pid not in out:
                out.append(pid)
    return out[:NAME_PASSAGES]


def folder(spec_path: Path) -> dict[str, dict[str, tuple[float, float, int]]]:
    """Per question, per leg: (gold share in the pool, R@5 after CAGE, passages added)."""
    from langchain_community.retrievers import BM25Retriever

    from cage_core.integrations.document_routing import ROUTE_KEY, ROUTE_SCORE_KEY
    from cage_core.metadata import RETRIEVAL_SCORE_KEY
    from cage_langchain import CageExpansionRetriever, CageRerank, ScoredVectorStoreRetriever

    spec, chunks = load_chunks(spec_path)
    gold = gold_ids(spec, chunks)
    enriched, store, links = langchain_ingest(chunks)
    embeddings = store.embeddings
    base = ScoredVectorStoreRetriever(vectorstore=store, k=K)
    expand = CageExpansionRetriever(base_retriever=base, vectorstore=store, link_index=links)
    cage = CageRerank(top_n=None)
    bm25 = BM25Retriever.from_documents(enriched, k=max(int(leg.split()[1]) for leg in LEGS[1:3]))
    by_id = {d.id: d for d in enriched}

    def unit(text: str) -> np.ndarray:
        v = np.asarray(embeddings.embed_query(text), dtype=np.float64)
        return v / np.linalg.norm(v)

    def cosine(pid: str, query: np.ndarray) -> float:
        v = np.asarray(store.store[pid]["vector"], dtype=np.float64)
        return float(v @ query / np.linalg.norm(v))

    out: dict[str, dict[str, tuple[float, float, int]]] = {}
    for q in spec["questions"]:
        g = gold.get(q["id"]) or []
        if not g:
            continue
        text = q["question"]
        pool = expand.invoke(text)
        held = {d.id for d in pool}
        route = next((d.metadata[ROUTE_KEY] for d in pool if ROUTE_KEY in d.metadata), None)
        asked, short = unit(text), unit(route["question"]) if route else None
        found = [d.id for d in bm25.invoke(text)]
        names = rare_names(links, text)
        legs = {
            "expanded": [],
            "BM25 5": found[:5],
            "BM25 10": found[:10],
            "names": name_passages(names),
            "names absent": name_passages(names, held),
        }
        row = {}
        for leg, extra in legs.items():
            added = []
            for pid in dict.fromkeys(extra):
                if pid in held:
                    continue
                doc = by_id[pid].model_copy(deep=True)
                doc.metadata[RETRIEVAL_SCORE_KEY] = cosine(pid, asked)
                if route is not None:
                    doc.metadata[ROUTE_KEY] = route
                    doc.metadata[ROUTE_SCORE_KEY] = cosine(pid, short)
                added.append(doc)
            ranked = [d.id for d in cage.compress_documents(pool + added, text)]
            row[leg] = (len(set(ranked) & set(g)) / len(g), recall(ranked, g), len(added))
        out[q["id"]] = row
    return out


def report(name: str, rows: Sequence[dict[str, tuple[float, float, int]]]) -> None:
    cells = []
    for leg in LEGS:
        pool, r5, added = (np.mean([r[leg][i] for r in rows]) for i in range(3))
        cells.append(f"{pool:.3f} / {r5:.3f} (+{added:.1f})")
    print(f"| {name} | {len(rows)} | " + " | ".join(cells) + " |", flush=True)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help="the folder of folder specs")
    parser.add_argument("--folders", default="", help="comma-separated (all)")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    paths = parsed_folder_specs(parser, args.data, args.folders)
    print(
        "| folder | questions | " + " | ".join(f"{leg}: pool / R@5 (added)" for leg in LEGS) + " |"
    )
    print("|---|---|" + "---|" * len(LEGS))
    results: dict[str, Any] = {}
    for path in paths:
        name = path.stem
        start = time.perf_counter()
        results[name] = folder(path)
        report(name, list(results[name].values()))
        print(f"{name}: {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    report("pooled", [row for rows in results.values() for row in rows.values()])
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
