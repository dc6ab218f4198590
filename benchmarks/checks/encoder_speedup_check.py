"""Recall@5 of the paper method with the R-GCN encoder before (neighbour sums recomputed every
epoch, commit ff39bc5) and after (computed once per query) the speed change, on the same graphs
and similarities.

    python benchmarks/checks/encoder_speedup_check.py [--data DIR] [--graph-store FILE]

``--data`` defaults to ../shared/data (relative to the repository root); ``--graph-store``
(optional) is a SQLite graph store to reuse. The encoder before the change is read from the
repository's history (``git show ff39bc5:cage_core/encoder.py``).
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

import numpy as np

import cage_core.paper.encoder as new
from cage_core import CageConfig, CageReranker, Passage
from cage_core.eval.datasets import load_questions
from cage_core.eval.metrics import recall_at_k
from cage_core.eval.runner import pool_permutation, pool_similarities
from cage_core.scoring import coherence_matrix, coherence_scores, fuse, ranking

ROOT = Path(__file__).resolve().parents[2]
BEFORE = "ff39bc5"
"""The commit whose ``cage_core/encoder.py`` is the encoder before the change."""


def old_encoder() -> ModuleType:
    """``cage_core/encoder.py`` as of :data:`BEFORE`, imported as ``old_encoder``."""
    source = subprocess.run(
        ["git", "show", f"{BEFORE}:cage_core/encoder.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "old_encoder.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("old_encoder", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_encoder"] = module
    spec.loader.exec_module(module)
    return module


def check_file(path: Path, r: CageReranker, old: ModuleType, cfg: CageConfig) -> None:
    name = path.stem
    qs = load_questions(path)
    pools = []
    for q in qs:
        perm = (
            pool_permutation(0, q.id, len(q.passages))
            if "ramdocs" in name
            else np.arange(len(q.passages))
        )
        pools.append((q, perm, [Passage(q.passages[i].text, q.passages[i].title) for i in perm]))
    sims = pool_similarities(r, qs, [p[2] for p in pools])
    rec: dict[str, list[float]] = {"old": [], "new": []}
    t = {"old": 0.0, "new": 0.0}
    same = 0
    maxdiff = 0.0
    for (q, perm, ps), (s, _) in zip(pools, sims):
        gs = r.graphs(ps)
        pos = {int(src): new_ for new_, src in enumerate(perm)}
        gold = [pos[i] for i in q.gold_indices]
        orders = {}
        fused = {}
        for label, mod in (("old", old), ("new", new)):
            t0 = time.perf_counter()
            z = mod.encode_pool(gs, cfg.encoder).embeddings
            t[label] += time.perf_counter() - t0
            fused[label] = fuse(s, coherence_scores(coherence_matrix(z)), cfg.alpha)
            orders[label] = ranking(fused[label]).tolist()
            rec[label].append(recall_at_k(orders[label], gold, 5))
        maxdiff = max(maxdiff, float(np.abs(fused["new"] - fused["old"]).max()))
        same += orders["old"] == orders["new"]
    n = len(qs)
    print(
        f"{name}: paper R@5 before {np.mean(rec['old']):.3f} after {np.mean(rec['new']):.3f}; "
        f"identical rankings {same}/{n}; max |Δf| {maxdiff:.2e}; encode ms/query before "
        f"{1000 * t['old'] / n:.0f} after {1000 * t['new'] / n:.0f}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--graph-store", default=None, help="SQLite graph store to reuse")
    args = parser.parse_args()
    old = old_encoder()
    cfg = CageConfig.preset("paper")
    r = CageReranker(CageConfig(graph_cache_size=0), graph_store=args.graph_store)
    for path in sorted(args.data.glob("*.jsonl")):
        check_file(path, r, old, cfg)


if __name__ == "__main__":
    main()
