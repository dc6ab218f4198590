"""How the short chain of untitled pools was chosen: a grid, 5-fold CV over DEV questions.

    python benchmarks/tuning/untitled_chain_cv.py --data ../shared/data \\
        [--graph-store graphs.sqlite]

The setting and the pools are those of ``untitled_cv.py`` (:mod:`crossval.untitled_pools`:
open retrieval without titles, top 20 by cosine plus the link index's expansion). The subject core
keeps its shipped settings (the other fields of :class:`~cage_core.config.UntitledConfig`); each
grid point of the short chain's fields (``chain_window`` 0 is the subject core alone) reorders its
ranking through :func:`~cage_core.ranking.untitled_core.short_chain`, exactly as
:func:`~cage_core.methods.cage.score_pool` does. Folds, objective (mean over HotpotQA,
2WikiMultihopQA and MuSiQue of ``R@3 + R@5``) and choice are those of ``untitled_cv.py``, and so is
the RAMDocs guard, here on misinformation in the top 2 (closed and open pools; Recall@5 and the top
5 are the subject core's); the printed tables are the out-of-fold rankings beside hybrid (relevance
order) and the subject core alone, R@3 and R@5 per file. The shipped defaults are the point chosen
on all folds together.
"""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: crossval
from crossval import grid_points
from crossval.grids import UNTITLED_CHAIN_GRID
from crossval.measures import recalls
from crossval.untitled_pools import (
    FILES,
    closed_ramdocs_pools,
    grid_cv,
    ramdocs_guard,
    untitled_pools,
)

from cage_core import CageConfig, CageReranker
from cage_core.config import UntitledConfig
from cage_core.ranking.lift import ranked_first
from cage_core.ranking.untitled_core import short_chain, subject_core_scores
from cage_core.scoring import ranking


def rank(pool: dict[str, Any], point: dict[str, Any], config: CageConfig) -> np.ndarray:
    untitled = UntitledConfig(**point)
    links = pool["links"][untitled.aliases]
    r, _, coherence, _ = subject_core_scores(
        pool["relevance"],
        links,
        core_size=config.core_size,
        entity_weight=config.entity_weight,
        config=untitled,
    )
    fused = untitled.alpha * r + (1 - untitled.alpha) * coherence
    lead = short_chain(fused, r, links, untitled)
    return ranking(ranked_first(fused, [[i] for i in lead]))  # corpus passages are distinct


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="the DEV files' folder")
    parser.add_argument("--graph-store", default=None, help="SQLite graph store to reuse")
    parser.add_argument("--limit", type=int, help="the first N questions of each file (smoke)")
    args = parser.parse_args()
    config = CageConfig()
    reranker = CageReranker(config, graph_store=args.graph_store)
    pools = untitled_pools(args.data, reranker, args.limit)
    closed = closed_ramdocs_pools(args.data, reranker, args.limit)
    rank_fn = functools.partial(rank, config=config)
    points = grid_points(UNTITLED_CHAIN_GRID)
    allowed = ramdocs_guard(pools, closed, points, rank_fn, recall=False, ks=(2,), config=config)
    points, scores, cv = grid_cv(pools, UNTITLED_CHAIN_GRID, rank_fn, allowed=allowed)
    datasets = np.array([p["dataset"] for p in pools])
    alone = points.index({**points[0], "chain_window": 0})
    rows = {
        "hybrid (relevance order)": np.array([recalls(ranking(p["relevance"]), p) for p in pools]),
        "subject core alone (chain_window 0)": scores[alone],
        "short chain, out of fold": cv.out_of_fold,
        "short chain, all-fold choice": scores[cv.chosen],
    }
    print("| ranking | " + " | ".join(f"{d} R@3 | {d} R@5" for d in FILES) + " |")
    print("|---|" + "---|---|" * len(FILES))
    for label, values in rows.items():
        cells = [f"{values[datasets == d, i].mean():.3f}" for d in FILES for i in (0, 1)]
        print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
