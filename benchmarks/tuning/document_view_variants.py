"""The document view beside the variants tried for DragonBall ``--expand``, each cross-validated.

    python benchmarks/tuning/beyond_pools.py --data ../shared/data --graph-store graphs.sqlite \\
        --out pools/
    python benchmarks/tuning/document_view_variants.py --pools pools/ [--tried] [--only NAME,NAME]

Only the pools with document structure (DragonBall and SciFact chunks, with and without
expansion: 503 of the 2,854 DEV pools) are ranked by the document view, and the objective of
``beyond_cv.py`` (the mean over all 14 (file, setting) groups of R@3 + R@5) is a sum over
groups, so the view's settings it chooses are the ones chosen on these four groups alone: this
script runs that same 5-fold choice (folds by question id, ``crossval.fold_of``; ties: the
first grid point) for each variant over the view's grid (``document_weight``,
``adjacent_weight``, ``anchors``, ``lexical_weight``: 192 points) and prints the out-of-fold
and all-fold figures beside hybrid. The variants (none of them is in the product):

* ``shipped``: :func:`cage_core.ranking.document_links.document_view` as it is, over
  :func:`~cage_core.ranking.document_links.document_relevance` (BM25 over each untitled chunk
  with its document's subject prepended: the subject is inherited for the lexical term too),
  ``f = r + max(w_d·N, w_a·A)``: a chunk's document counts once, by its stronger link;
* ``subject on every chunk``: the shipped view over BM25 texts where every untitled chunk
  inherits its document's subject, also a chunk that names it already (cage-rag before the
  name was inherited once);
* ``sum``: the same with ``f = r + w_d·N + w_a·A`` (cage-rag before the max);
* ``plain bm25, sum``: the sum over BM25 of the chunks alone (the first round of issue 26);
* ``contextual cosine``: the shipped view over the cosine of the query with
  ``"<subject>. <chunk>"`` embedded by all-MiniLM-L6-v2 instead of the chunk alone (the
  reranker would embed each chunk once more per subject).

With ``--tried``, also the variants tried after the max was shipped (about 27 more minutes),
each with one more grid dimension ``extra`` or a wider grid:

* ``siblings``: ``f = r + max(w_d·N, w_a·A, extra·S)``, ``S_i = 1`` when chunk i shares a
  document with a lead or anchor (``extra`` 0, 0.5, 1);
* ``bigrams``: the view's relevance plus ``extra · z(bm25 of the query's word pairs)`` over the
  same texts (``extra`` 0, 0.5, 1);
* ``wide grid``: the shipped view over a grid widened where the choice sat at its edge
  (``adjacent_weight`` up to 2.5, ``anchors`` up to 4: 480 points);
* ``lead bonus``: the shipped ``f`` plus ``extra`` for each lead (the best chunk of each
  document the query names), so that every named document places its best chunk
  (``extra`` 0, 0.5, 1, 2); ``lead bonus (2+ named)``: the same only where the query names two
  or more documents (a comparison of two companies);
* ``names stripped``: the shipped view with the BM25 query stripped of the names of the
  documents it names (``N`` counts them already, and a longer name would weigh more).
* ``neighbour relevance``: the shipped ``f`` plus ``extra · max(0, max_j r_j)`` over the
  chunks j adjacent to chunk i (evidence runs on past a boundary, so a chunk next to a
  relevant one gains with it; ``extra`` 0, 0.1, 0.2, 0.3);
* ``date phrases``: the shipped ``f`` plus ``extra`` for a chunk that holds a month-and-year
  the query names ("in June 2021": a date names one event of a report; ``extra`` 0, 0.5, 1,
  2);
* ``within-document lexical``: within each document the query names, BM25 weighs
  ``extra · w_lex`` around the document's mean instead of ``w_lex`` (the name that picks the
  document is in every chunk of it; ``extra`` 0.5, 0.75, 1).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: crossval
from crossval import cross_validate, fold_array, grid_points, group_objective
from crossval.grids import VIEW_GRID
from crossval.measures import pool_measures, print_table
from crossval.orders import has_documents, hybrid_order
from crossval.pool_files import pool_paths, read_pools

from cage_core import CageConfig
from cage_core.config import DocumentConfig
from cage_core.names.forms import normal_name, normal_text
from cage_core.ranking.document_links import (
    DocumentView,
    document_matrix,
    document_names,
    document_view,
    subject_texts,
)
from cage_core.ranking.pool_bm25 import pool_bm25, tokens
from cage_core.scoring import ranking, standardize

GRID = VIEW_GRID
"""The view's part of ``beyond_cv.py``'s grid (the gates act on the other pools only)."""
WIDE_GRID = {**GRID, "adjacent_weight": (0.0, 0.5, 1.0, 1.5, 2.0, 2.5), "anchors": (0, 1, 2, 3, 4)}
EXTRA = {**GRID, "extra": (0.0, 0.5, 1.0)}
LEAD_GRID = {**GRID, "extra": (0.0, 0.5, 1.0, 2.0)}
Ranker = Callable[[int, dict, np.ndarray, np.ndarray, DocumentConfig, float], np.ndarray]
"""``(pool index, pool, z(sim), z(bm25), view settings, extra) → f``."""


def pool_subject_texts(pool: dict) -> list[str]:
    """The pool's texts that inherit their document's subject (the shipped view's BM25 texts)."""
    return subject_texts(pool["passages"], document_names(pool["passages"], pool["graphs"]))


def every_chunk_texts(pool: dict) -> list[str]:
    """The BM25 texts where every untitled chunk of a document with a subject inherits it."""
    names_of = document_names(pool["passages"], pool["graphs"])
    out = []
    for p in pool["passages"]:
        names = names_of.get(p.doc_id, ()) if p.doc_id is not None else ()
        out.append(f"{names[0]}. {p.content}" if names and not p.title.strip() else p.content)
    return out


def shipped(
    i: int, pool: dict, zs: np.ndarray, zb: np.ndarray, config: DocumentConfig, extra: float
) -> np.ndarray:
    view = document_view(
        pool["query"], pool["passages"], pool["graphs"], zs + config.lexical_weight * zb, config
    )
    assert view is not None  # every pool here has document structure
    return view.fused


def _terms(
    pool: dict, zs: np.ndarray, zb: np.ndarray, config: DocumentConfig
) -> tuple[DocumentView, np.ndarray, np.ndarray]:
    """The view, and which chunks are adjacent to / share a document with a lead or anchor."""
    view = document_view(
        pool["query"], pool["passages"], pool["graphs"], zs + config.lexical_weight * zb, config
    )
    assert view is not None  # every pool here has document structure
    matrix = document_matrix(pool["passages"])
    order = [int(i) for i in ranking(view.relevance)]
    anchors = list(dict.fromkeys(list(view.leads) + order[: config.anchors]))
    if not anchors:
        none = np.zeros(len(zs), dtype=bool)
        return view, none, none
    near = matrix[:, anchors]
    return view, np.asarray((near == 1.0).any(axis=1)), np.asarray((near > 0).any(axis=1))


def summed(
    i: int, pool: dict, zs: np.ndarray, zb: np.ndarray, config: DocumentConfig, extra: float
) -> np.ndarray:
    view, adjacent, _ = _terms(pool, zs, zb, config)
    return view.relevance + config.adjacent_weight * adjacent


def with_siblings(
    i: int, pool: dict, zs: np.ndarray, zb: np.ndarray, config: DocumentConfig, extra: float
) -> np.ndarray:
    view, adjacent, same = _terms(pool, zs, zb, config)
    r = zs + config.lexical_weight * zb
    return r + np.maximum.reduce(
        [config.document_weight * view.named, config.adjacent_weight * adjacent, extra * same]
    )


def bigram_texts(text: str) -> str:
    """``text``'s BM25 tokens as word pairs (``"net_profit"``), one token each for ``pool_bm25``."""
    words = tokens(text)
    return " ".join(f"{a}_{b}" for a, b in zip(words, words[1:]))


def with_lead_bonus(multi_only: bool) -> Ranker:
    """The shipped ``f`` plus ``extra`` for each lead (with ``multi_only``: only where the
    query names two or more documents)."""

    def rank(
        i: int, pool: dict, zs: np.ndarray, zb: np.ndarray, config: DocumentConfig, extra: float
    ) -> np.ndarray:
        view, _, _ = _terms(pool, zs, zb, config)
        fused = view.fused.copy()
        if view.leads and (len(view.leads) >= 2 or not multi_only):
            fused[list(view.leads)] += extra
        return fused

    return rank


NEIGHBOUR_GRID = {**GRID, "extra": (0.0, 0.1, 0.2, 0.3)}
WITHIN_GRID = {**GRID, "extra": (0.5, 0.75, 1.0)}
MONTH_YEAR = re.compile(
    r"\b(?:January|February|March|April|May|June|July|August|September|October|November"
    r"|December)\s+(?:\d{1,2},?\s+)?\d{4}\b"
)


def with_neighbours(
    i: int, pool: dict, zs: np.ndarray, zb: np.ndarray, config: DocumentConfig, extra: float
) -> np.ndarray:
    r = zs + config.lexical_weight * zb
    adjacent = document_matrix(pool["passages"]) == 1.0
    best = np.where(adjacent, r[None, :], -np.inf).max(axis=1, initial=-np.inf)
    return shipped(i, pool, zs, zb, config, 0.0) + extra * np.maximum(best, 0.0)


def with_dates(
    i: int, pool: dict, zs: np.ndarray, zb: np.ndarray, config: DocumentConfig, extra: float
) -> np.ndarray:
    dates = {d.lower() for d in MONTH_YEAR.findall(pool["query"])}
    held = np.array([any(d in p.content.lower() for d in dates) for p in pool["passages"]])
    return shipped(i, pool, zs, zb, config, 0.0) + extra * held


def within_document(
    i: int, pool: dict, zs: np.ndarray, zb: np.ndarray, config: DocumentConfig, extra: float
) -> np.ndarray:
    view = document_view(
        pool["query"], pool["passages"], pool["graphs"], zs + config.lexical_weight * zb, config
    )
    assert view is not None  # every pool here has document structure
    docs = [p.doc_id for p in pool["passages"]]
    mean = np.array([zb[[j for j, e in enumerate(docs) if e == d]].mean() for d in docs])
    shrink = (1.0 - extra) * config.lexical_weight * (zb - mean) * view.named
    again = document_view(
        pool["query"],
        pool["passages"],
        pool["graphs"],
        zs + config.lexical_weight * zb - shrink,
        config,
    )
    assert again is not None
    return again.fused


def names_stripped_query(pool: dict) -> str:
    """The query's link-name words without the names of the documents it names."""
    words = f" {normal_text(pool['query'])} "
    for names in document_names(pool["passages"], pool["graphs"]).values():
        forms = [form for form in map(normal_name, names) if form]
        if any(f" {form} " in words for form in forms):
            for form in forms:
                words = words.replace(f" {form} ", " ")
    return words.strip()


def contextual_cosines(pools: list[dict], groups: np.ndarray) -> list[np.ndarray]:
    """Per pool, z of the cosine of the query with each BM25 text of the shipped view
    (``"<subject>. <chunk>"`` where the chunk inherits its subject) embedded by MiniLM; prints
    how many chunks per pool inherit a subject (the ones the reranker would embed again)."""
    from cage_core.models import default_embedder

    embed = default_embedder()
    contextual = []
    inheriting = []
    for p in pools:
        texts = pool_subject_texts(p)
        inheriting.append(sum(t != q.content for t, q in zip(texts, p["passages"])))
        vectors = np.asarray(embed([p["query"], *texts]), dtype=np.float64)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        contextual.append(standardize(vectors[1:] @ vectors[0]))
    for g in sorted(set(groups)):
        n = np.array([c for c, pg in zip(inheriting, groups) if pg == g])
        print(
            f"{g}: chunks that inherit a subject per pool (the contextual cosine embeds them"
            f" again): mean {n.mean():.2f}, 95th percentile {np.percentile(n, 95):.0f}",
            file=sys.stderr,
        )
    return contextual


def grid_measures(
    rank: Ranker,
    points: list[dict],
    pools: list[dict],
    sims: list[np.ndarray],
    lexical: list[np.ndarray],
    base: CageConfig,
) -> np.ndarray:
    """``[points, pools, 3]``: the measures of ``rank`` at every grid point (the view's
    settings, and ``extra`` where the grid has it) on every pool."""
    out = []
    for point in points:
        view = base.document.replace(**{k: v for k, v in point.items() if k != "extra"})
        extra = point.get("extra", 0.0)
        out.append(
            [
                pool_measures(ranking(rank(i, p, zs, zb, view, extra)), p)
                for i, (p, zs, zb) in enumerate(zip(pools, sims, lexical))
            ]
        )
    return np.array(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pools", type=Path, required=True, help="beyond_pools.py's --out folder")
    parser.add_argument("--tried", action="store_true", help="also the variants tried later")
    parser.add_argument("--only", default="", help="only these variants (comma-separated names)")
    args = parser.parse_args()
    pools = [p for p in read_pools(pool_paths(args.pools)) if has_documents(p)]
    base = CageConfig()
    groups = np.array([p["setting"] for p in pools])
    folds = fold_array(p["id"] for p in pools)
    plain = [standardize(pool_bm25(p["query"], [q.content for q in p["passages"]])) for p in pools]
    inherited = [standardize(pool_bm25(p["query"], pool_subject_texts(p))) for p in pools]
    every = [standardize(pool_bm25(p["query"], every_chunk_texts(p))) for p in pools]
    cosine = [standardize(np.asarray(p["sims"], dtype=np.float64)) for p in pools]
    wanted = set(args.only.split(",")) if args.only else None
    contextual = (
        contextual_cosines(pools, groups) if not wanted or "contextual cosine" in wanted else []
    )
    variants: dict[str, tuple[Ranker, list, list, dict]] = {
        "shipped": (shipped, cosine, inherited, GRID),
        "subject on every chunk": (shipped, cosine, every, GRID),
        "sum": (summed, cosine, every, GRID),
        "plain bm25, sum": (summed, cosine, plain, GRID),
        "contextual cosine": (shipped, contextual, inherited, GRID),
    }
    if args.tried or wanted:
        bigrams = [
            standardize(
                pool_bm25(
                    bigram_texts(p["query"]), [bigram_texts(t) for t in pool_subject_texts(p)]
                )
            )
            for p in pools
        ]

        def with_bigrams(
            i: int, pool: dict, zs: np.ndarray, zb: np.ndarray, config: DocumentConfig, extra: float
        ) -> np.ndarray:
            return shipped(i, pool, zs + extra * bigrams[i], zb, config, 0.0)

        variants["siblings"] = (with_siblings, cosine, inherited, EXTRA)
        variants["bigrams"] = (with_bigrams, cosine, inherited, EXTRA)
        variants["wide grid"] = (shipped, cosine, inherited, WIDE_GRID)
        variants["lead bonus"] = (with_lead_bonus(False), cosine, inherited, LEAD_GRID)
        variants["lead bonus (2+ named)"] = (with_lead_bonus(True), cosine, inherited, LEAD_GRID)
        stripped = [
            standardize(pool_bm25(names_stripped_query(p), pool_subject_texts(p))) for p in pools
        ]
        variants["names stripped"] = (shipped, cosine, stripped, GRID)
        variants["neighbour relevance"] = (with_neighbours, cosine, inherited, NEIGHBOUR_GRID)
        variants["date phrases"] = (with_dates, cosine, inherited, LEAD_GRID)
        variants["within-document lexical"] = (within_document, cosine, inherited, WITHIN_GRID)
    if wanted:
        unknown = wanted - set(variants)
        if unknown:
            parser.error(f"no variant {sorted(unknown)}; there are {sorted(variants)}")
        variants = {name: v for name, v in variants.items() if name in wanted}
    settings = sorted(set(groups))
    hybrid = np.array([pool_measures(hybrid_order(p, base), p) for p in pools])
    rows = {"hybrid": hybrid}
    for name, (rank, sims, lexical, grid) in variants.items():
        points = grid_points(grid)
        scores = grid_measures(rank, points, pools, sims, lexical, base)

        cv = cross_validate(scores, folds, group_objective(scores, groups, settings))
        for k, best in enumerate(cv.fold_choices):
            print(f"{name}: fold {k} chose {points[best]}", file=sys.stderr)
        print(f"{name}: all folds chose {points[cv.chosen]}", file=sys.stderr)
        rows[f"{name}, out of fold"] = cv.out_of_fold
        rows[f"{name}, all folds"] = scores[cv.chosen]
    print_table(rows, groups)
    means = [
        np.mean([v[groups == g, :2].sum(axis=1).mean() for g in settings]) for v in rows.values()
    ]
    print("| objective (mean R@3 + R@5) | | " + " | ".join(f"{m:.4f}" for m in means) + " |")


if __name__ == "__main__":
    main()
