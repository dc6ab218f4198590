"""Dump every ranking, score and ``via`` of CAGE's methods on the closed DEV pools, and compare
two dumps: the check that a refactoring leaves rankings bit-identical.

    python benchmarks/ranking_dump.py dump --data ../shared/data --graph-store graphs.sqlite \
        --out before.jsonl
    # ... change the code ...
    python benchmarks/ranking_dump.py dump ... --similarities-from before.jsonl --out after.jsonl
    python benchmarks/ranking_dump.py compare before.jsonl after.jsonl

Each DEV file is ranked with its titles and with every title stripped (the untitled-pool
code), in the source order of its pools, by :data:`METHODS` (scores, similarities and
coherences written as ``float.hex``, so "identical" means bit for bit) and, on the first
``--rgcn-limit`` questions of each file, by :data:`RGCN_METHODS` (they train an R-GCN per pool).
Give the "after" dump ``--similarities-from before.jsonl``: MiniLM's embeddings of a passage
differ in the last bits with the batch it was embedded in, and the check is of the ranking.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from cage_core import CageReranker, Passage
from cage_core.eval.datasets import load_questions
from cage_core.graphs.store import GraphStore

METHODS = ("cage", "cage-contra", "hybrid", "cage-core1", "cage-notitles")
RGCN_METHODS = ("cage+rgcn", "paper")


def _files(data: list[str]) -> list[Path]:
    out: list[Path] = []
    for item in data:
        path = Path(item)
        if path.is_dir():
            out += sorted(p for p in path.rglob("*.jsonl") if not p.name.endswith(".corpus.jsonl"))
        else:
            out.append(path)
    return out


def _given_similarities(path: str | None) -> dict[tuple, list[float]]:
    """Per ``(file, titled, id)``, the similarities of an earlier dump in input order: the
    check then compares the ranking code alone (MiniLM's floats vary in the last bits with the
    batch a passage is embedded in)."""
    if path is None:
        return {}
    out: dict[tuple, list[float]] = {}
    for line in open(path, encoding="utf-8"):
        r = json.loads(line)
        key = (r["file"], r["titled"], r["id"])
        if key not in out:
            sims = [0.0] * len(r["order"])
            for i, value in zip(r["order"], r["similarity"]):
                sims[i] = float.fromhex(value)
            out[key] = sims
    return out


def dump(args: argparse.Namespace) -> None:
    given = _given_similarities(args.similarities_from)
    store = GraphStore(args.graph_store) if args.graph_store else None
    base = CageReranker(graph_store=store)
    methods_all = tuple(args.methods.split(",")) if args.methods else METHODS
    rerankers = {m: CageReranker(method=m, graph_store=store) for m in methods_all + RGCN_METHODS}
    with open(args.out, "w", encoding="utf-8") as out:
        for path in _files(args.data):
            questions = load_questions(path)[: args.limit]
            for titled in (True, False):
                pools = [
                    [Passage(text=p.text, title=p.title if titled else "") for p in q.passages]
                    for q in questions
                ]
                flat = [p for ps in pools for p in ps]
                graphs = base.graphs(flat, level="light")
                rgcn_flat = [p for ps in pools[: args.rgcn_limit] for p in ps]
                full = (
                    base.graphs(rgcn_flat, level="full", with_vectors=True)
                    if args.rgcn_limit
                    else []
                )
                offset = 0
                for n, (q, passages) in enumerate(zip(questions, pools)):
                    k = len(passages)
                    known = given.get((path.name, titled, q.id))
                    sims = (
                        base.similarities(q.question, passages)
                        if known is None
                        else np.array(known)
                    )
                    methods = methods_all + (RGCN_METHODS if n < args.rgcn_limit else ())
                    for m in methods:
                        g = (
                            full[offset : offset + k]
                            if m in RGCN_METHODS
                            else graphs[offset : offset + k]
                        )
                        ranked = rerankers[m].rerank(
                            q.question, passages, query_similarities=sims, graphs=g
                        )
                        out.write(
                            json.dumps(
                                {
                                    "file": path.name,
                                    "titled": titled,
                                    "id": q.id,
                                    "method": m,
                                    "order": [r.index for r in ranked],
                                    "score": [float(r.score).hex() for r in ranked],
                                    "coherence": [float(r.coherence).hex() for r in ranked],
                                    "similarity": [float(r.similarity).hex() for r in ranked],
                                    "via": [r.via for r in ranked],
                                }
                            )
                            + "\n"
                        )
                    offset += k
                print(f"{path.name} titled={titled}: {len(questions)} pools", file=sys.stderr)


def compare(args: argparse.Namespace) -> None:
    def load(p: str) -> dict[tuple, dict]:
        rows = [json.loads(line) for line in open(p, encoding="utf-8")]
        return {(r["file"], r["titled"], r["id"], r["method"]): r for r in rows}

    before, after = load(args.before), load(args.after)
    keys = sorted(set(before) & set(after), key=str)
    only = len(set(before) ^ set(after))
    if only:
        print(
            f"{only} rankings are in one dump only (a smaller --limit or other files): not compared"
        )
    diff = [k for k in keys if before[k] != after[k]]
    by_method: dict[str, list[int]] = {}
    for k in keys:
        counts = by_method.setdefault(k[3], [0, 0])
        counts[0] += 1
        counts[1] += k in diff
    for m, (n, d) in sorted(by_method.items()):
        print(f"{m:16s} {n:5d} rankings, {d} differ")
    for k in diff[:10]:
        print("DIFFERS:", k)
    pools = len({k[:3] for k in keys})
    print(f"total: {len(keys)} rankings ({pools} pools x methods), {len(diff)} differ")
    sys.exit(1 if diff else 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump")
    d.add_argument("--data", nargs="+", required=True)
    d.add_argument("--graph-store")
    d.add_argument("--out", required=True)
    d.add_argument("--limit", type=int)
    d.add_argument("--rgcn-limit", type=int, default=10)
    d.add_argument("--methods", help=f"comma-separated (default {','.join(METHODS)})")
    d.add_argument(
        "--similarities-from",
        metavar="DUMP",
        help="rank with the similarities of an earlier dump (the 'before' one)",
    )
    c = sub.add_parser("compare")
    c.add_argument("before")
    c.add_argument("after")
    args = parser.parse_args()
    dump(args) if args.command == "dump" else compare(args)


if __name__ == "__main__":
    main()
