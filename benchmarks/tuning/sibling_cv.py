"""How the link index's document links were chosen (``LinkWeights.adjacent``, ``sibling``): CV.

    python benchmarks/tuning/sibling_cv.py --data ../shared/data --graph-store graphs.sqlite \\
        --out sibling-pools/

The expansion step (``cage eval --expand``, the expansion retrievers) adds the chunks of a
seed's document with weight ``adjacent`` (the chunks right before and after it) or ``sibling``
(the others). The shipped index links adjacent chunks only
(:func:`~cage_core.expansion.index.adjacent_links`: this grid chose ``sibling`` = 0), so a
pair with ``sibling > 0`` runs here with :func:`document_links` in its place. Only pools with
document structure are changed by these weights (a Wikipedia paragraph has no ``doc_id``), so each
weight pair rebuilds the expanded pools of the DEV files with documents (DragonBall, SciFact
chunks: ``crossval.dev_pools``' ``-open-x`` settings, the same retrieval and gold) with the link
index under those weights, and ranks them with the shipped ranking (``score_pool``). Folds as
in ``beyond_cv.py`` (``crossval.fold_of``, a hash of the question id); for each fold the pair
with the best mean ``R@3 + R@5`` over the two settings on the other folds ranks it (ties: the
first in grid order). Every other DEV setting is unchanged by these weights, so it is left out
of the sum. Each pair's pools are kept in ``--out`` (``crossval.pool_files``: gzipped JSON)
and reused by a later run with the same ``--out``: give a new folder after a change to the
pools' code, or the old pools are read.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: crossval
from crossval import cross_validate, fold_array, group_objective
from crossval.dev_pools import BEYOND, open_pools
from crossval.grids import DOCUMENT_LINK_GRID
from crossval.measures import pool_measures
from crossval.orders import cage_order, hybrid_order
from crossval.pool_files import SUFFIX, read_pools, write_pools

from cage_core import CageConfig, CageReranker
from cage_core.eval.corpus import load_corpus
from cage_core.eval.datasets import load_questions
from cage_core.eval.open_retrieval import CorpusState
from cage_core.expansion import algorithm as link_index_module
from cage_core.expansion.index import LinkIndex, LinkWeights

GRID = DOCUMENT_LINK_GRID
STEMS = ("dragonball", "scifact_chunks")
SHIPPED = link_index_module.adjacent_links


def document_links(sibling: float):
    """The document links as they were before this grid: ``adjacent`` for the chunks right
    before and after the seed, ``sibling`` for the other chunks of its document (a position
    unknown on either side: ``sibling``)."""

    def links(storage, seed, weights):
        if seed.doc_id is None:
            return []
        out = []
        for entry in storage.document_entries(seed.doc_id):
            if entry.id == seed.id:
                continue
            near = (
                seed.position is not None
                and entry.position is not None
                and abs(entry.position - seed.position) == 1
            )
            weight = weights.adjacent if near else sibling
            if weight > 0:
                out.append((entry.id, weight))
        return out

    return links


def pools_for(
    weights: tuple[float, float],
    data: Path,
    reranker: CageReranker,
    states: dict[str, CorpusState],
    out: Path,
) -> list[dict[str, Any]]:
    target = out / f"{weights[0]}-{weights[1]}{SUFFIX}"
    if target.exists():
        return read_pools([target])
    made: list[dict[str, Any]] = []
    for stem in STEMS:
        qfile, cfile, titles = BEYOND[stem]
        if stem not in states:
            states[stem] = CorpusState(load_corpus(data / cfile, titles=titles), reranker)
        state = states[stem]
        state.ensure_graphs(range(len(state.corpus)), full=False)
        index = state.ensure_link_index()
        adjacent, sibling = weights
        state.link_index = LinkIndex(LinkWeights(adjacent=adjacent))
        state.link_index.add_entries(list(index.entries()))
        link_index_module.adjacent_links = document_links(sibling) if sibling else SHIPPED
        try:
            made += open_pools(
                load_questions(data / qfile), state, reranker, stem, expand=True, by_id=True
            )
        finally:
            link_index_module.adjacent_links = SHIPPED
            state.link_index = index
    write_pools(target, made)
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--graph-store", default=None)
    parser.add_argument(
        "--out", type=Path, required=True, help="a folder for each pair's pools (reused)"
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    config = CageConfig()
    reranker = CageReranker(config, graph_store=args.graph_store)
    states: dict[str, CorpusState] = {}
    results = {}
    for weights in GRID:
        pools = pools_for(weights, args.data, reranker, states, args.out)
        scores = np.array([pool_measures(cage_order(p, config), p) for p in pools])
        hybrid = np.array([pool_measures(hybrid_order(p, config), p) for p in pools])
        results[weights] = (pools, scores, hybrid)
        print(f"{weights}: built {len(pools)} pools", file=sys.stderr, flush=True)
    pools = results[GRID[0]][0]
    groups = np.array([p["setting"] for p in pools])
    folds = fold_array(p["id"] for p in pools)
    for weights in GRID:  # the same questions in the same order for every pair
        assert [p["id"] for p in results[weights][0]] == [p["id"] for p in pools]
    scores = np.array([results[weights][1] for weights in GRID])
    cv = cross_validate(scores, folds, group_objective(scores, groups, sorted(set(groups))))
    oof = cv.out_of_fold
    oof_hybrid = np.zeros((len(pools), 3))
    for k, best in enumerate(cv.fold_choices):
        print(f"fold {k}: adjacent, sibling = {GRID[best]}")
        oof_hybrid[folds == k] = results[GRID[best]][2][folds == k]
    print(f"all folds: {GRID[cv.chosen]}\n")
    print(
        "| adjacent, sibling | "
        + " | ".join(f"{g} cage / hybrid R@3, R@5" for g in sorted(set(groups)))
        + " |"
    )
    print("|---|" + "---|" * len(set(groups)))
    for weights in GRID:
        _, s, h = results[weights]
        cells = [
            f"{s[groups == g, 0].mean():.3f}, {s[groups == g, 1].mean():.3f} / "
            f"{h[groups == g, 0].mean():.3f}, {h[groups == g, 1].mean():.3f}"
            for g in sorted(set(groups))
        ]
        print(f"| {weights} | " + " | ".join(cells) + " |")
    cells = [
        f"{oof[groups == g, 0].mean():.3f}, {oof[groups == g, 1].mean():.3f} / "
        f"{oof_hybrid[groups == g, 0].mean():.3f}, {oof_hybrid[groups == g, 1].mean():.3f}"
        for g in sorted(set(groups))
    ]
    print("| out of fold | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
