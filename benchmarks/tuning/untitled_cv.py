"""How the settings of untitled pools were chosen: a grid, 5-fold cross-validation over DEV questions.

    python benchmarks/untitled_cv.py --data ../shared/data [--graph-store graphs.sqlite]

The setting is the one where the evidence chain cannot work: open retrieval without titles
(``cage eval --open 20 --no-titles --expand``: each file's pooled passages form a corpus with
``title=""``, the top 20 by cosine plus the link index's expansion form each pool). The pools
are built once; each grid point of :class:`~cage_core.config.UntitledConfig` then ranks them
through :func:`~cage_core.ranking.untitled_core.subject_core_scores`, exactly as
:func:`~cage_core.ranking.fusion.score_pool` does. The questions of the multi-hop files (HotpotQA,
2WikiMultihopQA, MuSiQue) are pooled and split into 5 folds by a hash of their id (as in
``chain_cv.py``) — never by dataset. For each fold, the grid point with the best mean over
the three files of ``R@3 + R@5`` on the other four folds ranks the held-out fold; the printed
table is those out-of-fold rankings, beside vanilla (cosine order), hybrid (relevance order)
and the previous default (the 3 most relevant passages as core, undirected subject links,
no query-subject gain). RAMDocs is not in the objective; it guards the choice instead (:func:`ramdocs_guard`): a grid
point is allowed only when, against the 0.2 ranking (the 3 most relevant passages as core,
entity links only), its Recall@5 on RAMDocs' closed pools (no titles, shuffled as ``cage
eval`` shuffles them) is no lower — closed-pool Recall@5 must not drop — and its
misinformation in the top 5 is no higher, on the closed pools and on the open ones (the
short chain only reorders the top 5: ``untitled_chain_cv.py`` guards the top 2). The shipped
defaults are the allowed point chosen on all folds together.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chain_cv import FOLDS, fold_of

from cage_core import CageConfig, CageReranker
from cage_core.config import UntitledConfig
from cage_core.eval.corpus import corpus_from_pools
from cage_core.eval.corpus_retrieval import CorpusRetriever
from cage_core.eval.datasets import load_questions
from cage_core.eval.open_retrieval import (
    DEFAULT_OPEN_K,
    ExpansionSettings,
    _CorpusState,
    expand_pool,
    gold_in_corpus,
    misinfo_in_corpus,
)
from cage_core.eval.runner import _permutation
from cage_core.passage import Passage
from cage_core.ranking.fusion import standardize
from cage_core.ranking.links import coherence_to_core, core_indices, shared_entity_links
from cage_core.ranking.pool_bm25 import pool_bm25
from cage_core.ranking.subjects import derive_subject
from cage_core.ranking.untitled_core import (
    subject_core_scores,
    subject_links,
    subject_mentions,
    untitled_subject,
)
from cage_core.scoring import cosine_matrix, ranking

FILES = ("hotpotqa", "2wikimultihopqa", "musique", "ramdocs")
MULTI_HOP = FILES[:3]
GRID = {
    "query_subject_weight": (0.0, 0.5, 1.0, 1.5),
    "forward_weight": (1.0, 1.5, 2.0, 2.5, 3.0, 4.0),
    "backward_weight": (0.5, 1.0),
    "core_decay": (1.0, 0.85, 0.7, 0.5),
    "alpha": (0.25, 1 / 3, 0.4, 0.5),
    "aliases": (True, False),
}


def load_pools(data: Path, reranker: CageReranker) -> list[dict]:
    """Every question's open, untitled, expanded pool with what the ranking needs."""
    config = reranker.config
    out = []
    for name in FILES:
        questions = load_questions(data / f"{name}.jsonl")
        state = _CorpusState(corpus_from_pools(questions, titles=False), reranker)
        corpus = state.corpus
        vectors = np.asarray(reranker.embedder([q.question for q in questions]), dtype=np.float64)
        cosines = cosine_matrix(vectors, state.embeddings)
        retriever = CorpusRetriever(
            [p.content for p in corpus.passages], cosines, "cosine", config.lexical_weight
        )
        state.ensure_graphs(range(len(corpus)), full=False)
        index = state.ensure_link_index()
        for row, q in enumerate(questions):
            retrieved = retriever.top(row, q.question, DEFAULT_OPEN_K)
            ids = retrieved + expand_pool(index, corpus, q.question, retrieved, ExpansionSettings())
            passages = [corpus.passages[i] for i in ids]
            graphs = [state.graphs[i] for i in ids]
            texts = [p.text for p in passages]
            derived = [derive_subject(p, g) for p, g in zip(passages, graphs)]
            names = [untitled_subject(d) for d in derived]
            sims = cosines[row, ids]
            relevance = standardize(sims) + config.lexical_weight * standardize(
                pool_bm25(q.question, [p.content for p in passages])
            )
            position = {c: n for n, c in enumerate(ids)}
            entities = shared_entity_links(graphs, q.question)
            gold = gold_in_corpus(q, corpus)
            out.append({
                "dataset": name, "id": q.id, "type": q.type, "sims": sims, "relevance": relevance,
                "entities": entities,
                "links": {a: subject_links(q.question, names, texts, relevance, entities, aliases=a)
                          for a in (True, False)},
                "previous": subject_mentions([d.name for d in derived], texts, aliases=False),
                "gold": frozenset(position[g] for g in gold if g in position), "n_gold": len(gold),
                "misinfo": _positions(misinfo_in_corpus(q, corpus), position),
            })  # fmt: skip
        print(f"{name}: {len(questions)} pools", file=sys.stderr, flush=True)
    return out


