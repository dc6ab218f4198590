"""How the document view's settings were chosen: a grid, 5-fold cross-validation over ALL DEV files.

    python benchmarks/tuning/beyond_pools.py --data ../shared/data --graph-store graphs.sqlite \\
        --out pools/
    PYTHONPATH=<checkout before> python benchmarks/tuning/beyond_cv.py before --pools pools/ \\
        --before before.json
    python benchmarks/tuning/document_folders.py --out document-folders.json.gz
    python benchmarks/tuning/beyond_cv.py --pools pools/ [--before before.json] \\
        [--with-folders document-folders.json.gz]

The pools are every DEV file in every setting ``beyond_pools.py`` builds (Wikipedia closed and
open untitled with expansion, RAMDocs closed and open, DragonBall and SciFact abstracts and
chunks, open, with and without expansion) and, with ``--with-folders``, the seven DEV folders'
pools through the LangChain README path, with and without expansion (``<folder>-open``,
``<folder>-open-x``: ranked at every point by ``document_folders.py``, through
``CageRerank``, routing included). Every question goes to one of 5 folds by a hash of
its id (``crossval.fold_of``), the same fold in every setting it appears in — never by
dataset. For each fold, the grid point of :class:`~cage_core.ranking.document_links.DocumentConfig`
with the best mean over the (file, setting) groups (14; 28 with the folders) of ``R@3 + R@5``
on the other four folds ranks the held-out fold (ties: the first in grid order); a point is
allowed only when RAMDocs' misinformation in the top 5 (closed and open) is no higher than the
shipped default's. The sentence-titles gate (``GateConfig.sentence_titles``) is not chosen: it is on
in every point, being the issue's rule that a pool whose link evidence is weak keeps its
relevance order (titles that are sentences are no confident subjects, so such a pool's links
are shared entities alone); with it in the grid, four folds of five chose it on and the fifth
(fold 4) off, which cost SciFact abstracts with ``--expand`` .015 of the set's R@3 out of fold.
The subject-share gate (``GateConfig.min_subject_share``) is chosen with the view's settings;
it acts only on untitled pools without document structure. The unnamed-subjects rule
(``GateConfig.unnamed_subjects``: an untitled pool fewer than half of whose subjects are
names keeps its relevance order) is on in every point, the untitled twin of the
sentence-titles rule; ``stripped`` shows the chunk pools without it.
The printed tables are those out-of-fold rankings per file and setting and per
question type, beside vanilla (cosine order), hybrid (the relevance order), ``cage`` at the
shipped defaults and ``cage`` before this change (``--before``: the per-pool figures
``beyond_cv.py before`` printed with the old code importable, e.g.
``PYTHONPATH=<old checkout>``), then each out-of-fold difference from
hybrid with its paired bootstrap interval (``crossval.paired_interval``), and last the DragonBall
and SciFact chunk pools with their document ids dropped (not in the objective). The shipped defaults
are the allowed point chosen on all folds together.

Every ranking is :func:`cage_core.methods.cage.score_pool`'s, the product's own code path.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import itertools
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: crossval
from crossval import (
    RESAMPLES,
    cross_validate,
    fold_array,
    grid_points,
    group_objective,
    paired_interval,
)
from crossval.grids import DOCUMENT_GRID, GATE_FIELDS, VIEW_GRID
from crossval.measures import pool_measures, print_table
from crossval.orders import cage_order, has_documents, hybrid_order
from crossval.pool_files import pool_paths, read_pools

from cage_core import CageConfig
from cage_core.methods.cage import score_pool
from cage_core.ranking.pool_bm25 import pool_bm25
from cage_core.scoring import ranking, standardize


def pool_relevance(pool: dict[str, Any], config: CageConfig) -> tuple[np.ndarray, np.ndarray]:
    """``(z(sim), z(bm25))`` of a pool the document view ranks (its relevance is
    ``z(sim) + document.lexical_weight · z(bm25)``, BM25 over the texts that inherit their
    document's subject), checked against :func:`~cage_core.methods.cage.score_pool`: the
    grid re-runs the view alone."""
    from cage_core.ranking.document_links import (  # not in the code before (``before``)
        document_names,
        document_view,
        subject_texts,
    )

    scores = score_pool(pool["query"], pool["passages"], pool["sims"], pool["graphs"], config)
    zs = standardize(pool["sims"])
    texts = subject_texts(pool["passages"], document_names(pool["passages"], pool["graphs"]))
    zb = standardize(pool_bm25(pool["query"], texts))
    r = zs + config.document.lexical_weight * zb
    again = document_view(pool["query"], pool["passages"], pool["graphs"], r, config.document)
    assert np.array_equal(again.fused, scores.fused), "the view must be score_pool's ranking"
    return zs, zb


def view_measures(pool: dict[str, Any], relevance: np.ndarray, variant: Any) -> tuple:
    """:func:`crossval.measures.pool_measures` of the document view alone under ``variant``
    (a ``DocumentConfig``) over ``relevance``."""
    from cage_core.ranking.document_links import document_view  # not in the code ``before``

    view = document_view(pool["query"], pool["passages"], pool["graphs"], relevance, variant)
    return pool_measures(ranking(view.fused), pool)


def before(pools: list[dict[str, Any]], out: Path) -> None:
    """Per pool (setting, id) the default's figures under the importable cage_core."""
    config = CageConfig()
    rows = {f"{p['setting']}|{p['id']}": pool_measures(cage_order(p, config), p) for p in pools}
    out.write_text(json.dumps(rows))
    print(f"wrote {len(rows)} pools to {out}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", nargs="?", default="cv", choices=("cv", "before"))
    parser.add_argument("--pools", type=Path, required=True, help="beyond_pools.py's --out folder")
    parser.add_argument("--before", type=Path, default=None)
    parser.add_argument(
        "--with-folders", type=Path, default=None, help="document_folders.py's --out file"
    )
    args = parser.parse_args()
    pools = read_pools(pool_paths(args.pools))
    if args.command == "before":
        before(pools, args.before or Path("before.json"))
        return
    config = CageConfig()
    points = grid_points(DOCUMENT_GRID)
    groups = np.array([p["setting"] for p in pools])
    folds = fold_array(p["id"] for p in pools)
    documented = np.array([has_documents(p) for p in pools])
    print(f"{len(pools)} pools, {int(documented.sum())} with document structure", file=sys.stderr)
    untitled = ~documented  # the pools the gate may act on (titled and untitled)
    fixed = np.array([pool_measures(cage_order(p, config), p) for p in pools])  # the defaults
    by_gate: dict[tuple, np.ndarray] = {}
    for values in itertools.product(*(DOCUMENT_GRID[g] for g in GATE_FIELDS)):
        gate = config.gate.replace(**dict(zip(GATE_FIELDS.values(), values)))
        if gate == config.gate:
            by_gate[values] = fixed[untitled]
        else:
            gated = config.replace(gate=gate)
            part = [p for p, u in zip(pools, untitled) if u]
            by_gate[values] = np.array([pool_measures(cage_order(p, gated), p) for p in part])
    scores = np.repeat(fixed[None], len(points), axis=0)
    relevance = {int(i): pool_relevance(pools[i], config) for i in np.flatnonzero(documented)}
    views: dict[tuple, np.ndarray] = {}
    for n, point in enumerate(points):
        if untitled.any():  # the gate acts on pools without documents
            scores[n, untitled] = by_gate[tuple(point[g] for g in GATE_FIELDS)]
        doc_point = tuple((k, v) for k, v in point.items() if k not in GATE_FIELDS)
        if doc_point not in views:
            variant = config.document.replace(**dict(doc_point))
            w = variant.lexical_weight
            views[doc_point] = np.array(
                [view_measures(pools[i], zs + w * zb, variant) for i, (zs, zb) in relevance.items()]
            )
        if relevance:
            scores[n, list(relevance)] = views[doc_point]
    folders = None if args.with_folders is None else read_folders(args.with_folders, points)
    if folders is not None:
        groups = np.concatenate([groups, folders["groups"]])
        folds = np.concatenate([folds, fold_array(folders["ids"])])
        documented = np.concatenate([documented, np.ones(len(folders["ids"]), dtype=bool)])
        fixed = np.concatenate([fixed, folders["fixed"]])
        scores = np.concatenate([scores, folders["scores"]], axis=1)
    settings = sorted(set(groups))
    ramdocs = [g for g in settings if g.startswith("ramdocs")]
    floor = [np.nanmean(fixed[groups == g, 2]) for g in ramdocs]
    allowed = np.array(
        [
            all(np.nanmean(scores[n, groups == g, 2]) <= f + 1e-9 for g, f in zip(ramdocs, floor))
            for n in range(len(points))
        ]
    )

    cv = cross_validate(scores, folds, group_objective(scores, groups, settings, allowed))
    for k, best in enumerate(cv.fold_choices):
        print(f"fold {k}: {points[best]}")
    out_of_fold, chosen = cv.out_of_fold, cv.chosen
    print(
        f"all folds: {points[chosen]} ({int(allowed.sum())} of {len(points)} points keep RAMDocs)\n"
    )
    rows = {
        "vanilla": np.array([pool_measures(ranking(p["sims"]), p) for p in pools]),
        "hybrid": np.array([pool_measures(hybrid_order(p, config), p) for p in pools]),
    }
    unmeasured = [] if folders is None else [(np.nan,) * 3] * len(folders["ids"])
    if folders is not None:
        for name in rows:
            rows[name] = np.concatenate([rows[name], folders[name]])
    lex = points[chosen]["lexical_weight"]  # the relevance change alone, for comparison
    rows[f"view's relevance (w_lex {lex}) where documented"] = np.array(
        [
            pool_measures(
                ranking(relevance[i][0] + lex * relevance[i][1])
                if i in relevance
                else hybrid_order(p, config),
                p,
            )
            for i, p in enumerate(pools)
        ]
        + unmeasured
    )
    if args.before is not None:
        old = json.loads(args.before.read_text())
        rows["cage before"] = np.array(
            [old[f"{p['setting']}|{p['id']}"] for p in pools] + unmeasured
        )
    rows["cage, the defaults"] = fixed
    rows["cage, out of fold"] = out_of_fold
    rows["cage, all-fold choice"] = scores[chosen]
    print_table(rows, groups)
    for g in ramdocs:
        mask = groups == g
        print(
            f"{g} misinfo@5: "
            + ", ".join(f"{r} {np.nanmean(v[mask, 2]):.3f}" for r, v in rows.items())
        )
    print("\nBy question type (documented settings):\n")
    print("| setting | type | n | " + " | ".join(f"{r} R@3 / R@5" for r in rows) + " |")
    print("|---|---|---|" + "---|" * len(rows))
    types = np.array(
        [str(p["type"]) for p in pools] + ([] if folders is None else folders["types"])
    )
    for g in settings:
        if not documented[groups == g].any():
            continue
        for t in sorted(set(types[groups == g])):
            mask = (groups == g) & (types == t)
            cells = [f"{v[mask, 0].mean():.3f} / {v[mask, 1].mean():.3f}" for v in rows.values()]
            print(f"| {g} | {t} | {int(mask.sum())} | " + " | ".join(cells) + " |")
    print(
        "\nOut of fold minus hybrid, per question, with its 95% paired bootstrap interval"
        f" ({RESAMPLES:,} resamples of the questions, seed 0), where documented:\n"
    )
    print("| setting | n | R@3 | R@5 | questions up / down on R@3 |")
    print("|---|---|---|---|---|")
    for g in settings:
        mask = groups == g
        if documented[mask].any():
            diff = out_of_fold[mask, :2] - rows["hybrid"][mask, :2]
            (lo3, lo5), (hi3, hi5) = paired_interval(diff)
            print(
                f"| {g} | {int(mask.sum())} | {diff[:, 0].mean():+.3f} [{lo3:+.3f}, {hi3:+.3f}]"
                f" | {diff[:, 1].mean():+.3f} [{lo5:+.3f}, {hi5:+.3f}]"
                f" | {int((diff[:, 0] > 0).sum())} / {int((diff[:, 0] < 0).sum())} |"
            )
    stripped(pools, config, points[chosen])


def read_folders(path: Path, points: list[dict[str, Any]]) -> dict[str, Any]:
    """The DEV folders' rankings (``document_folders.py``) as rows of this script's arrays:
    ``scores[n]`` is each folder pool's (R@3, R@5, NaN) at the document fields of
    ``points[n]`` (the gate fields do not act on them: ``document_folders.py`` checks),
    ``fixed`` at the shipped point, ``vanilla`` and ``hybrid`` the retriever's and the relevance
    order, ``groups`` the settings (``<folder>-open``, ``<folder>-open-x``)."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        made = json.load(handle)
    index = {tuple(sorted(p.items())): n for n, p in enumerate(made["points"])}

    def doc_index(point: dict[str, Any]) -> int:
        return index[tuple(sorted((k, v) for k, v in point.items() if k in VIEW_GRID))]

    def with_nan(pairs: list) -> np.ndarray:
        return np.array([(*pair, np.nan) for pair in pairs], dtype=float)

    rows = made["rows"]
    by_point = np.array([with_nan(r["points"]) for r in rows]).transpose(1, 0, 2)
    shipped = doc_index(dataclasses.asdict(CageConfig().document))
    return {
        "groups": np.array([r["setting"] for r in rows]),
        "ids": [r["id"] for r in rows],
        "types": [str(r["type"]) for r in rows],
        "scores": by_point[[doc_index(p) for p in points]],
        "fixed": by_point[shipped],
        "vanilla": with_nan([r["vanilla"] for r in rows]),
        "hybrid": with_nan([r["hybrid"] for r in rows]),
    }


def stripped(pools: list[dict[str, Any]], config: CageConfig, point: dict[str, Any]) -> None:
    """The check of the gates where a user keeps no document ids: the DragonBall and SciFact
    chunk pools with ``doc_id`` dropped (not in the objective), ranked by hybrid, by the
    defaults, by the defaults with the subject-share gate at the all-fold choice (``point``)
    and off, without the unnamed-subjects rule, and with the untitled gate on as well."""
    chunks = [
        dict(
            p, passages=[dataclasses.replace(q, doc_id=None, position=None) for q in p["passages"]]
        )
        for p in pools
        if p["setting"].startswith(("scifact_chunks", "dragonball"))
    ]
    if not chunks:
        return
    chosen = config.gate.replace(min_subject_share=point["subject_share"])
    print(
        "\nDragonBall and SciFact chunk pools without doc_id (a user who keeps no document ids):\n"
    )
    variants = {
        "hybrid": None,
        "cage (the defaults)": config,
        f"cage, subject-share gate {point['subject_share']} (all-fold choice)": config.replace(
            gate=chosen
        ),
        "cage, subject-share gate off": config.replace(
            gate=config.gate.replace(min_subject_share=0.0)
        ),
        "cage, unnamed-subjects rule off": config.replace(
            gate=chosen.replace(unnamed_subjects=False)
        ),
        "cage, all-fold choice and the untitled gate on": config.replace(
            gate=chosen.replace(untitled=True)
        ),
    }
    settings = sorted({p["setting"] for p in chunks})
    print("| ranking | " + " | ".join(f"{s} R@3 / R@5" for s in settings) + " |")
    print("|---|" + "---|" * len(settings))
    for label, variant in variants.items():
        cells = []
        for setting in settings:
            part = [p for p in chunks if p["setting"] == setting]
            v = np.array(
                [
                    pool_measures(
                        hybrid_order(p, config) if variant is None else cage_order(p, variant), p
                    )
                    for p in part
                ]
            )
            cells.append(f"{v[:, 0].mean():.3f} / {v[:, 1].mean():.3f}")
        print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
