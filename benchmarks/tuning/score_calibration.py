"""Scores that can be thresholded across questions: on-topic vs off-topic pools on DEV.

    nice -n 5 python benchmarks/tuning/score_calibration.py --data ../shared/data \\
        --graph-store graphs.sqlite --limit 40 [--features score-features.json.gz]

What the frameworks' cutoff steps read (:func:`cage_core.relevance.pool_relevance`):
``score_i = σ(slope · (max s + weight · c − midpoint)) · e^(−(max f − f_i) / spread)``, ``s``
the pool's MiniLM cosines, ``c`` the question's words one passage of the pool holds
(:func:`cage_core.ranking.pool_bm25.query_word_coverage`), ``f`` CAGE's fused scores
(``score_pool``, the product's own path, default config). This script builds the pools,
chooses ``(weight, midpoint, slope, spread)`` for the cutoff by 5-fold cross-validation by
question (``crossval.fold_of``), pooled over every file, and prints the figures.
``--features F.json.gz`` keeps the pools' cosines, coverage and fused scores as each pool set
is built (an interrupted run resumes); ``--only-measure`` re-chooses from them;
``--weights 0`` chooses the form without the coverage (the best similarity alone);
``--with-folders G.json.gz`` adds the DEV folders' pools (``score_folders.py``: the README
path's expanded, routed pools and each folder's off-topic questions) to the choice.

**Files.** The DEV files ``hotpotqa``, ``2wikimultihopqa``, ``musique``, ``ramdocs`` (corpus:
the distinct passages of all the file's questions, untitled, as ``cage eval --open 20
--no-titles`` builds it) and ``beyond-wikipedia/{dragonball, scifact, cuad}`` (their corpus
files; SciFact's abstracts titled, the others untitled); the first ``--limit`` questions of
each file (by-id questions whose gold the corpus lacks are left out, as ``cage eval`` does).

**On-topic pools.** Each question's cosine top 20 over its own file's corpus
(:class:`cage_core.eval.corpus_retrieval.CorpusRetriever`, no expansion), gold as
``cage eval`` matches it.

**Off-topic pools.** The same questions, each asked against the corpus of a file of another
domain (:data:`OFF_TOPIC`): the Wikipedia files against contracts (CUAD), biomedical
abstracts (SciFact) and fictional finance reports (DragonBall), DragonBall against SciFact,
SciFact against CUAD, CUAD against HotpotQA's Wikipedia passages. Their top 20 by cosine is
the pool; no passage of it is gold. Two Wikipedia files are never paired (their topics
overlap, so a "wrong" corpus may hold the answer).

**Measures** (pooled over every file; out of fold unless said so):

* AUC of the top score (= ``g``, the pool's evidence) for on-topic against off-topic pools;
* at the cutoff ``t``: the share of on-topic gold passages kept among those CAGE puts in the
  top 5 (the README's ``CageRerank(top_n=5)`` then a cutoff), and among all gold passages in
  the top 20; the share of off-topic pools dropped whole (top score below ``t``);
* calibration: per score bin, the passages of the top 5 of every pool (on- and off-topic)
  and the share of them that are gold.

**Choice.** The cutoff is fixed (``--cutoff``, default 0.5: a pool is dropped exactly when
its best cosine + ``weight · c`` is below ``midpoint``). Issue 38's targets are two: keep ≥
:data:`KEEP` of the on-topic top-5 gold passages, drop ≥ :data:`DROP` of the off-topic pools.
For each fold, on the other folds: the grid point (:data:`GRID`) whose smaller margin over the
two targets (``min(kept − KEEP, dropped − DROP)``) is largest; ties: the least log-loss of
"passage is gold" over the top 5 of every pool (calibration), then grid order. The held-out
fold is scored with that point. The shipped point is the one chosen on all folds. (Until
issue 38 was closed the rule was "keep ≥ 95%, then drop the most": it sat on the keep target,
and out of fold fell below it, .944.)
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: crossval
from crossval import FOLDS, fold_array, grid_points

from cage_core import CageConfig, CageReranker
from cage_core.eval.corpus import corpus_from_pools, load_corpus
from cage_core.eval.corpus_retrieval import CorpusRetriever
from cage_core.eval.datasets import load_questions
from cage_core.eval.open_retrieval import (
    DEFAULT_OPEN_K,
    CorpusState,
    gold_ids_in_corpus,
    gold_in_corpus,
)
from cage_core.methods.cage import score_pool
from cage_core.ranking.pool_bm25 import query_word_coverage
from cage_core.relevance import pool_relevance
from cage_core.scoring import cosine_matrix

WIKI = ("hotpotqa", "2wikimultihopqa", "musique", "ramdocs")
BEYOND = {  # file: (questions, corpus, titles)
    "dragonball": (
        "beyond-wikipedia/dragonball.jsonl",
        "beyond-wikipedia/dragonball.corpus.jsonl",
        False,
    ),
    "scifact": ("beyond-wikipedia/scifact.jsonl", "beyond-wikipedia/scifact.corpus.jsonl", True),
    "cuad": ("beyond-wikipedia/cuad.jsonl", "beyond-wikipedia/cuad.corpus.jsonl", False),
}
FILES = (*WIKI, *BEYOND)
OFF_TOPIC = {  # questions of the key asked against the corpus of the value
    "hotpotqa": "cuad",
    "2wikimultihopqa": "scifact",
    "musique": "dragonball",
    "ramdocs": "cuad",
    "dragonball": "scifact",
    "scifact": "cuad",
    "cuad": "hotpotqa",
}
TOP = 5
"""The passages a cutoff sees: the README's ``CageRerank(top_n=5)``."""
GRID: dict[str, tuple[float, ...]] = {
    "weight": (0.0, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0),
    "midpoint": tuple(round(0.1 + 0.0125 * i, 4) for i in range(81)),
    "slope": (5.0, 10.0, 15.0, 20.0, 30.0, 50.0, 80.0),
    "spread": (0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 8.0, 12.0, 20.0),
}
OTHER_CUTOFFS = (0.3, 0.75)
"""Cutoffs the shipped point is also reported at."""
KEEP = 0.95
"""The share of on-topic top-5 gold passages a cutoff is to keep (issue 38)."""
DROP = 0.90
"""The share of off-topic pools a cutoff is to drop whole (issue 38)."""
BINS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