def _positions(ids: tuple[int, ...] | None, position: dict[int, int]) -> frozenset[int] | None:
    return None if ids is None else frozenset(position[i] for i in ids if i in position)


def _labelled_misinfo(q) -> tuple[int, ...] | None:
    """The passage indices RAMDocs labels ``misinfo`` (None without labels), as ``cage eval``."""
    labels = q.meta.get("doc_labels")
    if not isinstance(labels, list) or len(labels) != len(q.passages):
        return None
    return tuple(i for i, label in enumerate(labels) if label == "misinfo")


def misinfo_rate(orders: list[np.ndarray], pools: list[dict], k: int) -> float:
    """Share of the labelled pools with a misinformation passage in the top k (``cage eval``'s
    "misinfo in top k")."""
    flags = [bool(set(order[:k].tolist()) & p["misinfo"]) for order, p in zip(orders, pools)
             if p["misinfo"] is not None]  # fmt: skip
    return float(np.mean(flags))


def ramdocs_guard(pools: list[dict], closed: list[dict], points: list[dict],
                  rank_fn: Callable[[dict, dict], np.ndarray], *, recall: bool, ks: tuple[int, ...],
                  config: CageConfig) -> np.ndarray:  # fmt: skip
    """Per grid point, whether it keeps RAMDocs where the issue asks: with ``recall``, closed
    Recall@5 at least the 0.2 ranking's; for each k of ``ks``, misinformation in the top k no
    higher than the 0.2 ranking's, on the closed pools and on the open ones of ``pools``.
    Prints the floors and how many points keep them."""
    opened = [p for p in pools if p["dataset"] == "ramdocs"]

    def figures(point: dict | None) -> tuple[list[float], list[float]]:
        """(figures that must not fall, figures that must not rise) of a grid point, or of
        the 0.2 ranking for None."""
        closed_orders = [
            release_02(p, config) if point is None else rank_fn(p, point) for p in closed
        ]
        open_orders = [
            release_02(p, config) if point is None else rank_fn(p, point) for p in opened
        ]
        kept = (
            [float(np.mean([recalls(o, p)[1] for o, p in zip(closed_orders, closed)]))]
            if recall
            else []
        )
        capped = [rate for k in ks for rate in (misinfo_rate(closed_orders, closed, k),
                                                 misinfo_rate(open_orders, opened, k))]  # fmt: skip
        return kept, capped

    floor_kept, floor_capped = figures(None)
    keep = np.ones(len(points), dtype=bool)
    for n, point in enumerate(points):
        kept, capped = figures(point)
        keep[n] = (all(a >= b - 1e-9 for a, b in zip(kept, floor_kept))
                   and all(a <= b + 1e-9 for a, b in zip(capped, floor_capped)))  # fmt: skip
    floors = [f"closed R@5 ≥ {r:.3f}" for r in floor_kept]
    floors += [f"closed misinfo@{k} ≤ {floor_capped[2 * i]:.3f}, open misinfo@{k} ≤ {floor_capped[2 * i + 1]:.3f}"
               for i, k in enumerate(ks)]  # fmt: skip
    print(
        f"RAMDocs guard (the 0.2 ranking's): {'; '.join(floors)}; {int(keep.sum())} of {len(points)} points keep it"
    )
    return keep


