"""Recall@5 of the paper method with the R-GCN encoder before (neighbour sums recomputed every
epoch, commit ff39bc5) and after (computed once per query) the speed change, on the same graphs
and similarities.

    python benchmarks/encoder_speedup_check.py [DATA_DIR] [GRAPH_STORE]

DATA_DIR defaults to ../shared/data; GRAPH_STORE (optional) is a SQLite graph store to reuse.
"""

import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "data"
STORE = sys.argv[2] if len(sys.argv) > 2 else None
OLD = Path(tempfile.mkdtemp()) / "old_encoder.py"
OLD.write_text(
    subprocess.run(
        ["git", "show", "ff39bc5:cage_core/encoder.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
)
import cage_core.paper.encoder as new
from cage_core import CageConfig, CageReranker, Passage
from cage_core.eval.datasets import load_questions
from cage_core.eval.metrics import recall_at_k
from cage_core.eval.runner import _permutation, _similarities
from cage_core.scoring import coherence_matrix, coherence_scores, fuse, ranking

spec = importlib.util.spec_from_file_location("old_encoder", OLD)
old = importlib.util.module_from_spec(spec)
sys.modules["old_encoder"] = old
spec.loader.exec_module(old)
cfg = CageConfig.preset("paper")
r = CageReranker(CageConfig(graph_cache_size=0), graph_store=STORE)
for path in sorted(DATA.glob("*.jsonl")):
    name = path.stem
    qs = load_questions(path)
    pools = []
    for q in qs:
        perm = (
            _permutation(0, q.id, len(q.passages))
            if "ramdocs" in name
            else np.arange(len(q.passages))
        )
        pools.append((q, perm, [Passage(q.passages[i].text, q.passages[i].title) for i in perm]))
    sims = _similarities(r, qs, [p[2] for p in pools])
    rec = {"old": [], "new": []}
    t = {"old": 0.0, "new": 0.0}
    same = 0
    maxdiff = 0.0
    for (q, perm, ps), (s, _) in zip(pools, sims):
        gs = r.graphs(ps)
        pos = {int(src): new_ for new_, src in enumerate(perm)}
        gold = [pos[i] for i in q.gold_indices]
        orders = {}
        for label, mod in (("old", old), ("new", new)):
            t0 = time.perf_counter()
            z = mod.encode_pool(gs, cfg.encoder).embeddings
            t[label] += time.perf_counter() - t0
            f = fuse(s, coherence_scores(coherence_matrix(z)), cfg.alpha)
            orders[label] = ranking(f).tolist()
            rec[label].append(recall_at_k(orders[label], gold, 5))
            if label == "old":
                f_old = f
        maxdiff = max(maxdiff, float(np.abs(f - f_old).max()))
        same += orders["old"] == orders["new"]
    n = len(qs)
    print(
        f"{name}: paper R@5 before {np.mean(rec['old']):.3f} after {np.mean(rec['new']):.3f}; identical rankings {same}/{n}; "
        f"max |Δf| {maxdiff:.2e}; encode ms/query before {1000 * t['old'] / n:.0f} after {1000 * t['new'] / n:.0f}",
        flush=True,
    )
