"""The link index's weights (``expansion.forward`` … ``adjacent``): pooled CV, folders included.

    python benchmarks/tuning/link_weights_cv.py --data ../shared/data --graph-store graphs.sqlite \\
        --out link-weights/ [--check benchmarks/data/unseen_folders]

The expansion (``cage eval --expand``, the expansion retrievers) orders the passages a seed
links to by the weights of :class:`~cage_core.expansion.algorithm.LinkWeights`: ``forward``,
``backward``, ``shared``, ``seed_decay``, ``max_shared_df`` and ``adjacent`` (first chosen by
``sibling_cv.py``, on DragonBall and SciFact chunks alone). Each point of
:data:`crossval.grids.LINK_WEIGHTS_GRID` (the shipped weights first, then one field moved at a
time) gives the same link index (its storage) those weights, rebuilds every expanded DEV pool,
and ranks it with the shipped ranking. The points of :data:`crossval.grids.EXPANSION_CITED`
follow, the shipped weights with the expansion retrievers' ``cited`` moved (the documents the
seeds cite that the expansion follows): ``cage eval``'s pools follow no citation, so there
they are the shipped point's pools, read once.

* the seven ``-open-x`` settings of :mod:`crossval.dev_pools` (the Wikipedia files untitled,
  RAMDocs, DragonBall, SciFact abstracts and chunks: the same corpus, retrieval, graphs and
  gold as ``beyond_pools.py``), ranked by ``crossval.orders.cage_order``;
* the DEV folders (``benchmarks/data/dev_folders``) through the LangChain README path
  (``crossval.dev_folders.langchain_ingest``, ``ScoredVectorStoreRetriever`` k=20,
  ``CageExpansionRetriever`` over ``LinkIndex(weights, storage=...)``, ``CageRerank()``);
  group ``<folder>-open-x``, pool id ``"<folder>/<question id>"``.

Folds by question id (``crossval.fold_array``); for each fold the point with the best mean
``R@3 + R@5`` over the groups on the other folds (``crossval.group_objective``; ties: the
first in grid order, the shipped weights) ranks it. Each point's measures are kept in
``--out`` (JSON) and reused by a later run with the same ``--out``. ``--check DIR`` ranks the
folders of ``DIR`` (the held-out ones) at the shipped weights and the all-fold choice: a
check, never part of the choice.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: crossval
from crossval import cross_validate, fold_array, group_objective
from crossval.dev_folders import DATA, folder_specs, gold_ids, langchain_ingest, load_chunks, recall
from crossval.dev_pools import BEYOND, WIKI, open_pools
from crossval.grids import EXPANSION_CITED, LINK_WEIGHTS_GRID
from crossval.measures import pool_measures
from crossval.orders import cage_order

from cage_core import CageConfig, CageReranker
from cage_core.eval.corpus import corpus_from_pools, load_corpus
from cage_core.eval.datasets import EvalQuestion, load_questions
from cage_core.eval.open_retrieval import CorpusState
from cage_core.expansion.index import LinkIndex, LinkWeights

K = 20
Row = dict[str, Any]
RETRIEVER_FIELDS = ("cited",)
"""A point's fields that are the expansion retriever's, not :class:`LinkWeights`'."""


def weights(point: dict[str, float]) -> LinkWeights:
    """The link weights of ``point``: the shipped ones with its weight fields moved."""
    return LinkWeights(**{k: v for k, v in point.items() if k not in RETRIEVER_FIELDS})


def label(point: dict[str, float]) -> str:
    """A grid point as the report names it: its moved fields, or "shipped"."""
    return ", ".join(f"{k} {v}" for k, v in point.items()) or "shipped"


