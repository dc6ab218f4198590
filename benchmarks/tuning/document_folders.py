"""The DEV folders' rankings at every document-view point, for ``beyond_cv.py``'s pooled choice.

    python benchmarks/tuning/document_folders.py --out document-folders.json.gz
    python benchmarks/tuning/beyond_cv.py --pools pools/ --with-folders document-folders.json.gz
    python benchmarks/tuning/document_folders.py --data benchmarks/data/unseen_folders --out U

``beyond_cv.py`` chooses the document view's settings (``document.*``) on pools of the
Wikipedia and beyond-Wikipedia DEV files. The DEV folders (``benchmarks/data/dev_folders``)
are ranked through a framework's README path, where a pool may be the expansion's and a
question that names a document is routed, so their rankings are made here, by the product's
own path, and read there. Per folder, through the LangChain README path
(``crossval.dev_folders.langchain_ingest``: the README's splitter, ``CageGraphTransformer``,
MiniLM, ``ScoredVectorStoreRetriever`` k=20), each question's pool in two settings, as
``beyond_pools.py`` names them: ``<folder>-open`` (the retriever's top 20) and
``<folder>-open-x`` (``CageExpansionRetriever``'s pool). Each pool is ranked by
``CageRerank(top_n=None)`` at every point of the document fields of
:data:`crossval.grids.DOCUMENT_GRID`, and by ``method="hybrid"``; each ranking is kept as
``pool_measures``' (R@3, R@5; no misinformation labels). A pool's ``id`` is
``"<folder>/<question id>"`` (folds by question).

The grid's gate fields act on pools without document structure only; each pool is also
ranked at the shipped point with every gate field at its other grid values, and the script
stops if a ranking moves (then the folders would need the gate's points too). Printed: per
setting, R@3 / R@5 of the retriever's order, hybrid and the shipped defaults. ``--data
benchmarks/data/unseen_folders`` ranks the folders nobody tuned on the same way: a check of a
choice, never part of it.
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
from crossval import grid_points
from crossval.dev_folders import (
    DATA,
    gold_ids,
    langchain_ingest,
    load_chunks,
    parsed_folder_specs,
    recall,
)
from crossval.grids import DOCUMENT_GRID, GATE_FIELDS, VIEW_GRID

from cage_core import CageConfig

K = 20


def shipped_index(points: list[dict[str, Any]]) -> int:
    """The index of the shipped :class:`~cage_core.config.DocumentConfig` among ``points``."""
    config = CageConfig().document
    return points.index({name: getattr(config, name) for name in VIEW_GRID})


def gate_variants(config: CageConfig) -> list[CageConfig]:
    """The shipped config with one gate field at each of its other grid values."""
    out = []
    for name, field in GATE_FIELDS.items():
        for value in DOCUMENT_GRID[name]:
            if getattr(config.gate, field) != value:
                out.append(config.replace(gate=config.gate.replace(**{field: value})))
    return out


def measures(ids: list, gold: list[str]) -> tuple[float, float]:
    """(R@3, R@5) of one ranking."""
    return recall(ids, gold, 3), recall(ids, gold, 5)


def folder_rows(spec_path: Path, points: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every question's two pools, ranked at every point (module docstring)."""
    from cage_langchain import CageExpansionRetriever, CageRerank, ScoredVectorStoreRetriever

    spec, chunks = load_chunks(spec_path)
    gold = gold_ids(spec, chunks)
    _, store, links = langchain_ingest(chunks)
    base = ScoredVectorStoreRetriever(vectorstore=store, k=K)
    expand = CageExpansionRetriever(base_retriever=base, vectorstore=store, link_index=links)
    config = CageConfig()
    rerankers = [
        CageRerank(top_n=None, config=config.replace(document=config.document.replace(**p)))
        for p in points
    ]
    shipped = shipped_index(points)
    gated = [CageRerank(top_n=None, config=c) for c in gate_variants(config)]
    hybrid = CageRerank(top_n=None, method="hybrid")
    rows = []
    for q in spec["questions"]:
        g = gold.get(q["id"]) or []
        if not g:
            continue
        for setting, retriever in (("open", base), ("open-x", expand)):
            pool = retriever.invoke(q["question"])
            orders = {
                name: [[d.id for d in r.compress_documents(pool, q["question"])] for r in group]
                for name, group in (("gated", gated), ("hybrid", [hybrid]), ("points", rerankers))
            }
            if any(order != orders["points"][shipped] for order in orders["gated"]):
                raise SystemExit(f"{spec_path.stem}/{q['id']}: a gate field moves the ranking")
            rows.append(
                {
                    "setting": f"{spec_path.stem}-{setting}",
                    "id": f"{spec_path.stem}/{q['id']}",
                    "type": q["type"],
                    "vanilla": measures([d.id for d in pool], g),
                    "hybrid": measures(orders["hybrid"][0], g),
                    "points": [measures(order, g) for order in orders["points"]],
                }
            )
    return rows


def report(rows: list[dict[str, Any]], points: list[dict[str, Any]]) -> None:
    """Per setting, the mean R@3 / R@5 of the retriever's order, hybrid and the defaults."""
    shipped = shipped_index(points)
    print("| setting | n | retriever R@3 / R@5 | hybrid | the defaults |")
    print("|---|---|---|---|---|")
    for setting in sorted({r["setting"] for r in rows}):
        part = [r for r in rows if r["setting"] == setting]
        cells = [
            np.mean(values, axis=0)
            for values in (
                [r["vanilla"] for r in part],
                [r["hybrid"] for r in part],
                [r["points"][shipped] for r in part],
            )
        ]
        print(
            f"| {setting} | {len(part)} | "
            + " | ".join(f"{a:.3f} / {b:.3f}" for a, b in cells)
            + " |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data",
        type=Path,
        default=DATA,
        help="the folder of folder specs (default: benchmarks/data/dev_folders; "
        "benchmarks/data/unseen_folders: a check, never for beyond_cv.py's choice)",
    )
    parser.add_argument("--folders", default="", help="comma-separated folder names (all)")
    parser.add_argument("--out", type=Path, required=True, help="gzipped JSON of the rankings")
    args = parser.parse_args()
    points = grid_points(VIEW_GRID)
    paths = parsed_folder_specs(parser, args.data, args.folders)
    rows: list[dict[str, Any]] = []
    for spec_path in paths:
        start = time.perf_counter()
        made = folder_rows(spec_path, points)
        rows += made
        print(
            f"{spec_path.stem}: {len(made)} pools ({time.perf_counter() - start:.0f}s)",
            file=sys.stderr,
            flush=True,
        )
    report(rows, points)
    with gzip.open(args.out, "wt", encoding="utf-8") as handle:
        json.dump({"points": points, "rows": rows}, handle)


if __name__ == "__main__":
    main()