def recalls(order: np.ndarray, pool: dict) -> tuple[float, float]:
    """(R@3, R@5); a gold passage outside the pool counts as missed."""
    n = max(pool["n_gold"], 1)
    return (
        len(set(order[:3].tolist()) & pool["gold"]) / n,
        len(set(order[:5].tolist()) & pool["gold"]) / n,
    )


def rank(pool: dict, point: dict, config: CageConfig) -> np.ndarray:
    untitled = UntitledConfig(**point)
    r, _, coherence, _ = subject_core_scores(pool["relevance"], pool["links"][untitled.aliases],
                                             core_size=config.core_size,
                                             entity_weight=config.entity_weight, config=untitled)  # fmt: skip
    return ranking(untitled.alpha * r + (1 - untitled.alpha) * coherence)


def previous_default(pool: dict, config: CageConfig) -> np.ndarray:
    m = pool["previous"]
    links = np.maximum(m, m.T) + config.entity_weight * pool["entities"]
    np.fill_diagonal(links, 0.0)
    coherence = coherence_to_core(links, core_indices(pool["relevance"], config.core_size))
    return ranking(config.alpha * pool["relevance"] + (1 - config.alpha) * coherence)


def load_closed_ramdocs(data: Path, reranker: CageReranker) -> list[dict]:
    """RAMDocs' closed pools (its passages carry no titles), in ``cage eval``'s shuffled order."""
    config = reranker.config
    questions = load_questions(data / "ramdocs.jsonl")
    vectors = np.asarray(reranker.embedder([q.question for q in questions]), dtype=np.float64)
    out = []
    for row, q in enumerate(questions):
        order = _permutation(0, q.id, len(q.passages))
        passages = [Passage(q.passages[i].text, title="") for i in order]
        graphs = reranker.graphs(passages)
        texts = [p.text for p in passages]
        derived = [derive_subject(p, g) for p, g in zip(passages, graphs)]
        names = [untitled_subject(d) for d in derived]
        sims = cosine_matrix(
            vectors[[row]], reranker.passage_embeddings([p.content for p in passages])
        )[0]
        relevance = standardize(sims) + config.lexical_weight * standardize(
            pool_bm25(q.question, texts)
        )
        position = {int(source): n for n, source in enumerate(order)}
        entities = shared_entity_links(graphs, q.question)
        out.append({
            "dataset": "ramdocs", "id": q.id, "type": q.type, "sims": sims, "relevance": relevance,
            "entities": entities,
            "links": {a: subject_links(q.question, names, texts, relevance, entities, aliases=a)
                      for a in (True, False)},
            "previous": subject_mentions([d.name for d in derived], texts, aliases=False),
            "gold": frozenset(position[g] for g in q.gold_indices), "n_gold": len(q.gold_indices),
            "misinfo": _positions(_labelled_misinfo(q), position),
        })  # fmt: skip
    return out


def release_02(pool: dict, config: CageConfig) -> np.ndarray:
    """The 0.2 default on a pool without titles: the 3 most relevant passages as core, entity links."""
    links = config.entity_weight * pool["entities"]
    np.fill_diagonal(links, 0.0)
    coherence = coherence_to_core(links, core_indices(pool["relevance"], config.core_size))
    return ranking(config.alpha * pool["relevance"] + (1 - config.alpha) * coherence)


