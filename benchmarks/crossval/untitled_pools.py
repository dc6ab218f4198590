"""The pools of the untitled setting and the cross-validation over them (``untitled_cv.py``,
``untitled_chain_cv.py``).

The setting is the one where the evidence chain cannot work: open retrieval without titles
(``cage eval --open 20 --no-titles --expand``: each file's pooled passages form a corpus with
``title=""``, the top 20 by cosine plus the link index's expansion form each pool). Each pool
is built once with what the subject core reads (relevance, shared-entity links, subject links
with and without aliases); grid points then rank it. The objective is the mean over the
multi-hop files of ``R@3 + R@5``; RAMDocs guards the choice instead (:func:`ramdocs_guard`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cage_core import CageConfig, CageReranker
from cage_core.eval.corpus import corpus_from_pools
from cage_core.eval.corpus_retrieval import CorpusRetriever
from cage_core.eval.datasets import EvalQuestion, load_questions
from cage_core.eval.open_retrieval import (
    DEFAULT_OPEN_K,
    CorpusState,
    ExpansionSettings,
    expand_pool,
    gold_in_corpus,
    misinfo_in_corpus,
)
from cage_core.eval.runner import pool_permutation
from cage_core.names.subjects import derive_subject
from cage_core.passage import Passage
from cage_core.ranking.links import coherence_to_core, core_indices, shared_entity_links
from cage_core.ranking.pool_bm25 import pool_bm25
from cage_core.ranking.untitled_core import subject_links, subject_mentions, untitled_subject
from cage_core.scoring import cosine_matrix, ranking, standardize

from .choice import CrossValidation, cross_validate, grid_points, group_objective
from .folds import fold_array
from .measures import misinfo_rate, recalls

__all__ = [
    "FILES",
    "MULTI_HOP",
    "closed_ramdocs_pools",
    "grid_cv",
    "ramdocs_guard",
    "release_02",
    "untitled_pools",
]

FILES = ("hotpotqa", "2wikimultihopqa", "musique", "ramdocs")
MULTI_HOP = FILES[:3]
RankFn = Callable[[dict[str, Any], dict[str, Any]], np.ndarray]
"""``(pool, grid point) → order``."""


def _features(
    q: EvalQuestion,
    passages: list[Passage],
    graphs: list,
    sims: np.ndarray,
    relevance: np.ndarray,
) -> dict[str, Any]:
    """What the subject core reads of one pool, computed once."""
    texts = [p.text for p in passages]
    derived = [derive_subject(p, g) for p, g in zip(passages, graphs)]
    names = [untitled_subject(d) for d in derived]
    entities = shared_entity_links(graphs, q.question)
    return {
        "id": q.id,
        "type": q.type,
        "sims": sims,
        "relevance": relevance,
        "entities": entities,
        "links": {
            a: subject_links(q.question, names, texts, relevance, entities, aliases=a)
            for a in (True, False)
        },
        "previous": subject_mentions([d.name for d in derived], texts, aliases=False),
    }


def _positions(ids: Sequence[int] | None, position: Mapping[int, int]) -> frozenset[int] | None:
    return None if ids is None else frozenset(position[i] for i in ids if i in position)


def untitled_pools(
    data: Path, reranker: CageReranker, limit: int | None = None
) -> list[dict[str, Any]]:
    """Every question's open, untitled, expanded pool of every file of :data:`FILES` (the
    first ``limit`` questions of each; the corpus is always every question's passages)."""
    config = reranker.config
    out = []
    for name in FILES:
        questions = load_questions(data / f"{name}.jsonl")
        state = CorpusState(corpus_from_pools(questions, titles=False), reranker)
        corpus = state.corpus
        questions = questions[:limit]
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
            position = {c: n for n, c in enumerate(ids)}
            gold = gold_in_corpus(q, corpus)
            sims = cosines[row, ids]
            relevance = standardize(sims) + config.lexical_weight * standardize(
                pool_bm25(q.question, [p.content for p in passages])
            )
            out.append(
                {
                    "dataset": name,
                    **_features(q, passages, graphs, sims, relevance),
                    "gold": frozenset(position[g] for g in gold if g in position),
                    "n_gold": len(gold),
                    "misinfo": _positions(misinfo_in_corpus(q, corpus), position),
                }
            )
        print(f"{name}: {len(questions)} pools", file=sys.stderr, flush=True)
    return out


def _labelled_misinfo(q: EvalQuestion) -> tuple[int, ...] | None:
    """The passage indices RAMDocs labels ``misinfo`` (None without labels), as ``cage eval``."""
    labels = q.meta.get("doc_labels")
    if not isinstance(labels, list) or len(labels) != len(q.passages):
        return None
    return tuple(i for i, label in enumerate(labels) if label == "misinfo")


