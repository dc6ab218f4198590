"""The document view beside the variants tried for DragonBall ``--expand``, each cross-validated.

    python benchmarks/beyond_pools.py --data ../shared/data --graph-store graphs.sqlite --out pools/
    python benchmarks/document_view_variants.py --pools pools/

Only the pools with document structure (DragonBall and SciFact chunks, with and without
expansion: 503 of the 2,854 DEV pools) are ranked by the document view, and the objective of
``beyond_cv.py`` (the mean over all 14 (file, setting) groups of R@3 + R@5) is a sum over
groups, so the view's settings it chooses are the ones chosen on these four groups alone: this
script runs that same 5-fold choice (folds by question id, ``chain_cv.fold_of``; ties: the
first grid point) for each variant over the view's grid (``document_weight``,
``adjacent_weight``, ``anchors``, ``lexical_weight``: 192 points) and prints the out-of-fold
and all-fold figures beside hybrid. The variants (none of them is in the product):

* ``shipped``: :func:`cage_core.ranking.document_links.document_view` as it is, over
  :func:`~cage_core.ranking.document_links.document_relevance` (BM25 over each untitled chunk
  with its document's subject prepended: the subject is inherited for the lexical term too),
  ``f = r + max(w_d·N, w_a·A)``: a chunk's document counts once, by its stronger link;
* ``sum``: the same with ``f = r + w_d·N + w_a·A`` (cage-rag before the max);
* ``plain bm25, sum``: the sum over BM25 of the chunks alone (the first round of issue 26);
* ``contextual cosine``: the shipped view over the cosine of the query with
  ``"<subject>. <chunk>"`` embedded by all-MiniLM-L6-v2 instead of the chunk alone (the
  reranker would embed each chunk once more per subject).
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from beyond_cv import GATE_FIELDS, has_documents, hybrid_order, load, measures, print_table
from beyond_cv import GRID as CV_GRID
from chain_cv import FOLDS, fold_of

from cage_core import CageConfig
from cage_core.config import DocumentConfig
from cage_core.ranking.document_links import (
    document_matrix,
    document_names,
    document_view,
    subject_texts,
)
from cage_core.ranking.fusion import standardize
from cage_core.ranking.pool_bm25 import pool_bm25
from cage_core.scoring import ranking

GRID = {k: v for k, v in CV_GRID.items() if k not in GATE_FIELDS}
"""The view's part of ``beyond_cv.py``'s grid (the gates act on the other pools only)."""
Ranker = Callable[[dict, np.ndarray, np.ndarray, DocumentConfig], np.ndarray]


def pool_subject_texts(pool: dict) -> list[str]:
    """The pool's texts that inherit their document's subject (the shipped view's BM25 texts)."""
    return subject_texts(pool["passages"], document_names(pool["passages"], pool["graphs"]))


def shipped(pool: dict, zs: np.ndarray, zb: np.ndarray, config: DocumentConfig) -> np.ndarray:
    r = zs + config.lexical_weight * zb
    return document_view(pool["query"], pool["passages"], pool["graphs"], r, config).fused


def summed(pool: dict, zs: np.ndarray, zb: np.ndarray, config: DocumentConfig) -> np.ndarray:
    r = zs + config.lexical_weight * zb
    view = document_view(pool["query"], pool["passages"], pool["graphs"], r, config)
    matrix = document_matrix(pool["passages"])
    order = [int(i) for i in ranking(view.relevance)]
    anchors = list(dict.fromkeys(list(view.leads) + order[: config.anchors]))
    adjacent = (matrix[:, anchors] == 1.0).any(axis=1) if anchors else np.zeros(len(r), bool)
    return view.relevance + config.adjacent_weight * adjacent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pools", type=Path, required=True, help="beyond_pools.py's --out folder")
    args = parser.parse_args()
    pools = [p for p in load(sorted(args.pools.glob("*.pkl"))) if has_documents(p)]
    base = CageConfig()
    groups = np.array([p["setting"] for p in pools])
    folds = np.array([fold_of(p["id"]) for p in pools])
    plain = [standardize(pool_bm25(p["query"], [q.content for q in p["passages"]])) for p in pools]
    inherited = [standardize(pool_bm25(p["query"], pool_subject_texts(p))) for p in pools]
    cosine = [standardize(np.asarray(p["sims"], dtype=np.float64)) for p in pools]
    from cage_core.models import default_embedder  # the contextual variant embeds again

    embed = default_embedder()
    contextual = []
    for p in pools:
        vectors = np.asarray(embed([p["query"], *pool_subject_texts(p)]), dtype=np.float64)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        contextual.append(standardize(vectors[1:] @ vectors[0]))
    variants: dict[str, tuple[Ranker, list, list]] = {
        "shipped": (shipped, cosine, inherited),
        "sum": (summed, cosine, inherited),
        "plain bm25, sum": (summed, cosine, plain),
        "contextual cosine": (shipped, contextual, inherited),
    }
    points = [dict(zip(GRID, values)) for values in itertools.product(*GRID.values())]
    settings = sorted(set(groups))
    hybrid = np.array([measures(hybrid_order(p, base), p) for p in pools])
    rows = {"hybrid": hybrid}
    for name, (rank, sims, lexical) in variants.items():
        scores = np.array([[measures(ranking(rank(p, zs, zb, base.document.replace(**point))), p)
                            for p, zs, zb in zip(pools, sims, lexical)] for point in points])  # fmt: skip

        def objective(mask: np.ndarray, scores: np.ndarray = scores) -> np.ndarray:
            return np.mean([scores[:, mask & (groups == g), :2].sum(axis=2).mean(axis=1)
                            for g in settings], axis=0)  # fmt: skip

        out_of_fold = np.zeros((len(pools), 3))
        for k in range(FOLDS):
            out_of_fold[folds == k] = scores[int(np.argmax(objective(folds != k))), folds == k]
        chosen = int(np.argmax(objective(np.ones(len(pools), dtype=bool))))
        print(f"{name}: all folds chose {points[chosen]}", file=sys.stderr)
        rows[f"{name}, out of fold"] = out_of_fold
        rows[f"{name}, all folds"] = scores[chosen]
    print_table(rows, groups)
    means = [
        np.mean([v[groups == g, :2].sum(axis=1).mean() for g in settings]) for v in rows.values()
    ]
    print("| objective (mean R@3 + R@5) | | " + " | ".join(f"{m:.4f}" for m in means) + " |")


if __name__ == "__main__":
    main()
