"""How the evidence chain's weights were chosen: a grid, 5-fold cross-validation over DEV questions.

    python benchmarks/tuning/chain_cv.py --data ../shared/data [--graph-store graphs.sqlite]

The questions of the multi-hop files (HotpotQA, 2WikiMultihopQA, MuSiQue) are pooled and
split into 5 folds by a hash of their id (``crossval.fold_of``) — never by dataset, and every
dataset is ranked with the same settings. For each fold, the grid point with the best mean over the
three files of ``R@3 + R@5`` on the other four folds ranks the held-out fold; the printed table is
those out-of-fold rankings (every question ranked by settings chosen without it), beside the hybrid
relevance order and the previous default (no chain: the 3 most relevant passages as core).
RAMDocs is not used for the choice; its misinformation rates under each fold's choice are
printed as a check. The settings shipped in :class:`cage_core.config.ChainConfig` are the
grid point chosen on all folds together.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: crossval
from crossval import cross_validate, fold_array, grid_points
from crossval.grids import CHAIN_GRID

from cage_core import CageConfig, CageReranker
from cage_core.config import ChainConfig
from cage_core.eval.datasets import load_questions
from cage_core.eval.runner import pool_permutation, pool_similarities
from cage_core.methods.base import Pool
from cage_core.methods.cage import score_pool
from cage_core.passage import Passage
from cage_core.scoring import ranking

MULTI_HOP = ("hotpotqa", "2wikimultihopqa", "musique")


def load_pools(
    data: Path, reranker: CageReranker, limit: int | None = None
) -> list[tuple[str, Pool, frozenset[int], frozenset[int] | None]]:
    """(dataset, pool, gold positions, misinfo positions) for every question (the first
    ``limit`` of each file) of every file."""
    out = []
    for path in sorted(data.glob("*.jsonl")):
        questions = load_questions(path)[:limit]
        name = questions[0].dataset
        perms = [
            pool_permutation(0, q.id, len(q.passages))
            if name == "ramdocs"
            else np.arange(len(q.passages))
            for q in questions
        ]  # the runner's shuffle of RAMDocs
        pools = [
            [Passage(q.passages[i].text, title=q.passages[i].title) for i in perm]
            for q, perm in zip(questions, perms)
        ]
        sims = pool_similarities(reranker, questions, pools)
        graphs = reranker.graphs([p for ps in pools for p in ps], level="light")
        offset = 0
        for q, perm, ps, (s, _) in zip(questions, perms, pools, sims):
            position = {int(src): new for new, src in enumerate(perm)}
            labels = q.meta.get("doc_labels")
            misinfo = (
                frozenset(position[i] for i, label in enumerate(labels) if label == "misinfo")
                if isinstance(labels, list) and len(labels) == len(q.passages)
                else None
            )
            out.append(
                (
                    name,
                    Pool(q.question, ps, s, graphs[offset : offset + len(ps)], key=q.id),
                    frozenset(position[i] for i in q.gold_indices),
                    misinfo,
                )
            )
            offset += len(ps)
    return out


def measures(
    order: np.ndarray, gold: frozenset[int], misinfo: frozenset[int] | None
) -> list[float]:
    top = [set(order[:k].tolist()) for k in (1, 2, 3, 5)]
    row = [len(t & gold) / len(gold) for t in top] + [float(gold <= top[3])]
    if misinfo is not None:
        row += [float(bool(top[1] & misinfo)), float(bool(top[3] & misinfo))]
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--graph-store")
    parser.add_argument(
        "--limit", type=int, help="the first N questions of each file (a smoke run)"
    )
    args = parser.parse_args(argv)
    reranker = CageReranker(graph_store=args.graph_store)
    pools = load_pools(args.data, reranker, args.limit)
    grid = grid_points(CHAIN_GRID)
    configs = [CageConfig(chain=ChainConfig(**point)) for point in grid]
    baselines = {
        "hybrid (relevance order)": None,
        "previous default (no chain)": CageConfig(chain=ChainConfig(length=0)),
    }
    print(f"{len(pools)} questions, {len(grid)} grid points", file=sys.stderr)

    def rank(config: CageConfig | None, pool: Pool) -> np.ndarray:
        s = score_pool(
            pool.query, pool.passages, pool.similarities, pool.graphs, config or CageConfig()
        )
        return ranking(s.relevance if config is None else s.fused)

    results = np.array(
        [[measures(rank(c, p), g, m)[:5] for _, p, g, m in pools] for c in configs]
    )  # [C, N, 5]
    dataset = np.array([d for d, *_ in pools])
    folds = fold_array(p.key for _, p, _, _ in pools)

    def objective(mask: np.ndarray) -> np.ndarray:
        return sum(
            results[:, mask & (dataset == d), 2].mean(axis=1)
            + results[:, mask & (dataset == d), 3].mean(axis=1)
            for d in MULTI_HOP
        ) / len(MULTI_HOP)

    rows: dict[str, dict[str, list[list[float]]]] = defaultdict(lambda: defaultdict(list))
    cv = cross_validate(results, folds, objective)
    for f, chosen in enumerate(cv.fold_choices):
        print(f"fold {f}: chosen on the other folds {grid[chosen]}")
        for n in np.flatnonzero(folds == f):
            d, pool, gold, misinfo = pools[n]
            rows["chain, cross-validated"][d].append(
                measures(rank(configs[chosen], pool), gold, misinfo)
            )
    for name, config in baselines.items():
        for d, pool, gold, misinfo in pools:
            rows[name][d].append(measures(rank(config, pool), gold, misinfo))
    print(f"chosen on all folds (shipped): {grid[cv.chosen]}\n")
    print("| dataset | ranking | R@1 | R@2 | R@3 | R@5 | all gold@5 | misinfo@2 | misinfo@5 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for d in sorted({d for d, *_ in pools}):
        for name in (
            "hybrid (relevance order)",
            "previous default (no chain)",
            "chain, cross-validated",
        ):
            m = np.array(rows[name][d])
            cells = [f"{v:.3f}" for v in m.mean(axis=0)] + ["–", "–"] * (m.shape[1] == 5)
            print(f"| {d} | {name} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