# -- pools ------------------------------------------------------------------------------
def _corpus(data: Path, name: str, reranker: CageReranker) -> CorpusState:
    if name in BEYOND:
        _, cfile, titles = BEYOND[name]
        return CorpusState(load_corpus(data / cfile, titles=titles), reranker)
    return CorpusState(
        corpus_from_pools(load_questions(data / f"{name}.jsonl"), titles=False), reranker
    )


def _questions(data: Path, name: str) -> list[Any]:
    path = data / BEYOND[name][0] if name in BEYOND else data / f"{name}.jsonl"
    return load_questions(path)


def _pools(
    questions: list[Any], state: CorpusState, reranker: CageReranker, name: str, on_topic: bool
) -> list[dict[str, Any]]:
    """The top-20 pools of ``questions`` over ``state``'s corpus with their cosines, coverage,
    fused scores and (on topic) gold positions."""
    config = reranker.config
    corpus = state.corpus
    vectors = np.asarray(reranker.embedder([q.question for q in questions]), dtype=np.float64)
    cosines = cosine_matrix(vectors, state.embeddings)
    retriever = CorpusRetriever(
        [p.content for p in corpus.passages], cosines, "cosine", config.lexical_weight
    )
    out = []
    for row, q in enumerate(questions):
        ids = retriever.top(row, q.question, DEFAULT_OPEN_K)
        state.ensure_graphs(ids, full=False)
        passages = [corpus.passages[i] for i in ids]
        sims = cosines[row, ids]
        fused = score_pool(q.question, passages, sims, [state.graphs[i] for i in ids], config)
        position = {c: n for n, c in enumerate(ids)}
        gold = [position[g] for g in gold_in_corpus(q, corpus) if g in position] if on_topic else []
        out.append(
            {
                "file": name,
                "on_topic": on_topic,
                "id": q.id,
                "sims": [float(x) for x in sims],
                "coverage": query_word_coverage(q.question, [p.content for p in passages]),
                "fused": [float(x) for x in fused.fused],
                "gold": sorted(gold),
            }
        )
    return out


