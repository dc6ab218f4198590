"""Warm latency of the trained link model at k = 20 (issue 17: the whole ranking < 10 ms).

Usage (from the repository root)::

    python benchmarks/link_model_latency.py [DATA_DIR] [GRAPH_STORE] [REPEATS]

Pools are the first MuSiQue DEV questions (20 passages each). Everything a warm server has
cached is prepared first: full graphs with word vectors attached, the model loaded. Timed,
per pool: ``LinkModel.link_matrix`` (warm: each passage's R-GCN encoding cached, so only the
query part, the pair features and the pair scorer run), the uncached path (features of the
whole pool, then the whole network), and —
for comparison — attaching word vectors to cached full graphs, the hand-built
``bridge.link_matrix``, and the default ranking of the pool (``CageReranker.score`` with
the similarities given, light graphs cached). Prints p50/p95 in milliseconds for torch
threads = 1 and the default thread count.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np
import torch

from cage_core import CageReranker
from cage_core.bridge import link_matrix
from cage_core.eval.datasets import load_questions
from cage_core.link_model import LinkModel
from cage_core.passage import Passage


def percentiles(fn, items, repeats):
    times = []
    for _ in range(repeats):
        for item in items:
            start = time.perf_counter()
            fn(item)
            times.append(1000 * (time.perf_counter() - start))
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))]


def main() -> None:
    data = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/data")
    store = sys.argv[2] if len(sys.argv) > 2 else None
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    questions = [q for q in load_questions(data / "musique.jsonl") if len(q.passages) == 20][:20]
    reranker = CageReranker(graph_store=store)
    model = LinkModel.load_default()
    pools = []
    for q in questions:
        passages = [Passage(text=p.text, title=p.title) for p in q.passages]
        bare = reranker.graphs(passages, level="full")
        graphs = reranker.graphs(passages, level="full", with_vectors=True)
        sims = reranker.similarities(q.question, passages)
        reranker.score(q.question, passages, query_similarities=sims)  # caches the light graphs
        pools.append((q.question, passages, bare, graphs, sims))
    runs = {
        "link model: link_matrix": lambda p: model.link_matrix(p[0], p[1], p[3]),
        "no cache: features (pool_inputs)": lambda p: model.inputs(p[0], p[1], p[3]),
        "attach word vectors to cached full graphs": lambda p: reranker.graph_service.with_vectors(p[2]),
        "hand-built L (bridge.link_matrix)": lambda p: link_matrix(
            p[0], [x.title for x in p[1]], [x.text for x in p[1]], p[3], entity_weight=0.5),
        "default ranking (score, sims given)": lambda p: reranker.score(p[0], p[1], query_similarities=p[4]),
    }
    inputs = [model.inputs(p[0], p[1], p[3]) for p in pools]
    for threads in (1, torch.get_num_threads()):
        torch.set_num_threads(threads)
        print(f"\nk = 20, {len(pools)} MuSiQue pools x {repeats}, torch threads = {threads}")
        for name, fn in runs.items():
            fn(pools[0])
            p50, p95 = percentiles(fn, pools, repeats)
            print(f"  {name:45} p50 {p50:6.2f} ms   p95 {p95:6.2f} ms")
        p50, p95 = percentiles(model.score_inputs, inputs, repeats)
        print(f"  {'no cache: whole network (score_inputs)':45} p50 {p50:6.2f} ms   p95 {p95:6.2f} ms")
    nodes = np.mean([len(x.x) for x in inputs])
    print(f"\nmean nodes per pool: {nodes:.0f}; model variant {model.config.variant}")


if __name__ == "__main__":
    main()
