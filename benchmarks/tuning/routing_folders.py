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
route (only the route is computed). The file is an arrays file of
:mod:`crossval.routing_arrays`, as ``routing_cv.py --arrays`` writes for the DEV files, and
``routing_cv.py --with-folders`` pools it with its own.
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
from crossval.dev_folders import (
    DATA,
    gold_ids,
    langchain_ingest,
    load_chunks,
    parsed_folder_specs,
    recall,
)
from crossval.routing_arrays import joined, route_cache, routing_points, write_arrays

from cage_core.expansion.routing import RoutingSettings
from cage_core.integrations.document_routing import route_for

K = 20


def folder_arrays(
    spec_path: Path,
    settings: list[RoutingSettings | None],
    asked: list[tuple[str, str, str]],
) -> dict[str, np.ndarray]:
    """The folder's arrays (:mod:`crossval.routing_arrays`) at each of ``settings``: its
    questions with gold, and ``asked``, its off-topic ones as ``(id, question, pair)``."""
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
    route_of = route_cache(lambda question, point: route_for(question, links, point))
    questions = [q for q in spec["questions"] if gold.get(q["id"])]
    scores = np.zeros((len(settings), len(questions), 2, 2))
    routed = np.zeros((len(settings), len(questions)), dtype=bool)
    for n, q in enumerate(questions):
        ranked: dict[tuple[Any, ...], np.ndarray] = {}  # by route: the pool depends on it alone
        for p, (point, retriever) in enumerate(zip(settings, retrievers)):
            route = route_of(q["question"], point)
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
    false_routes = np.array(
        [[bool(route_of(question, point)) for _, question, _ in asked] for point in settings],
        dtype=bool,
    ).reshape(len(settings), len(asked))
    return {
        "scores": scores,
        "routed": routed,
        "groups": np.array([spec_path.stem] * len(questions)),
        "ids": np.array([f"{spec_path.stem}/{q['id']}" for q in questions]),
        "false_routes": false_routes,
        "false_route_ids": np.array([i for i, _, _ in asked]),
        "false_route_pairs": np.array([pair for _, _, pair in asked]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folders", default="", help="comma-separated folder names (all)")
    parser.add_argument("--out", type=Path, required=True, help="the arrays (.npz)")
    args = parser.parse_args()
    paths = parsed_folder_specs(parser, DATA, args.folders)
    specs = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in paths}
    settings = routing_points()
    parts = []
    for path in paths:
        start = time.perf_counter()
        name = path.stem
        asked = [
            (f"{name}/{q['id']}", q["question"], f"{name} off-topic -> {name}")
            for q in specs[name]["off_topic"]
        ] + [
            (f"{other}/{q['id']}", q["question"], f"{other} -> {name}")
            for other, theirs in specs.items()
            if other != name
            for q in theirs["questions"]
        ]
        parts.append(folder_arrays(path, settings, asked))
        print(
            f"{name}: {len(parts[-1]['ids'])} questions, {len(asked)} off-topic "
            f"({time.perf_counter() - start:.0f}s)",
            file=sys.stderr,
            flush=True,
        )
    write_arrays(args.out, joined(parts))


if __name__ == "__main__":
    main()