STEPS = sorted(
    [(name, name) for name in FILES] + [(name, OFF_TOPIC[name]) for name in FILES],
    key=lambda step: (step[1] == "cuad", step[1] == "scifact", step),
)
"""``(questions' file, corpus)`` of every pool set, the large corpora (CUAD, SciFact) last."""


def _read(path: Path | None) -> list[dict[str, Any]]:
    if path is None or not path.exists():
        return []
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return list(json.load(handle))


def _write(path: Path | None, pools: list[dict[str, Any]]) -> None:
    if path is None:
        return
    partial = path.with_name(path.name + ".partial")
    with gzip.open(partial, "wt", encoding="utf-8") as handle:
        json.dump(pools, handle)
    partial.replace(path)


def build(
    data: Path, reranker: CageReranker, limit: int, features: Path | None
) -> list[dict[str, Any]]:
    """Every file's on-topic and off-topic pools (module docstring), one pool set (a step of
    :data:`STEPS`) at a time; each is added to ``features`` when done, and a step already
    there is not built again (so an interrupted run resumes)."""
    states: dict[str, CorpusState] = {}
    pools = _read(features)
    done = {(p["file"], p["on_topic"]) for p in pools}
    for name, corpus_name in STEPS:
        on_topic = name == corpus_name
        if (name, on_topic) in done:
            continue
        start = time.perf_counter()
        if corpus_name not in states:
            states[corpus_name] = _corpus(data, corpus_name, reranker)
        state = states[corpus_name]
        questions = _questions(data, name)[:limit]
        if on_topic and name in BEYOND:
            questions = [q for q in questions if gold_ids_in_corpus(q, state.corpus) != ()]
        made = _pools(questions, state, reranker, name, on_topic)
        pools += made
        _write(features, pools)
        print(
            f"{name} over {corpus_name}: {len(made)} pools ({time.perf_counter() - start:.0f}s)",
            file=sys.stderr,
            flush=True,
        )
    return pools


