"""How routing's settings were chosen: a grid, 5-fold cross-validation over ALL DEV files.

    python benchmarks/tuning/routing_cv.py --data ../shared/data --graph-store graphs.sqlite \\
        [--json routing_cv.json] [--arrays F | --from-arrays F] [--with-folders G]

Routing (:mod:`cage_core.expansion.routing`) acts in the open setting with the expansion step
on (``cage eval --open 20 --expand``, the default pipeline of the frameworks). Its pools are
built here as ``cage eval`` builds them (:mod:`cage_core.eval.open_retrieval` and
:mod:`cage_core.eval.open_routing`, the product's code): the top 20 by cosine, the link index's
expansions, then the named documents' best chunks for the shortened question; every pool is
ranked by ``cage`` and ``hybrid`` (their scores, then :func:`named_order
<cage_core.ranking.named_documents.named_order>`).

DEV files: the corpora whose chunks carry a ``doc_id`` — CUAD, DragonBall and the SciFact
chunks (untitled, as their README runs them). The Wikipedia files, RAMDocs and the SciFact
abstracts have no ``doc_id``: no question of theirs can be routed (routing needs two
documents), so their figures are the same under every grid point and they are left out of
the objective (they would add a constant).

Every question goes to one of 5 folds by a hash of its id (``crossval.fold_of``), never by
file. For each fold, the grid point (``off`` = no routing, then every
:class:`~cage_core.expansion.routing.RoutingSettings` of the grid) with the best mean over the
three files of ``R@3 + R@5`` (cage) on the other folds ranks the held-out fold (ties: the first
in grid order), among the points under which no file's mean is below no routing's on those
folds, and under which at most :data:`MAX_FALSE_ROUTES` of the off-topic questions of those folds
are routed (:func:`guarded_objective`). Printed: each file's out-of-fold R@3 / R@5 against no
routing, with paired bootstrap intervals, the out-of-fold share of off-topic questions routed,
each fold's choice, and the point chosen on all folds (the shipped default).

**Off-topic questions** (a false route puts another document's chunks first): each corpus is
also asked every question of the DEV files of other domains (:data:`OFF_TOPIC_FILES`: the four
Wikipedia files and the two other beyond-Wikipedia files; never its own). None of them names a
document of that corpus, so every one routed is a false route. They cost only
:func:`route_question` (no ranking), and go to folds by their question id like the others.

**The DEV folders** (``--with-folders F``, ``F`` from ``routing_folders.py``): the seven
folders' questions ranked through the LangChain README path at every point, each folder one
more group of the objective, its off-topic questions and the other folders' questions its
off-topic ones. The guard (no domain below no routing) reads the folders as one domain,
:data:`FOLDERS_DOMAIN` (their questions pooled): a folder holds 16–20 questions, one question
moves its mean ``R@3 + R@5`` by .03–.06, and read folder by folder the guard bars every
routing point on all folds together (at the shipped point HTTPX loses one question's R@3 and
restic two's), so routing would be off. ``--arrays F`` writes every point's figures
(:mod:`crossval.routing_arrays`), and ``--from-arrays F`` reads them back instead of ranking the
files again: the choice in seconds.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: crossval
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this tree's cage_core

from crossval.bootstrap import paired_interval
from crossval.choice import cross_validate, grid_points, group_objective
from crossval.dev_folders import DOCUMENT_CORPORA
from crossval.folds import fold_array
from crossval.grids import ROUTING_GRID as GRID
from crossval.routing_arrays import (
    joined,
    read_arrays,
    route_cache,
    routing_points,
    write_arrays,
)

from cage_core.eval.corpus import load_corpus
from cage_core.eval.corpus_retrieval import CorpusRetriever
from cage_core.eval.datasets import load_questions
from cage_core.eval.metrics import recall_at_k
from cage_core.eval.open_retrieval import (
    CorpusState,
    ExpansionSettings,
    expand_pool,
    gold_ids_in_corpus,
    gold_in_corpus,
)
from cage_core.eval.open_routing import RoutedPools
from cage_core.expansion.routing import RoutingSettings, route_question
from cage_core.graphs.store import GraphStore
from cage_core.methods import get_method
from cage_core.methods.base import Pool
from cage_core.ranking.named_documents import named_order
from cage_core.reranker import CageReranker
from cage_core.scoring import cosine_matrix, ranking

FILES = DOCUMENT_CORPORA
OWN_QUESTIONS = {"cuad": "cuad", "dragonball": "dragonball", "scifact-chunks": "scifact"}
OFF_TOPIC_FILES = {
    "hotpotqa": "hotpotqa.jsonl",
    "2wikimultihopqa": "2wikimultihopqa.jsonl",
    "musique": "musique.jsonl",
    "ramdocs": "ramdocs.jsonl",
    "cuad": "beyond-wikipedia/cuad.jsonl",
    "dragonball": "beyond-wikipedia/dragonball.jsonl",
    "scifact": "beyond-wikipedia/scifact.jsonl",
}
"""Question files asked of the corpora of other domains (module docstring)."""
MAX_FALSE_ROUTES = 0.01
"""The most off-topic questions a point may route, as a share (module docstring): one in a
hundred questions of another domain may be sent to a document of this one."""
K = 20
METHODS = ("cage", "hybrid")


def file_scores(
    name: str,
    questions_path: Path,
    corpus_path: Path,
    reranker: CageReranker,
    points: Sequence[RoutingSettings | None],
    off_topic: Sequence[str],
) -> tuple[list[str], np.ndarray, dict[str, Any]]:
    """Question ids and ``[P, N, methods, 2]`` R@3 / R@5 of every grid point on one file;
    ``info["routed"]``: ``[P, N]``, whether each point routes each question;
    ``info["false_routes"]``: ``[P, len(off_topic)]``, whether each point routes each
    off-topic question (module docstring) over this corpus."""
    corpus = load_corpus(corpus_path, titles=False)
    state = CorpusState(corpus, reranker)
    names = state.documents.names
    route_of = route_cache(lambda question, point: route_question(question, names, point))
    false_routes = np.array(
        [[bool(route_of(q, point)) for q in off_topic] for point in points],
        dtype=bool,
    ).reshape(len(points), len(off_topic))
    questions = [q for q in load_questions(questions_path) if gold_ids_in_corpus(q, corpus) != ()]
    golds = [gold_in_corpus(q, corpus) for q in questions]
    vectors = np.asarray(reranker.embedder([q.question for q in questions]), dtype=np.float64)
    cosines = cosine_matrix(vectors, state.embeddings)
    first_stage = CorpusRetriever([p.content for p in corpus.passages], cosines, "cosine", 0.0)
    retrieved = [first_stage.top(row, q.question, K) for row, q in enumerate(questions)]
    methods = [get_method(m, reranker.config) for m in METHODS]
    full = any(getattr(m, "needs_vectors", False) for m in methods)
    state.ensure_graphs(range(len(corpus)), full=full)
    link_index = state.ensure_link_index()
    settings = ExpansionSettings()
    pools = [
        ids + expand_pool(link_index, corpus, q.question, ids, settings)
        for q, ids in zip(questions, retrieved)
    ]
    shortened: dict[str, np.ndarray] = {}
    ranked: dict[tuple[Any, ...], np.ndarray] = {}
    scores = np.zeros((len(points), len(questions), len(METHODS), 2))
    route_rows = []
    for p, point in enumerate(points):
        routes = [route_of(q.question, point) for q in questions]
        route_rows.append([bool(r) for r in routes])
        todo = [r.question for r in routes if r and r.question not in shortened]
        if todo:
            rows = cosine_matrix(
                np.asarray(reranker.embedder(todo), dtype=np.float64), state.embeddings
            )
            shortened.update(zip(todo, rows))
        routed_rows = [shortened[r.question] for r in routes if r]
        routed = RoutedPools.build(
            routes,
            pools,
            state.documents,
            np.array(routed_rows).reshape(len(routed_rows), len(corpus)),
            point.chunks if point is not None else 1,
        )
        for row, (q, route) in enumerate(zip(questions, routes)):
            ids = routed.pools.get(row, pools[row])
            key = (row, tuple(ids), route.question, route.doc_ids)
            if key not in ranked:
                sims = routed.similarities.get(row, cosines[row])[ids]
                state.ensure_graphs(ids, full=full)
                pool = Pool(
                    query=route.question,
                    passages=[corpus.passages[i] for i in ids],
                    similarities=sims,
                    key=q.id,
                    graphs=[state.graphs[i] for i in ids],
                    passage_vectors=state.embeddings[ids],
                )
                named = [corpus.passages[i].doc_id in route.doc_ids for i in ids]
                documents = [corpus.passages[i].doc_id for i in ids]
                orders = []
                for method in methods:
                    fused = method.score(pool)
                    if route:
                        fused = named_order(fused, named, documents)
                    orders.append(np.asarray(ids)[ranking(fused)])
                ranked[key] = np.array(orders)
            for m, order in enumerate(ranked[key]):
                scores[p, row, m] = [
                    recall_at_k(list(order), golds[row], 3),
                    recall_at_k(list(order), golds[row], 5),
                ]
    info = {
        "questions": len(questions),
        "routed": np.array(route_rows, dtype=bool).reshape(len(points), len(questions)),
        "rankings": len(ranked),
        "false_routes": false_routes,
    }
    return [q.id for q in questions], scores, info


def guarded_objective(
    scores: np.ndarray,
    groups: np.ndarray,
    names: Sequence[str],
    folds: np.ndarray,
    false_routes: np.ndarray,
    false_route_folds: np.ndarray,
    domains: np.ndarray | None = None,
) -> Any:
    """The mean over ``names`` of each group's mean ``R@3 + R@5`` (``crossval.group_objective``),
    a point allowed only when, on the folds read, no domain's mean (``domains``: each
    question's; default its group) is below no routing's (point 0) — a routing that helps one
    domain and hurts another is a loss — and at most :data:`MAX_FALSE_ROUTES` of the off-topic
    questions (``false_routes [P, M]``, their folds ``false_route_folds``) are routed."""
    plain = group_objective(scores, groups, names)
    domains = groups if domains is None else domains
    kinds = sorted(set(domains.tolist()))

    def objective(mask: np.ndarray) -> np.ndarray:
        per_domain = np.array(
            [scores[:, mask & (domains == d), :2].sum(axis=2).mean(axis=1) for d in kinds]
        )  # [domains, P]
        allowed = (per_domain >= per_domain[:, :1] - 1e-9).all(axis=0)
        read = np.isin(false_route_folds, np.unique(folds[mask]))
        allowed &= false_routes[:, read].mean(axis=1) <= MAX_FALSE_ROUTES
        return np.where(allowed, plain(mask), -np.inf)

    return objective


FOLDERS_DOMAIN = "the DEV folders"
"""The guard's domain of every DEV folder's questions (module docstring)."""


def score_files(args: argparse.Namespace) -> dict[str, np.ndarray]:
    """Every DEV file's arrays (:mod:`crossval.routing_arrays`), printed as each is done."""
    reranker = CageReranker(graph_store=GraphStore(args.graph_store) if args.graph_store else None)
    points = routing_points()
    asked = {name: load_questions(args.data / path) for name, path in OFF_TOPIC_FILES.items()}
    parts: list[dict[str, np.ndarray]] = []
    for name, data, corpus in FILES:
        start = time.perf_counter()
        off_topic = [q for other, qs in asked.items() if other != OWN_QUESTIONS[name] for q in qs]
        qids, scores, info = file_scores(
            name,
            args.data / data,
            args.data / corpus,
            reranker,
            points,
            [q.question for q in off_topic],
        )
        pairs = [
            f"{other} -> {name}"
            for other, qs in asked.items()
            if other != OWN_QUESTIONS[name]
            for _ in qs
        ]
        parts.append(
            {
                "scores": scores,
                "routed": info["routed"],
                "groups": np.array([name] * len(qids)),
                "ids": np.array(qids),
                "false_routes": info["false_routes"],
                "false_route_ids": np.array([q.id for q in off_topic]),
                "false_route_pairs": np.array(pairs),
            }
        )
        print(
            f"{name}: {info['questions']} questions, {info['rankings']} rankings, "
            f"routed by the chosen-on-all point: see below ({time.perf_counter() - start:.0f} s)",
            flush=True,
        )
    return joined(parts)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--graph-store", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None, help="write per-question figures")
    parser.add_argument(
        "--arrays", type=Path, default=None, help="write every point's figures (.npz)"
    )
    parser.add_argument(
        "--from-arrays", type=Path, default=None, help="read the DEV files' figures (.npz)"
    )
    parser.add_argument(
        "--with-folders",
        type=Path,
        default=None,
        help="pool the DEV folders' arrays (.npz from routing_folders.py) into the choice",
    )
    args = parser.parse_args(argv)
    arrays = score_files(args) if args.from_arrays is None else read_arrays(args.from_arrays)
    if args.arrays:
        write_arrays(args.arrays, arrays)
    if args.with_folders is not None:
        arrays = joined([arrays, read_arrays(args.with_folders)])
    ids = arrays["ids"].tolist()
    group_array = arrays["groups"]
    names = list(dict.fromkeys(group_array.tolist()))
    scores = arrays["scores"]  # [P, N, M, 2]
    cage = scores[:, :, 0, :]
    folds = fold_array(ids)
    false = arrays["false_routes"]  # [P, M]
    false_folds = fold_array(arrays["false_route_ids"].tolist())
    files = {name for name, _, _ in FILES}
    domains = np.array([g if g in files else FOLDERS_DOMAIN for g in group_array.tolist()])
    cv = cross_validate(
        cage,
        folds,
        guarded_objective(cage, group_array, names, folds, false, false_folds, domains),
    )
    false_oof = np.array(
        [false[cv.fold_choices[f], m] for m, f in enumerate(false_folds)], dtype=bool
    )
    hybrid_cv = scores[np.array(cv.fold_choices)[folds], np.arange(len(ids)), 1, :]
    label = ["off", *(str(p) for p in grid_points(GRID))]
    print("fold choices:", [label[c] for c in cv.fold_choices])
    print("chosen on all folds:", label[cv.chosen])
    out: dict[str, Any] = {
        "chosen": label[cv.chosen],
        "fold_choices": [label[c] for c in cv.fold_choices],
        "files": {},
    }
    for name in names:
        mask = group_array == name
        off = scores[0, mask]
        oof = cv.out_of_fold[mask]
        low, high = paired_interval(oof - off[:, 0, :])
        routed = int(arrays["routed"][cv.chosen, mask].sum())
        print(
            f"{name:15} n={mask.sum():4}  routed(chosen)={routed:4}  "
            f"cage R@3/R@5 no route {off[:, 0, 0].mean():.3f}/{off[:, 0, 1].mean():.3f}  "
            f"routed (out of fold) {oof[:, 0].mean():.3f}/{oof[:, 1].mean():.3f}  "
            f"diff 95% [{low[0]:+.3f},{high[0]:+.3f}]/[{low[1]:+.3f},{high[1]:+.3f}]  "
            f"hybrid no route {off[:, 1, 0].mean():.3f}/{off[:, 1, 1].mean():.3f} "
            f"routed {hybrid_cv[mask, 0].mean():.3f}/{hybrid_cv[mask, 1].mean():.3f}"
        )
        out["files"][name] = {
            "questions": int(mask.sum()),
            "routed_by_chosen": routed,
            "cage_no_route": [float(off[:, 0, 0].mean()), float(off[:, 0, 1].mean())],
            "cage_out_of_fold": [float(oof[:, 0].mean()), float(oof[:, 1].mean())],
            "hybrid_no_route": [float(off[:, 1, 0].mean()), float(off[:, 1, 1].mean())],
            "hybrid_out_of_fold": [
                float(hybrid_cv[mask, 0].mean()),
                float(hybrid_cv[mask, 1].mean()),
            ],
        }
    pairs = arrays["false_route_pairs"]
    print(
        f"off-topic questions routed: out of fold {false_oof.sum()}/{len(false_oof)} "
        f"({false_oof.mean():.2%}); no routing 0; by the chosen-on-all point "
        f"{false[cv.chosen].sum()} ({false[cv.chosen].mean():.2%})"
    )
    for pair in dict.fromkeys(pairs.tolist()):
        mask = pairs == pair
        print(f"  {pair:30} {false_oof[mask].sum():3}/{mask.sum()}")
    out["off_topic"] = {
        "questions": len(false_oof),
        "routed_out_of_fold": int(false_oof.sum()),
        "routed_by_chosen": int(false[cv.chosen].sum()),
        "max_false_routes": MAX_FALSE_ROUTES,
    }
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