def closed_ramdocs_pools(
    data: Path, reranker: CageReranker, limit: int | None = None
) -> list[dict[str, Any]]:
    """RAMDocs' closed pools (its passages carry no titles), in ``cage eval``'s shuffled order."""
    config = reranker.config
    questions = load_questions(data / "ramdocs.jsonl")[:limit]
    vectors = np.asarray(reranker.embedder([q.question for q in questions]), dtype=np.float64)
    out = []
    for row, q in enumerate(questions):
        order = pool_permutation(0, q.id, len(q.passages))
        passages = [Passage(q.passages[i].text, title="") for i in order]
        graphs = reranker.graphs(passages)
        sims = cosine_matrix(
            vectors[[row]], reranker.passage_embeddings([p.content for p in passages])
        )[0]
        relevance = standardize(sims) + config.lexical_weight * standardize(
            pool_bm25(q.question, [p.text for p in passages])
        )
        position = {int(source): n for n, source in enumerate(order)}
        out.append(
            {
                "dataset": "ramdocs",
                **_features(q, passages, graphs, sims, relevance),
                "gold": frozenset(position[g] for g in q.gold_indices),
                "n_gold": len(q.gold_indices),
                "misinfo": _positions(_labelled_misinfo(q), position),
            }
        )
    return out


def release_02(pool: Mapping[str, Any], config: CageConfig) -> np.ndarray:
    """The 0.2 default on a pool without titles: the 3 most relevant passages as core, entity
    links."""
    links = config.entity_weight * pool["entities"]
    np.fill_diagonal(links, 0.0)
    coherence = coherence_to_core(links, core_indices(pool["relevance"], config.core_size))
    return ranking(config.alpha * pool["relevance"] + (1 - config.alpha) * coherence)


def ramdocs_guard(
    pools: list[dict[str, Any]],
    closed: list[dict[str, Any]],
    points: list[dict[str, Any]],
    rank_fn: RankFn,
    *,
    recall: bool,
    ks: tuple[int, ...],
    config: CageConfig,
) -> np.ndarray:
    """Per grid point, whether it keeps RAMDocs where the issue asks: with ``recall``, closed
    Recall@5 at least the 0.2 ranking's; for each k of ``ks``, misinformation in the top k no
    higher than the 0.2 ranking's, on the closed pools and on the open ones of ``pools``.
    Prints the floors and how many points keep them."""
    opened = [p for p in pools if p["dataset"] == "ramdocs"]

    def figures(point: dict[str, Any] | None) -> tuple[list[float], list[float]]:
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
        capped = [
            rate
            for k in ks
            for rate in (
                misinfo_rate(closed_orders, closed, k),
                misinfo_rate(open_orders, opened, k),
            )
        ]
        return kept, capped

    floor_kept, floor_capped = figures(None)
    keep = np.ones(len(points), dtype=bool)
    for n, point in enumerate(points):
        kept, capped = figures(point)
        keep[n] = all(a >= b - 1e-9 for a, b in zip(kept, floor_kept)) and all(
            a <= b + 1e-9 for a, b in zip(capped, floor_capped)
        )
    floors = [f"closed R@5 ≥ {r:.3f}" for r in floor_kept]
    floors += [
        f"closed misinfo@{k} ≤ {floor_capped[2 * i]:.3f}, "
        f"open misinfo@{k} ≤ {floor_capped[2 * i + 1]:.3f}"
        for i, k in enumerate(ks)
    ]
    print(
        f"RAMDocs guard (the 0.2 ranking's): {'; '.join(floors)}; "
        f"{int(keep.sum())} of {len(points)} points keep it"
    )
    return keep


def grid_cv(
    pools: list[dict[str, Any]],
    grid: Mapping[str, Sequence[Any]],
    rank_fn: RankFn,
    allowed: np.ndarray | None = None,
) -> tuple[list[dict[str, Any]], np.ndarray, CrossValidation]:
    """Rank every pool under every point of ``grid`` with ``rank_fn(pool, point)``; the
    out-of-fold choice (:func:`crossval.choice.cross_validate`) of the ``allowed`` points (all
    when None) by the mean over :data:`MULTI_HOP` of ``R@3 + R@5``, trained on the multi-hop
    pools only. Prints each fold's choice. Returns the points, the ``[points, pools, 2]``
    scores and the cross-validation."""
    points = grid_points(grid)
    scores = np.array([[recalls(rank_fn(p, point), p) for p in pools] for point in points])
    datasets = np.array([p["dataset"] for p in pools])
    objective = group_objective(scores, datasets, MULTI_HOP, allowed)
    cv = cross_validate(
        scores, fold_array(p["id"] for p in pools), objective, train=np.isin(datasets, MULTI_HOP)
    )
    for k, best in enumerate(cv.fold_choices):
        print(f"fold {k}: {points[best]}")
    print(f"all folds: {points[cv.chosen]}\n")
    return points, scores, cv