# -- measures ---------------------------------------------------------------------------
def _tops(pools: list[dict[str, Any]]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each pool's top-5 positions (by fused score, ties in pool order) and their gold flags."""
    out = []
    for p in pools:
        fused = np.asarray(p["fused"])
        order = np.argsort(-fused, kind="stable")[:TOP]
        out.append((order, np.isin(order, p["gold"])))
    return out


def _scores(pools: list[dict[str, Any]], point: dict[str, Any]) -> list[np.ndarray]:
    """Every passage's score of every pool under ``point``, by the package's own function."""
    return [
        pool_relevance(
            p["fused"],
            p["sims"],
            p["coverage"],
            midpoint=point["midpoint"],
            slope=point["slope"],
            spread=point["spread"],
            weight=point["weight"],
        )
        for p in pools
    ]


def auc(positive: np.ndarray, negative: np.ndarray) -> float:
    """P(a positive scores above a negative), ties counting half."""
    pos, neg = np.asarray(positive)[:, None], np.asarray(negative)[None, :]
    return float(np.mean((pos > neg) + 0.5 * (pos == neg)))


def top5_arrays(
    pools: list[dict[str, Any]], scores: list[np.ndarray], tops: list[tuple[np.ndarray, np.ndarray]]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The top-5 passages' scores and gold flags, and each one's pool index."""
    values = np.concatenate([s[o] for s, (o, _) in zip(scores, tops)])
    gold = np.concatenate([g for _, g in tops])
    owner = np.concatenate([np.full(len(o), n) for n, (o, _) in enumerate(tops)])
    return values, gold, owner


def log_loss(values: np.ndarray, gold: np.ndarray) -> float:
    """The mean binary log-loss of ``values`` as the probability of ``gold``."""
    v = np.clip(values, 1e-6, 1 - 1e-6)
    return float(-np.mean(np.where(gold, np.log(v), np.log(1 - v))))


class Table:
    """What the choice reads of every pool, once: the best cosine and the coverage, and the
    distance below the pool's best fused score and the gold flag of each top-5 passage."""

    def __init__(self, pools: list[dict[str, Any]]) -> None:
        tops = _tops(pools)
        self.best = np.array([max(p["sims"]) for p in pools])
        self.coverage = np.array([p["coverage"] for p in pools])
        self.on = np.array([p["on_topic"] for p in pools])
        self.below = np.concatenate(
            [max(p["fused"]) - np.asarray(p["fused"])[o] for p, (o, _) in zip(pools, tops)]
        )
        self.gold = np.concatenate([g for _, g in tops])
        self.owner = np.concatenate([np.full(len(o), n) for n, (o, _) in enumerate(tops)])

    def evidence(self, point: dict[str, Any]) -> np.ndarray:
        """``g`` of every pool (its top score)."""
        match = self.best + point["weight"] * self.coverage
        return 1 / (1 + np.exp(-point["slope"] * (match - point["midpoint"])))

    def values(self, point: dict[str, Any]) -> np.ndarray:
        """The score of every top-5 passage (:func:`pool_relevance`'s formula)."""
        return self.evidence(point)[self.owner] * np.exp(-self.below / point["spread"])


def choose(table: Table, points: list[dict[str, Any]], mask: np.ndarray, cutoff: float) -> int:
    """The grid point (index) whose smaller margin over the targets, on the pools of
    ``mask`` at ``cutoff`` (``min(kept − KEEP, dropped − DROP)``: the share of on-topic top-5
    gold passages kept, of off-topic pools dropped), is largest; ties: the least top-5
    log-loss (calibration), then grid order."""
    rows = mask[table.owner]
    off = mask & ~table.on
    best_key: tuple[float, float, float] | None = None
    best = 0
    for n, point in enumerate(points):
        values = table.values(point)
        kept = float(np.mean(values[rows & table.gold] >= cutoff))
        dropped = float(np.mean(table.evidence(point)[off] < cutoff))
        loss = log_loss(values[rows], table.gold[rows])
        key = (min(kept - KEEP, dropped - DROP), -loss, -n)
        if best_key is None or key > best_key:
            best_key, best = key, n
    return best


def report(pools: list[dict[str, Any]], scores: list[np.ndarray], cutoffs: np.ndarray) -> None:
    """The figures of the module docstring for per-pool ``scores`` and per-pool ``cutoffs``."""
    tops = _tops(pools)
    on = np.array([p["on_topic"] for p in pools])
    files = np.array([p["file"] for p in pools])
    top = np.array([s.max() for s in scores])
    values, gold, owner = top5_arrays(pools, scores, tops)
    all_gold = np.concatenate([s[p["gold"]] for s, p in zip(scores, pools)])
    all_cut = np.concatenate([np.full(len(p["gold"]), c) for p, c in zip(pools, cutoffs)])
    print(f"pools: {int(on.sum())} on-topic, {int((~on).sum())} off-topic")
    print(f"AUC of the top score, on- vs off-topic: {auc(top[on], top[~on]):.3f}")
    kept5 = values[gold] >= cutoffs[owner[gold]]
    print(
        f"on-topic top-5 gold passages kept: {kept5.mean():.3f} ({int(kept5.sum())}/{kept5.size})"
    )
    print(
        f"on-topic top-20 gold passages kept: {np.mean(all_gold >= all_cut):.3f} "
        f"({int((all_gold >= all_cut).sum())}/{all_gold.size})"
    )
    dropped = top[~on] < cutoffs[~on]
    print(
        f"off-topic pools dropped whole: {dropped.mean():.3f} ({int(dropped.sum())}/{dropped.size})"
    )
    kept_on = top[on] >= cutoffs[on]
    print(f"on-topic pools kept (top passage passes): {kept_on.mean():.3f}")
    print("\n| file | on-topic pools kept | off-topic pools dropped | AUC | top-5 gold kept |")
    print("|---|---|---|---|---|")
    for name in dict.fromkeys(files):
        f_on, f_off = on & (files == name), ~on & (files == name)
        g = gold & (files[owner] == name)
        off_corpus = OFF_TOPIC.get(name, "its off-topic questions")  # a DEV folder's own
        print(
            f"| {name} (off: {off_corpus}) | {np.mean(top[f_on] >= cutoffs[f_on]):.3f} | "
            f"{np.mean(top[f_off] < cutoffs[f_off]):.3f} | {auc(top[f_on], top[f_off]):.3f} | "
            f"{np.mean(values[g] >= cutoffs[owner[g]]):.3f} |"
        )
    print("\n| score bin | top-5 passages | gold share | on-topic | off-topic |")
    print("|---|---|---|---|---|")
    for lo, hi in zip(BINS[:-1], BINS[1:]):
        inside = (values >= lo) & ((values < hi) if hi < 1 else (values <= hi))
        if inside.any():
            print(
                f"| [{lo:.1f}, {hi:.1f}{')' if hi < 1 else ']'} | {int(inside.sum())} | "
                f"{gold[inside].mean():.3f} | {int(on[owner][inside].sum())} | "
                f"{int((~on[owner])[inside].sum())} |"
            )


def sigma_baseline(pools: list[dict[str, Any]]) -> None:
    """The σ(f) the wrappers reported before: its top score's AUC and what 0.75 keeps."""
    top = np.array([1 / (1 + np.exp(-max(p["fused"]))) for p in pools])
    on = np.array([p["on_topic"] for p in pools])
    print(
        f"before (σ of the fused score): AUC {auc(top[on], top[~on]):.3f}; at 0.75, "
        f"off-topic pools dropped {np.mean(top[~on] < 0.75):.3f}, "
        f"on-topic pools kept {np.mean(top[on] >= 0.75):.3f}"
    )
    sims = np.array([max(p["sims"]) for p in pools])
    coverage = np.array([p["coverage"] for p in pools])
    print(
        f"the best cosine alone: AUC {auc(sims[on], sims[~on]):.3f}; the coverage alone: "
        f"{auc(coverage[on], coverage[~on]):.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--graph-store", default=None, help="SQLite graph store to reuse")
    parser.add_argument("--limit", type=int, default=40, help="questions per file")
    parser.add_argument("--features", type=Path, help="gzipped JSON of the pools (kept, reused)")
    parser.add_argument("--cutoff", type=float, default=0.5, help="the cutoff to choose for")
    parser.add_argument(
        "--only-measure", action="store_true", help="measure the pools in --features as they are"
    )
    parser.add_argument(
        "--weights",
        type=float,
        nargs="+",
        default=GRID["weight"],
        help="the grid's coverage weights (0: the best similarity alone)",
    )
    parser.add_argument(
        "--with-folders",
        type=Path,
        help="the DEV folders' pools (score_folders.py --out), pooled into the choice",
    )
    args = parser.parse_args()
    if args.only_measure:
        pools = _read(args.features)
    else:
        reranker = CageReranker(CageConfig(), graph_store=args.graph_store)
        pools = build(args.data, reranker, args.limit, args.features)
    if args.with_folders is not None:
        pools = pools + _read(args.with_folders)
    sigma_baseline(pools)
    points = grid_points({**GRID, "weight": tuple(args.weights)})
    table = Table(pools)
    folds = fold_array(p["id"] for p in pools)
    chosen = np.zeros(len(pools), dtype=np.int64)
    for k in range(FOLDS):
        best = choose(table, points, folds != k, args.cutoff)
        chosen[folds == k] = best
        print(f"fold {k}: {points[best]}")
    best = choose(table, points, np.ones(len(pools), dtype=bool), args.cutoff)
    print(f"all folds: {points[best]}\n")
    cutoffs = np.full(len(pools), args.cutoff)
    print(f"## out of fold, cutoff {args.cutoff}")
    report(pools, [_scores([p], points[c])[0] for p, c in zip(pools, chosen)], cutoffs)
    shipped = _scores(pools, points[best])
    for cutoff in sorted({args.cutoff, *OTHER_CUTOFFS}):
        print(f"\n## all folds (the shipped point), cutoff {cutoff}")
        report(pools, shipped, np.full(len(pools), cutoff))


if __name__ == "__main__":
    main()