def open_rows(
    point: dict[str, float],
    data: Path,
    reranker: CageReranker,
    states: dict[str, tuple[list[EvalQuestion], CorpusState]],
) -> list[Row]:
    """R@3, R@5 and misinformation in the top 5 of every ``-open-x`` pool rebuilt under
    ``point``'s weights."""
    config = reranker.config
    rows: list[Row] = []
    stems = {d: (f"{d}.jsonl", None, False) for d in WIKI} | BEYOND
    for stem, (qfile, cfile, titles) in stems.items():
        if stem not in states:  # the questions, corpus and graphs: read once, for every point
            questions = load_questions(data / qfile)
            corpus = (
                corpus_from_pools(questions, titles=False)
                if cfile is None
                else load_corpus(data / cfile, titles=titles)
            )
            states[stem] = questions, CorpusState(corpus, reranker)
            states[stem][1].ensure_graphs(range(len(corpus)), full=False)
        questions, state = states[stem]
        shipped = state.ensure_link_index()
        state.link_index = LinkIndex(weights(point), storage=shipped.storage)
        try:
            pools = open_pools(
                questions, state, reranker, stem, expand=True, by_id=cfile is not None
            )
        finally:
            state.link_index = shipped
        for pool in pools:
            r3, r5, misinfo = pool_measures(cage_order(pool, config), pool)
            rows.append(
                {
                    "setting": pool["setting"],
                    "id": pool["id"],
                    "r3": r3,
                    "r5": r5,
                    "misinfo": misinfo,
                }
            )
    return rows


def folder_ranker(spec_path: Path) -> Callable[[dict[str, float]], list[Row]]:
    """``rows(point)``: R@3, R@5 of each question of the folder through the LangChain README
    path, the expansion under ``point``'s weights (the ingest done once)."""
    from cage_langchain import CageExpansionRetriever, CageRerank, ScoredVectorStoreRetriever

    spec, chunks = load_chunks(spec_path)
    gold = gold_ids(spec, chunks)
    _, store, links = langchain_ingest(chunks)
    base = ScoredVectorStoreRetriever(vectorstore=store, k=K)
    cage = CageRerank()

    def rows(point: dict[str, float]) -> list[Row]:
        index = LinkIndex(weights(point), storage=links.storage)
        moved = {k: int(point[k]) for k in RETRIEVER_FIELDS if k in point}
        expand = CageExpansionRetriever(
            base_retriever=base, vectorstore=store, link_index=index, **moved
        )
        out = []
        for q in spec["questions"]:
            g = gold.get(q["id"]) or []
            if g:
                ids = [
                    d.id
                    for d in cage.compress_documents(expand.invoke(q["question"]), q["question"])
                ]
                out.append(
                    {
                        "setting": f"{spec_path.stem}-open-x",
                        "id": f"{spec_path.stem}/{q['id']}",
                        "r3": recall(ids, g, 3),
                        "r5": recall(ids, g, 5),
                        "misinfo": float("nan"),
                    }
                )
        return out

    return rows


def folders_rows(folder: Path, points: list[dict[str, float]]) -> list[list[Row]]:
    """Each point's rows over every folder spec in ``folder``."""
    made: list[list[Row]] = [[] for _ in points]
    for spec_path in folder_specs(folder):
        start = time.perf_counter()
        rank = folder_ranker(spec_path)
        for k, point in enumerate(points):
            made[k] += rank(point)
        took = time.perf_counter() - start
        print(f"{spec_path.stem}: {len(points)} points ({took:.0f}s)", file=sys.stderr, flush=True)
    return made


def cached(path: Path, points: list[dict[str, float]], make: Callable[[], list[list[Row]]]):
    """Each point's rows, read from ``path`` if it holds the same points, else made and written."""
    if path.exists():
        saved = json.loads(path.read_text(encoding="utf-8"))
        if saved["points"] == points:
            return saved["rows"]
    rows = make()
    path.write_text(json.dumps({"points": points, "rows": rows}), encoding="utf-8")
    return rows