class GridCV(NamedTuple):
    """Every grid point's (R@3, R@5) per pool, the out-of-fold ones, and the all-fold choice."""

    points: list[dict]
    scores: np.ndarray  # [points, pools, 2]
    out_of_fold: np.ndarray  # [pools, 2]
    chosen: int
    datasets: np.ndarray


def grid_points(grid: dict[str, tuple]) -> list[dict]:
    names = list(grid)
    return [dict(zip(names, values)) for values in itertools.product(*grid.values())]


def grid_cv(pools: list[dict], grid: dict[str, tuple], rank_fn: Callable[[dict, dict], np.ndarray],
            allowed: np.ndarray | None = None) -> GridCV:  # fmt: skip
    """Rank every pool under every point of ``grid`` (:func:`grid_points` order) with
    ``rank_fn(pool, point)``; for each fold, the ``allowed`` point (all when None) with the best
    mean over the multi-hop files of ``R@3 + R@5`` on the other folds (the first best in grid
    order) ranks the fold. Prints each fold's choice."""
    points = grid_points(grid)
    scores = np.array([[recalls(rank_fn(p, point), p) for p in pools] for point in points])
    datasets = np.array([p["dataset"] for p in pools])
    folds = np.array([fold_of(p["id"]) for p in pools])
    multi_hop = np.isin(datasets, MULTI_HOP)

    def objective(mask: np.ndarray) -> np.ndarray:
        means = np.mean(
            [scores[:, mask & (datasets == d)].sum(axis=2).mean(axis=1) for d in MULTI_HOP], axis=0
        )
        return means if allowed is None else np.where(allowed, means, -np.inf)

    out_of_fold = np.zeros((len(pools), 2))
    for k in range(FOLDS):
        best = int(np.argmax(objective(multi_hop & (folds != k))))
        print(f"fold {k}: {points[best]}")
        out_of_fold[folds == k] = scores[best, folds == k]
    chosen = int(np.argmax(objective(multi_hop)))
    print(f"all folds: {points[chosen]}\n")
    return GridCV(points, scores, out_of_fold, chosen, datasets)


def load_setting(description: str) -> tuple[CageConfig, list[dict], list[dict]]:
    """Parse ``--data`` and ``--graph-store``; the shipped config, the open untitled pools
    (:func:`load_pools`) and RAMDocs' closed ones (:func:`load_closed_ramdocs`)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--graph-store", default=None)
    args = parser.parse_args()
    config = CageConfig()
    reranker = CageReranker(config, graph_store=args.graph_store)
    return config, load_pools(args.data, reranker), load_closed_ramdocs(args.data, reranker)


def main() -> None:
    config, pools, closed = load_setting(__doc__.splitlines()[0])
    points = grid_points(GRID)
    rank_fn = functools.partial(rank, config=config)
    allowed = ramdocs_guard(pools, closed, points, rank_fn, recall=True, ks=(5,), config=config)
    cv = grid_cv(pools, GRID, rank_fn, allowed=allowed)
    rows = {
        "vanilla (cosine order)": np.array([recalls(ranking(p["sims"]), p) for p in pools]),
        "hybrid (relevance order)": np.array([recalls(ranking(p["relevance"]), p) for p in pools]),
        "previous default (no chain)": np.array(
            [recalls(previous_default(p, config), p) for p in pools]
        ),
        "subject core, out of fold": cv.out_of_fold,
        "subject core, all-fold choice": cv.scores[cv.chosen],
    }
    groups: dict[str, np.ndarray] = defaultdict(lambda: np.zeros(len(pools), bool))
    for n, p in enumerate(pools):
        groups[p["dataset"]][n] = True
        if p["dataset"] == "hotpotqa":
            groups[f"hotpotqa {p['type']}"][n] = True
    order = [g for d in FILES for g in sorted(groups) if g.split()[0] == d]
    print("| ranking | " + " | ".join(f"{g} R@5" for g in order) + " |")
    print("|---|" + "---|" * len(order))
    for label, values in rows.items():
        print(
            f"| {label} | " + " | ".join(f"{values[groups[g], 1].mean():.3f}" for g in order) + " |"
        )


if __name__ == "__main__":
    main()
