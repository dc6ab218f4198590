"""The trained link model inside the evidence-chain selection, 5-fold cross-validated on DEV.

    python benchmarks/link_chain_cv.py --data ../shared/data --graph-store graphs.sqlite \
        [--cache DIR] [--limit N]

Closed DEV pools of HotpotQA, 2WikiMultihopQA and MuSiQue, split into the 5 folds of
``benchmarks/chain_cv.py`` (a hash of the question id). Four rankings of every question, each
ranked by settings chosen without it:

* hybrid — the relevance order ``r`` of :mod:`cage_core.fusion`;
* chain, hand-built links — the default chain (:mod:`cage_core.evidence_set`) with the
  grid point of ``chain_cv.py`` chosen on the other folds (the same objective: mean over the
  three files of ``R@3 + R@5``), i.e. ``chain_cv.py``'s cross-validated row;
* chain, model links — the link term replaced by the trained model:
  ``g_j(S) = r_j + w_q·Q_j + max_{s ∈ S, o(s,j) < θ} w_m·S_sj``;
* chain, model + hand-built — the model added to the hand-built term:
  ``... + max_s (w_m·S_sj + w_t·M_sj + w_e·min(E_sj, c))``.

``S`` is :meth:`LinkModel.score_inputs <cage_core.link_model.LinkModel.score_inputs>` of a
link model (variant and training settings of the shipped one) trained with
:func:`~cage_core.link_training.train_link_net` on the other four folds only. For the held-out
fold f, ``w_m`` (and for "model links" also ``w_q`` from 1.25/1.5/1.75) is chosen on the four
training folds with the same objective, from scores those training pools get out-of-fold in
a *nested* cross-validation (fold g ≠ f scored by a model trained on the three folds other
than f and g), so the choice sees the model as it scores unseen pools; ``w_t, w_e, c, θ``
(and ``w_q`` of "model + hand-built") are fold f's hand-built choice. After the chain the
pool is ranked as the default ranks it (bridge coherence to the chain). 15 models in all (5
outer; 10 nested, as the model without folds f and g serves both f and g); each one's held-out
scores are cached in ``--cache`` (a rerun only ranks).

Prints the choices per fold with their objective on the training folds (the model rows: from
the nested scores), then a markdown table per file: R@1, R@2, R@3, R@5 and
all gold@5 of the four rankings.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import logging
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from cage_core import CageConfig, CageReranker
from cage_core.bridge import (
    coherence_to_core,
    core_indices,
    shared_entity_links,
    title_mentions,
    titles_named_in,
)
from cage_core.config import ChainConfig
from cage_core.eval.datasets import load_questions
from cage_core.eval.runner import _similarities
from cage_core.evidence_set import ChainLinks, select_chain
from cage_core.fusion import chain_first, score_pool, standardize
from cage_core.lexical import pool_bm25
from cage_core.link_model import LinkModel, LinkModelConfig
from cage_core.link_training import (
    LinkExample,
    LinkTrainingConfig,
    file_digest,
    load_examples,
    train_link_net,
)
from cage_core.passage import Passage
from cage_core.passage_subject import passage_subject
from cage_core.scoring import fuse, ranking

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chain_cv import FOLDS, GRID, MULTI_HOP, fold_of, measures

FILES = tuple(f"{name}.jsonl" for name in MULTI_HOP)
MODEL_WEIGHTS = (0.25, 0.5, 1.0, 2.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0, 48.0, 64.0)
"""Grid of ``w_m``: first 1–8, widened while a fold's choice lay on an edge ("model links"
chose 8, then 24 in every fold; "model + hand-built" chose 1 in three folds)."""
QUERY_TITLE_WEIGHTS = GRID["query_title_weight"]
"""Grid of ``w_q`` for the "model links" chain (the hand-built chain's grid)."""
ROWS = (
    "hybrid (relevance order)",
    "chain, hand-built links (chain_cv)",
    "chain, model links (replace)",
    "chain, model + hand-built links",
)
DEFAULTS = CageConfig()


@dataclass(frozen=True, eq=False)
class PoolParts:
    """Everything the default bridge ranking of one pool needs besides the chain settings
    (as :func:`cage_core.fusion.score_pool` computes it under ``CageConfig()``)."""

    dataset: str
    key: str
    fold: int
    gold: frozenset[int]
    texts: tuple[str, ...]
    chained: bool
    """Some passage has a title (else the default ranks without a chain)."""
    relevance: np.ndarray
    title_hops: np.ndarray
    entity_links: np.ndarray
    query_titles: np.ndarray
    matrix: np.ndarray


def pool_parts(
    query: str,
    passages: Sequence[Passage],
    sims: np.ndarray,
    graphs,
    dataset: str,
    key: str,
    gold: frozenset[int],
) -> PoolParts:
    """The bridge branch of :func:`~cage_core.fusion.score_pool` up to the chain (see there)."""
    relevance = standardize(sims) + DEFAULTS.lexical_weight * standardize(
        pool_bm25(query, [p.content for p in passages])
    )
    titles = [p.title for p in passages]
    subjects = [passage_subject(p, g) for p, g in zip(passages, graphs)]
    texts = [p.text for p in passages]
    entity_links = shared_entity_links(graphs, query)
    mentions = title_mentions(subjects, texts)
    matrix = np.maximum(mentions, mentions.T) + DEFAULTS.entity_weight * entity_links
    np.fill_diagonal(matrix, 0.0)
    title_hops = mentions if subjects == titles else title_mentions(titles, texts)
    return PoolParts(
        dataset,
        key,
        fold_of(key),
        gold,
        tuple(texts),
        any(t.strip() for t in titles),
        relevance,
        title_hops,
        entity_links,
        titles_named_in(query, titles),
        matrix,
    )


def rank(
    parts: PoolParts,
    chain: ChainConfig,
    model: np.ndarray | None = None,
    weight: float = 0.0,
    replace: bool = False,
) -> np.ndarray:
    """The default ranking of the pool with chain settings ``chain`` and, when ``model`` is
    given, the link term of the chain replaced by / added to ``weight · model`` (module
    docstring). Both are expressed through :func:`select_chain`'s title term: replace is
    ``M = S`` with ``w_t = w_m, w_e = 0``; add is ``M + (w_m / w_t)·S``."""
    links = ChainLinks(parts.title_hops, parts.entity_links, parts.query_titles)
    if model is not None and replace:
        links = ChainLinks(model, np.zeros_like(model), parts.query_titles)
        chain = chain.replace(title_weight=weight, entity_weight=0.0)
    elif model is not None:
        if chain.title_weight <= 0:
            raise ValueError("adding model scores through the title term needs title_weight > 0")
        links = ChainLinks(
            parts.title_hops + (weight / chain.title_weight) * model,
            parts.entity_links,
            parts.query_titles,
        )
    steps = select_chain(parts.relevance, links, chain) if chain.length and parts.chained else ()
    core = (
        np.array([s.index for s in steps], dtype=np.int64)
        if steps
        else core_indices(parts.relevance, DEFAULTS.core_size)
    )
    fused = fuse(parts.relevance, coherence_to_core(parts.matrix, core), DEFAULTS.alpha)
    return ranking(chain_first(fused, steps) if steps else fused)


def digest(
    data: Path, model_config: LinkModelConfig, training: LinkTrainingConfig, limit: int | None
) -> str:
    h = hashlib.sha256()
    for name in FILES:
        h.update(file_digest(data / name).encode())
    h.update(
        json.dumps([asdict(model_config), asdict(training), limit, FOLDS, repr(DEFAULTS)]).encode()
    )
    return h.hexdigest()[:16]


ARRAYS = ("relevance", "title_hops", "entity_links", "query_titles", "matrix")
"""The :class:`PoolParts` arrays cached in ``pools-TAG.npz``."""


def load(data: Path, reranker: CageReranker, limit: int | None, cache: Path) -> list[PoolParts]:
    """The pools of the three files; computed pools are checked against ``score_pool`` under
    the shipped config, then cached in ``cache`` (reloaded from there on later runs)."""
    questions = [q for name in FILES for q in load_questions(data / name)[:limit]]
    if cache.exists():
        with np.load(cache, allow_pickle=False) as stored:
            out = []
            for n, q in enumerate(questions):
                arrays = {a: np.asarray(stored[f"{n}/{a}"], dtype=np.float64) for a in ARRAYS}
                k = len(q.passages)
                if any(
                    v.shape != ((k,) if a in ("relevance", "query_titles") else (k, k))
                    for a, v in arrays.items()
                ) or not all(np.all(np.isfinite(v)) for v in arrays.values()):
                    raise ValueError(
                        f"{cache}: bad arrays for pool {n}; delete the file to recompute"
                    )
                out.append(
                    PoolParts(
                        q.dataset,
                        q.id,
                        fold_of(q.id),
                        frozenset(q.gold_indices),
                        tuple(p.text for p in q.passages),
                        bool(stored[f"{n}/chained"]),
                        **arrays,
                    )
                )
            return out
    out = []
    for name in FILES:
        questions = load_questions(data / name)[:limit]
        pools = [[Passage(p.text, title=p.title) for p in q.passages] for q in questions]
        sims = _similarities(reranker, questions, pools)
        graphs = reranker.graphs([p for ps in pools for p in ps], level="light")
        offset = 0
        for q, ps, (s, _) in zip(questions, pools, sims):
            g = graphs[offset : offset + len(ps)]
            offset += len(ps)
            parts = pool_parts(q.question, ps, s, g, q.dataset, q.id, frozenset(q.gold_indices))
            expected = ranking(score_pool(q.question, ps, s, g, DEFAULTS).fused)
            if not np.array_equal(rank(parts, DEFAULTS.chain), expected):
                raise AssertionError(f"{q.id}: this script's ranking differs from score_pool's")
            out.append(parts)
    stored = {f"{n}/{a}": getattr(p, a) for n, p in enumerate(out) for a in ARRAYS}
    stored.update({f"{n}/chained": np.array(p.chained) for n, p in enumerate(out)})
    tmp = cache.with_suffix(".tmp.npz")
    np.savez(tmp, **stored)
    tmp.replace(cache)
    return out


def model_scores(
    data: Path,
    reranker: CageReranker,
    pools: Sequence[PoolParts],
    cache: Path,
    tag: str,
    limit: int | None,
) -> dict[tuple[int, int], list[np.ndarray | None]]:
    """``{(f, g): S of every pool of fold g}`` (None elsewhere) from the model trained on the
    folds other than f and g; ``(f, f)``: the outer model of fold f. Cached per model."""
    model_config, training = LinkModelConfig(), LinkTrainingConfig()
    # the nested model of (f, g) is trained on the folds other than f and g, like (g, f): one model each
    runs = [(f, f) for f in range(FOLDS)] + list(itertools.combinations(range(FOLDS), 2))
    out: dict[tuple[int, int], list[np.ndarray | None]] = {}
    examples: list[LinkExample] | None = None
    for f, g in runs:
        path = cache / f"scores-{tag}-{f}{g}.npz"
        if not path.exists():
            if examples is None:
                start = time.perf_counter()
                examples = load_examples(
                    [data / name for name in FILES], reranker, model_config, limit=limit
                )
                if [(e.dataset, e.id) for e in examples] != [(p.dataset, p.key) for p in pools]:
                    raise AssertionError("link examples and pools are not the same questions")
                print(
                    f"link inputs of {len(examples)} pools: {time.perf_counter() - start:.0f} s",
                    file=sys.stderr,
                )
            start = time.perf_counter()
            train = [e for e, p in zip(examples, pools) if p.fold not in (f, g)]
            net, losses = train_link_net(train, model_config, training)
            model = LinkModel(net)
            held = {
                str(n): model.score_inputs(examples[n].inputs)
                for n, p in enumerate(pools)
                if p.fold in (f, g)
            }
            tmp = path.with_suffix(".tmp.npz")
            np.savez(tmp, **held)
            tmp.replace(path)
            print(
                f"model without folds {sorted({f, g})}: {len(train)} pools, loss {losses[0]:.3f} -> "
                f"{losses[-1]:.3f}, {time.perf_counter() - start:.0f} s",
                file=sys.stderr,
            )
        with np.load(path, allow_pickle=False) as stored:
            scores: list[np.ndarray | None] = [None] * len(pools)
            for n, p in enumerate(pools):
                if p.fold in (f, g):
                    s = np.asarray(stored[str(n)], dtype=np.float64)
                    if s.shape != p.relevance.shape * 2 or not np.all(np.isfinite(s)):
                        raise ValueError(f"{path}: bad scores for pool {n}")
                    scores[n] = s
        out[(f, g)] = scores
        out[(g, f)] = scores
    return out


def objective(results: np.ndarray, datasets: np.ndarray) -> float:
    """Mean over the files of ``R@3 + R@5`` (``results``: ``[N, 5]`` measures)."""
    return float(
        np.mean(
            [
                results[datasets == d, 2].mean() + results[datasets == d, 3].mean()
                for d in MULTI_HOP
                if (datasets == d).any()
            ]
        )
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--graph-store")
    parser.add_argument("--cache", type=Path, default=Path("/work/cache/linkchain"))
    parser.add_argument(
        "--limit", type=int, help="only the first N questions of each file (a quick check)"
    )
    parser.add_argument(
        "--threads", type=int, default=1, help="torch threads (default: %(default)s)"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    torch.set_num_threads(args.threads)
    args.cache.mkdir(parents=True, exist_ok=True)
    reranker = CageReranker(graph_store=args.graph_store)
    start = time.perf_counter()
    tag = digest(args.data, LinkModelConfig(), LinkTrainingConfig(), args.limit)
    pools = load(args.data, reranker, args.limit, args.cache / f"pools-{tag}.npz")
    print(
        f"{len(pools)} pools (ranking equal to score_pool's under the default when computed): "
        f"{time.perf_counter() - start:.0f} s",
        file=sys.stderr,
    )
    scores = model_scores(args.data, reranker, pools, args.cache, tag, args.limit)

    datasets = np.array([p.dataset for p in pools])
    folds = np.array([p.fold for p in pools])
    grid = [ChainConfig(**dict(zip(GRID, values))) for values in itertools.product(*GRID.values())]
    handbuilt = np.array(
        [[measures(rank(p, c), p.gold, None) for p in pools] for c in grid]
    )  # [C, N, 5]
    rows: dict[str, list[list[float] | None]] = {name: [None] * len(pools) for name in ROWS}
    for n, p in enumerate(pools):
        rows[ROWS[0]][n] = measures(ranking(p.relevance), p.gold, None)
    for f in range(FOLDS):
        train, test = np.flatnonzero(folds != f), np.flatnonzero(folds == f)
        chain = grid[
            int(
                np.argmax(
                    [objective(handbuilt[c, train], datasets[train]) for c in range(len(grid))]
                )
            )
        ]

        def score(
            choice: tuple[ChainConfig, float, bool], f: int = f, train: np.ndarray = train
        ) -> float:
            """The objective on the training folds, each pool scored by its nested model."""
            c, w, replace = choice
            return objective(
                np.array(
                    [
                        measures(
                            rank(pools[n], c, scores[(f, int(folds[n]))][n], w, replace),
                            pools[n].gold,
                            None,
                        )
                        for n in train
                    ]
                ),
                datasets[train],
            )

        replace_grid = [
            (chain.replace(query_title_weight=q), w, True)
            for q in QUERY_TITLE_WEIGHTS
            for w in MODEL_WEIGHTS
        ]
        add_grid = [(chain, w, False) for w in MODEL_WEIGHTS]
        replace = max(replace_grid, key=score)  # first maximum: grid order breaks ties
        add = max(add_grid, key=score)
        own = objective(handbuilt[grid.index(chain), train], datasets[train])
        print(
            f"fold {f}: hand-built {asdict(chain)} (objective on the training folds {own:.4f}); "
            f"model links w_m={replace[1]:g} w_q={replace[0].query_title_weight:g} ({score(replace):.4f}); "
            f"model + hand-built w_m={add[1]:g} ({score(add):.4f})"
        )
        for n in test:
            p = pools[n]
            rows[ROWS[1]][n] = handbuilt[grid.index(chain), n].tolist()
            rows[ROWS[2]][n] = measures(
                rank(p, replace[0], scores[(f, f)][n], replace[1], True), p.gold, None
            )
            rows[ROWS[3]][n] = measures(
                rank(p, add[0], scores[(f, f)][n], add[1], False), p.gold, None
            )
    print("\n| dataset | n | ranking | R@1 | R@2 | R@3 | R@5 | all gold@5 |")
    print("|---|---|---|---|---|---|---|---|")
    for d in MULTI_HOP:
        mask = datasets == d
        for name in ROWS:
            m = np.array([rows[name][n] for n in np.flatnonzero(mask)])
            print(
                f"| {d} | {int(mask.sum())} | {name} | "
                + " | ".join(f"{v:.3f}" for v in m.mean(axis=0))
                + " |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