def measured(args: argparse.Namespace, points: list[dict[str, float]]) -> list[list[Row]]:
    """Each grid point's rows: the ``-open-x`` pools', then the folders' (cached in ``--out``)."""

    def open_part() -> list[list[Row]]:
        reranker = CageReranker(CageConfig(), graph_store=args.graph_store)
        states: dict[str, tuple[list[EvalQuestion], CorpusState]] = {}
        made = []
        by_weights: dict[LinkWeights, list[Row]] = {}  # a cited point: the shipped pools
        for point in points:
            start = time.perf_counter()
            key = weights(point)
            if key not in by_weights:
                by_weights[key] = open_rows(point, args.data, reranker, states)
            made.append(by_weights[key])
            took = time.perf_counter() - start
            print(
                f"{label(point)}: {len(made[-1])} pools ({took:.0f}s)", file=sys.stderr, flush=True
            )
        return made

    opened = cached(args.out / "open.json", points, open_part)
    folders = cached(args.out / "folders.json", points, lambda: folders_rows(DATA, points))
    return [a + b for a, b in zip(opened, folders)]


def table(names: list[str], groups: np.ndarray, lines: dict[str, np.ndarray]) -> None:
    print("| point | " + " | ".join(names) + " | mean |")
    print("|---|" + "---|" * (len(names) + 1))
    for name, scores in lines.items():
        cells = [
            f"{scores[groups == g, 0].mean():.3f} / {scores[groups == g, 1].mean():.3f}"
            for g in names
        ]
        means = np.mean([scores[groups == g, :2].mean(axis=0) for g in names], axis=0)
        print(f"| {name} | " + " | ".join(cells) + f" | {means[0]:.3f} / {means[1]:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--graph-store", default=None)
    parser.add_argument("--out", type=Path, required=True, help="a folder for the measures")
    parser.add_argument("--check", type=Path, default=None, help="held-out folders to check")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    points = [dict(p) for p in LINK_WEIGHTS_GRID] + [{"cited": c} for c in EXPANSION_CITED]
    rows = measured(args, points)
    ids = [r["id"] for r in rows[0]]
    for made in rows:  # the same pools in the same order at every point
        assert [r["id"] for r in made] == ids
    scores = np.array([[(r["r3"], r["r5"], r["misinfo"]) for r in made] for made in rows])
    groups = np.array([r["setting"] for r in rows[0]])
    names = sorted(set(groups))
    misinfo = np.nanmean(scores[:, groups == "ramdocs-open-x", 2], axis=1)
    allowed = misinfo <= misinfo[0] + 1e-9
    folds = fold_array(ids)
    cv = cross_validate(scores, folds, group_objective(scores, groups, names, allowed))
    for k, best in enumerate(cv.fold_choices):
        print(f"fold {k}: {label(points[best])}")
    print(
        f"all folds: {label(points[cv.chosen])} ({int(allowed.sum())} of {len(points)} points "
        "keep RAMDocs' misinformation in the top 5 at most the shipped weights')\n"
    )
    print("R@3 / R@5 per group:\n")
    table(
        names,
        groups,
        {label(p): scores[k] for k, p in enumerate(points)} | {"out of fold": cv.out_of_fold},
    )
    print(
        "\nRAMDocs misinformation in the top 5: "
        + ", ".join(f"{label(p)} {m:.3f}" for p, m in zip(points, misinfo))
    )
    change = {
        g: (cv.out_of_fold[groups == g, :2] - scores[0, groups == g, :2]).mean(axis=0)
        for g in names
    }
    lost = [f"{g} {d[0]:+.3f} / {d[1]:+.3f}" for g, d in change.items() if (d < -1e-9).any()]
    print(
        "groups out of fold below the shipped weights (R@3 / R@5): " + ("; ".join(lost) or "none")
    )
    if args.check is not None:
        chosen = [points[0]] if cv.chosen == 0 else [points[0], points[cv.chosen]]
        checked = folders_rows(args.check, chosen)
        check_groups = np.array([r["setting"] for r in checked[0]])
        print(f"\nChecked on {args.check} (not part of the choice):\n")
        table(
            sorted(set(check_groups)),
            check_groups,
            {label(p): np.array([(r["r3"], r["r5"]) for r in c]) for p, c in zip(chosen, checked)},
        )


if __name__ == "__main__":
    main()
