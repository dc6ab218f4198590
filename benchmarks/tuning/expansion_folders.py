"""The link expansion's seeds and limit on the DEV folders, through the LangChain README path.

    python benchmarks/tuning/expansion_folders.py [--folders NAME,...] [--out FILE]

Per DEV folder (``benchmarks/data/dev_folders``, the chunks and gold of
``benchmarks/claims/dev_folders.py``): ``CageGraphTransformer`` writes the link index,
``InMemoryVectorStore`` with the packaged MiniLM, ``ScoredVectorStoreRetriever`` k=20; then for
each seeds s in ``EXPANSION_SEEDS`` and limit l in ``EXPANSION_LIMITS``
(``crossval.grids``), ``CageExpansionRetriever(seeds=s, limit=l)`` (its other settings the
defaults: same-document neighbours, citations, routing) and ``CageRerank()``; per question,
Recall@5 of that ranking. The records (``--out``, JSON) take the form of
``tuning/link_expansion.py``'s, so that script pools them with its own (``--with-records``)
and chooses (s, l) by one cross-validation over every DEV question.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # this tree's cage_core
sys.path.insert(0, str(ROOT / "benchmarks"))  # crossval

from crossval.dev_folders import DATA, gold_ids, langchain_ingest, load_chunks, recall
from crossval.grids import EXPANSION_LIMITS, EXPANSION_SEEDS

K = 20


def folder(name: str) -> list[dict]:
    """One record per question with gold: its Recall@5 for every (seeds, limit)."""
    from cage_langchain import CageExpansionRetriever, CageRerank, ScoredVectorStoreRetriever

    spec, chunks = load_chunks(DATA / f"{name}.json")
    gold = gold_ids(spec, chunks)
    _, store, links = langchain_ingest(chunks)
    base = ScoredVectorStoreRetriever(vectorstore=store, k=K)
    cage = CageRerank()
    records = []
    for q in spec["questions"]:
        g = gold.get(q["id"]) or []
        if not g:
            continue
        settings = {}
        for s in EXPANSION_SEEDS:
            for limit in EXPANSION_LIMITS:
                retriever = CageExpansionRetriever(
                    base_retriever=base, vectorstore=store, link_index=links, seeds=s, limit=limit
                )
                ranked = cage.compress_documents(retriever.invoke(q["question"]), q["question"])
                settings[f"{s},{limit}"] = {"r5": recall([d.id for d in ranked], g)}
        records.append({"file": name, "titles": True, "question": q["id"], "settings": settings})
    return records


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--folders", default=None, help="comma-separated (default: all)")
    parser.add_argument("--out", type=Path, default=Path("expansion-folders.json"))
    args = parser.parse_args(argv)
    names = args.folders.split(",") if args.folders else sorted(p.stem for p in DATA.glob("*.json"))
    records: list[dict] = []
    for name in names:
        start = time.perf_counter()
        mine = folder(name)
        records += mine
        print(f"{name}: {len(mine)} questions in {time.perf_counter() - start:.0f} s", flush=True)
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
