"""The DEV folders' rankings at every routing point, for ``routing_cv.py``'s pooled choice.

    python benchmarks/tuning/routing_folders.py --out routing-folders.npz
    python benchmarks/tuning/routing_cv.py --data ../shared/data --graph-store graphs.sqlite \\
        --with-folders routing-folders.npz

``routing_cv.py`` chooses routing's settings (``routing.*``) on the DEV files whose chunks
carry a ``doc_id`` (CUAD, DragonBall, SciFact chunks). The DEV folders
(``benchmarks/data/dev_folders``) route through a framework's README path, so their rankings
are made here, by the product's own path. Per folder, through the LangChain README path
(``crossval.dev_folders.langchain_ingest``, ``ScoredVectorStoreRetriever`` k=20), for each
point of ``routing_cv.py``'s grid (``off``, then every
:class:`~cage_core.expansion.routing.RoutingSettings` of :data:`crossval.grids.ROUTING_GRID`):
``CageExpansionRetriever(routing=point)``'s pool, ranked by ``CageRerank(top_n=None)`` and
``CageRerank(top_n=None, method="hybrid")``; R@3 / R@5 of each. A pool depends on the point
only through its route (the documents named, the shortened question, and ``chunks`` when
routed), so each question is ranked once per distinct route. A question id is
``"<folder>/<id>"`` (folds by question).

**Off-topic questions**: each folder is also asked its own off-topic questions and every
question of the other folders; none names a document of it, so every one routed is a false
route (only the route is computed). The file holds ``routing_cv.py --arrays``' arrays
(``scores [P, N, 2, 2]``, ``groups``, ``ids``, ``false_routes [P, M]``, ``false_route_ids``,
``points``) and ``routed [P, N]`` (each question routed at each point), ``false_route_pairs``,
which ``routing_cv.py --with-folders`` pools with its own.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: crossval
from crossval.choice import grid_points
from crossval.dev_folders import DATA, gold_ids, langchain_ingest, load_chunks, recall
from crossval.grids import ROUTING_GRID

from cage_core.expansion.routing import RoutingSettings

K = 20


def points() -> list[RoutingSettings | None]:
    """``off``, then the grid (``routing_cv.py``'s order)."""
    grid = [RoutingSettings(**p) for p in grid_points(ROUTING_GRID)]  # type: ignore[arg-type]
    return [None, *grid]


def folder_arrays(
    spec_path: Path, settings: list[RoutingSettings | None], asked: list[tuple[str, str]]
) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Question ids, ``[P, N, 2, 2]`` R@3 / R@5 (cage, hybrid) of the folder's questions with
    gold, ``[P, N]``: whether each point routes each of them, and ``[P, len(asked)]``: whether
    each point routes each of ``asked`` (off-topic)."""
    from cage_langchain import CageExpansionRetriever, CageRerank, ScoredVectorStoreRetriever

    spec, chunks = load_chunks(spec_path)
    gold = gold_ids(spec, chunks)
    _, store, links = langchain_ingest(chunks)
    base = ScoredVectorStoreRetriever(vectorstore=store, k=K)
    rerankers = (CageRerank(top_n=None), CageRerank(top_n=None, method="hybrid"))
    retrievers = [
        CageExpansionRetriever(
            base_retriever=base, vectorstore=store, link_index=links, routing=point
        )
        for point in settings
    ]
    questions = [q for q in spec["questions"] if gold.get(q["id"])]
    scores = np.zeros((len(settings), len(questions), 2, 2))
    routed = np.zeros((len(settings), len(questions)), dtype=bool)
    ranked: dict[tuple[Any, ...], np.ndarray] = {}
    for n, q in enumerate(questions):
        for p, (point, retriever) in enumerate(zip(settings, retrievers)):
            route = retriever.route(q["question"])
            key = (
                (route.doc_ids, route.question, point.chunks) if route and point is not None else ()
            )
            if key not in ranked:
                pool = retriever.invoke(q["question"])
                orders = [
                    [d.id for d in r.compress_documents(pool, q["question"])] for r in rerankers
                ]
                g = gold[q["id"]]
                ranked[key] = np.array([[recall(o, g, 3), recall(o, g, 5)] for o in orders])
            scores[p, n] = ranked[key]
            routed[p, n] = bool(key)
        ranked.clear()
    false_routes = np.array(
        [[bool(r.route(question)) for _, question in asked] for r in retrievers], dtype=bool
    ).reshape(len(settings), len(asked))
    ids = [f"{spec_path.stem}/{q['id']}" for q in questions]
    return ids, scores, routed, false_routes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folders", default="", help="comma-separated folder names (all)")
    parser.add_argument("--out", type=Path, required=True, help="the arrays (.npz)")
    args = parser.parse_args()
    wanted = {n for n in args.folders.split(",") if n}
    specs = [p for p in sorted(DATA.glob("*.json")) if not wanted or p.stem in wanted]
    spec_of = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in specs}
    settings = points()
    ids: list[str] = []
    groups: list[str] = []
    parts, routed_parts, false_parts, false_ids, false_pairs = [], [], [], [], []
    for spec_path in specs:
        start = time.perf_counter()
        name = spec_path.stem
        asked = [(f"{name}/{q['id']}", q["question"]) for q in spec_of[name]["off_topic"]]
        pairs = [f"{name} off-topic -> {name}"] * len(asked)
        for other, spec in spec_of.items():
            if other != name:
                mine = [(f"{other}/{q['id']}", q["question"]) for q in spec["questions"]]
                asked += mine
                pairs += [f"{other} -> {name}"] * len(mine)
        qids, scores, routed, false = folder_arrays(spec_path, settings, asked)
        ids += qids
        groups += [name] * len(qids)
        parts.append(scores)
        routed_parts.append(routed)
        false_parts.append(false)
        false_ids += [i for i, _ in asked]
        false_pairs += pairs
        print(
            f"{name}: {len(qids)} questions, {len(asked)} off-topic "
            f"({time.perf_counter() - start:.0f}s)",
            file=sys.stderr,
            flush=True,
        )
    np.savez_compressed(
        args.out,
        scores=np.concatenate(parts, axis=1),
        routed=np.concatenate(routed_parts, axis=1),
        groups=np.array(groups),
        ids=np.array(ids),
        false_routes=np.concatenate(false_parts, axis=1),
        false_route_ids=np.array(false_ids),
        false_route_pairs=np.array(false_pairs),
        points=np.array(["off", *(json.dumps(p) for p in grid_points(ROUTING_GRID))]),
    )


if __name__ == "__main__":
    main()
