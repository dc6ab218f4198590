"""Memory and time of ranking one pool of k tiny passages (issue 40, row 7).

    nice -n 5 python benchmarks/claims/pool_size.py [--sizes 500,1000,2000,4000]
        [--method cage]

Each size runs in a fresh process: it loads spaCy, parses the pool's light graphs (timed
apart: parsing grows with k), resets the peak-memory mark, then ranks the pool with given
similarities (``CageReranker(max_pool=None).rerank(query, passages, query_similarities=...,
graphs=...)``) and prints the ranking time and the peak resident memory above the resident
memory before it (``VmHWM`` − ``VmRSS``, MiB). Passages are short sentences built from 40 names
and 12 places, so entities are shared across the pool the way a retriever's hits share them
(every pair of passages can link: the quadratic case). Timings on a shared machine are
noisy; the memory figures are not.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

NAMES = [
    f"{first} {last}"
    for first in ("Marie", "Pierre", "Albert", "Niels", "Lise", "Max", "Erwin", "Paul")
    for last in ("Curie", "Bohr", "Planck", "Meitner", "Dirac")
]
PLACES = [
    "Warsaw",
    "Paris",
    "Berlin",
    "Vienna",
    "Copenhagen",
    "Zurich",
    "London",
    "Rome",
    "Geneva",
    "Munich",
    "Prague",
    "Oslo",
]


def passages(k: int) -> list[str]:
    return [
        f"{NAMES[i % len(NAMES)]} met {NAMES[(7 * i + 3) % len(NAMES)]} in "
        f"{PLACES[i % len(PLACES)]} in {1900 + i % 40}."
        for i in range(k)
    ]


def _status(field: str) -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(field)


def measure(k: int, method: str) -> dict[str, float]:
    from cage_core import CageReranker

    reranker = CageReranker(method=method, max_pool=None)
    pool = passages(k)
    sims = [((i * 7919) % 1000) / 1000 for i in range(k)]
    reranker.rerank("Where did Marie Curie meet Niels Bohr?", pool[:5], query_similarities=sims[:5])
    start = time.perf_counter()
    graphs = reranker.graphs(pool)
    parse_s = time.perf_counter() - start
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # VmHWM := VmRSS
    before = _status("VmRSS")
    start = time.perf_counter()
    reranker.rerank(
        "Where did Marie Curie meet Niels Bohr?", pool, query_similarities=sims, graphs=graphs
    )
    rank_s = time.perf_counter() - start
    return {"k": k, "parse_s": parse_s, "rank_s": rank_s, "peak_mib": _status("VmHWM") - before}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="500,1000,2000,4000")
    parser.add_argument("--method", default="cage")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.method)))
        return
    print(f"{'k':>6} {'parse s':>8} {'rank s':>8} {'peak MiB':>9}  (method {args.method})")
    for k in (int(s) for s in args.sizes.split(",")):
        out = subprocess.run(
            [sys.executable, __file__, "--one", str(k), "--method", args.method],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        r = json.loads(out.strip().splitlines()[-1])
        print(
            f"{r['k']:>6} {r['parse_s']:>8.2f} {r['rank_s']:>8.2f} {r['peak_mib']:>9.0f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
