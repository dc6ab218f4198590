"""Training and cross-validating the link model on benchmark files (``cage train``).

Data: every question of the given files becomes one pool (its full candidate list), with
the full passage graphs (word vectors attached), the MiniLM cosine of each passage to the
question, and the hand-built links ``L = T + entity_weight · E`` of
:func:`cage_core.bridge.link_matrix` under the default :class:`~cage_core.config.CageConfig`.

Labels: pair ``(i, j)`` is positive when both passages are gold, negative otherwise (also
when one of them is gold); the loss is :func:`~cage_core.link_model.link_loss`.

Training: Adam with weight decay over mini-batches of ``batch_pools`` pools for ``epochs``
epochs; initial weights and the batch order come from ``seed`` alone, so the same data,
settings and torch build give the same weights.

Cross-validation: the questions of all files together (never per dataset) are sorted by
``(dataset, id)``, permuted with ``seed`` and dealt round-robin into ``folds`` folds; fold
f is scored by a model trained on the other folds. Scorers are compared with
:mod:`cage_core.link_metrics`; besides the trained variants and the hand-built ``L``, the
report shows a relevance reference, ``R_ij = cos_i + cos_j`` (MiniLM cosines to the
question), to tell link evidence from plain relevance.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from torch import Tensor

from cage_core.bridge import link_matrix
from cage_core.config import CageConfig, check_int, check_real
from cage_core.eval.datasets import load_questions
from cage_core.link_features import PoolInputs, pool_inputs
from cage_core.link_metrics import LinkMetrics, mean_metrics
from cage_core.link_model import Aggregated, LinkModel, LinkModelConfig, LinkNet, link_loss
from cage_core.passage import Passage

logger = logging.getLogger(__name__)

HANDBUILT = "hand-built L"
RELEVANCE = "relevance (ref.)"


@dataclass(frozen=True)
class LinkTrainingConfig:
    """Optimisation settings of ``cage train``."""

    epochs: int = 8
    batch_pools: int = 16
    learning_rate: float = 3e-3
    weight_decay: float = 1e-3
    seed: int = 0

    def __post_init__(self) -> None:
        check_int("epochs", self.epochs, low=0, high=10_000)
        check_int("batch_pools", self.batch_pools, low=1, high=100_000)
        check_real("learning_rate", self.learning_rate, low=0.0, high=1.0, low_open=True)
        check_real("weight_decay", self.weight_decay, low=0.0, high=1.0)
        check_int("seed", self.seed, low=0, high=2**63 - 1)


@dataclass(frozen=True, eq=False)
class LinkExample:
    """One question's pool, ready for training and scoring."""

    dataset: str
    id: str
    type: str | None
    inputs: PoolInputs
    gold: np.ndarray
    """``[k]`` bool: the gold (supporting) passages."""
    similarities: np.ndarray
    """``[k]`` MiniLM cosine of each passage to the question."""
    handbuilt: np.ndarray
    """``[k, k]`` the hand-built links ``L`` (module docstring)."""


def file_digest(path: str | Path) -> str:
    """SHA-256 (hex) of a file's bytes, recorded with the weights."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def load_examples(
    paths: Sequence[str | Path], reranker, model_config: LinkModelConfig, *, limit: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[LinkExample]:
    """One :class:`LinkExample` per question of ``paths`` (the first ``limit`` of each file).

    ``reranker`` (a :class:`~cage_core.reranker.CageReranker`, ideally with a graph store)
    supplies the graphs and cosines.
    """
    defaults = CageConfig()
    examples = []
    for path in paths:
        questions = load_questions(path)[:limit]
        for q in questions:
            passages = [Passage(text=p.text, title=p.title) for p in q.passages]
            graphs = reranker.graphs(passages, level="full", with_vectors=True)
            sims = np.asarray(reranker.similarities(q.question, passages), dtype=np.float64)
            handbuilt = link_matrix(q.question, [p.title for p in passages], [p.text for p in passages],
                                    graphs, entity_weight=defaults.entity_weight,
                                    use_titles=defaults.title_links)  # fmt: skip
            inputs = pool_inputs(q.question, passages, graphs, beta=model_config.beta,
                                 vector_dim=model_config.vector_dim)  # fmt: skip
            gold = np.array([p.gold for p in q.passages], dtype=bool)
            examples.append(LinkExample(q.dataset, q.id, q.type, inputs, gold, sims, handbuilt))
            if progress is not None:
                progress(1)
    return examples


def assign_folds(examples: Sequence[LinkExample], folds: int, seed: int) -> np.ndarray:
    """``[n]`` fold of each example (module docstring); every fold gets ``⌊n/folds⌋`` or one more."""
    check_int("folds", folds, low=2, high=max(2, len(examples)))
    order = sorted(range(len(examples)), key=lambda n: (examples[n].dataset, examples[n].id, n))
    permuted = np.asarray(order)[np.random.default_rng(seed).permutation(len(order))]
    fold = np.empty(len(examples), dtype=np.int64)
    fold[permuted] = np.arange(len(examples)) % folds
    return fold


@dataclass(frozen=True, eq=False)
class _Prepared:
    """One pool as tensors, with the constant neighbour sums computed once."""

    x: Tensor
    aggregated: Aggregated
    graph_of: Tensor
    entity_nodes: Tensor
    k: int
    pair_a: Tensor
    pair_b: Tensor
    pair_features: Tensor
    positive: Tensor
    gold: Tensor


def _prepare(example: LinkExample, net: LinkNet) -> _Prepared:
    inputs = example.inputs
    a, b = np.triu_indices(inputs.k, 1)
    gold = torch.from_numpy(example.gold)
    pa, pb = torch.from_numpy(a), torch.from_numpy(b)
    return _Prepared(torch.from_numpy(inputs.x), net.aggregate(inputs), torch.from_numpy(inputs.graph_of),
                     torch.from_numpy(inputs.entity_nodes), inputs.k, pa, pb, torch.from_numpy(inputs.pair[a, b]), gold[pa] & gold[pb], gold)


def _batch_loss(net: LinkNet, pools: Sequence[_Prepared]) -> Tensor:
    """:func:`~cage_core.link_model.link_loss` of several pools stacked into one graph batch."""
    xs, graph_of, pair_a, pair_b, feats, positive, golds = [], [], [], [], [], [], []
    width = max(p.entity_nodes.shape[1] for p in pools)
    entity_nodes = []
    by_relation: dict[int, tuple[list[Tensor], list[Tensor]]] = {}
    nodes = passages = 0
    for p in pools:
        xs.append(p.x)
        graph_of.append(p.graph_of + passages)
        padded = torch.full((p.k, width), -1, dtype=torch.int64)
        padded[:, : p.entity_nodes.shape[1]] = torch.where(p.entity_nodes >= 0, p.entity_nodes + nodes, -1)
        entity_nodes.append(padded)
        pair_a.append(p.pair_a + passages)
        pair_b.append(p.pair_b + passages)
        feats.append(p.pair_features)
        positive.append(p.positive)
        golds.append(p.gold)
        for r, targets, sums in p.aggregated:
            t, s = by_relation.setdefault(r, ([], []))
            t.append(targets + nodes)
            s.append(sums)
        nodes += p.x.shape[0]
        passages += p.k
    aggregated = [(r, torch.cat(t), torch.cat(s)) for r, (t, s) in sorted(by_relation.items())]
    a, b = torch.cat(pair_a), torch.cat(pair_b)
    logits = net(torch.cat(xs), aggregated, torch.cat(graph_of), torch.cat(entity_nodes), a, b,
                 torch.cat(feats))
    gold = torch.cat(golds)
    pair_ids = torch.arange(len(a))
    anchor = torch.cat([a, b])
    return link_loss(logits, torch.cat(positive), anchor, torch.cat([b, a]), torch.cat([pair_ids, pair_ids]),
                     gold[anchor])  # fmt: skip


def train_link_net(
    examples: Sequence[LinkExample], model_config: LinkModelConfig, training: LinkTrainingConfig,
) -> tuple[LinkNet, list[float]]:
    """Train a freshly seeded :class:`LinkNet` on ``examples``; returns it (in eval mode)
    and the mean training loss of each epoch (the first entry: before any step)."""
    net = LinkNet(model_config)
    net.reset_parameters(torch.Generator().manual_seed(training.seed))
    net.generator = torch.Generator().manual_seed(training.seed + 1)
    pools = [_prepare(e, net) for e in examples if e.inputs.k >= 2]
    rng = np.random.default_rng(training.seed)
    optimizer = torch.optim.Adam(net.parameters(), lr=training.learning_rate,
                                 weight_decay=training.weight_decay)  # fmt: skip
    size = training.batch_pools

    with torch.no_grad():
        losses = [_mean_loss(net.eval(), pools, size)]
    net.train()
    for epoch in range(training.epochs):
        order = rng.permutation(len(pools))
        total = 0.0
        for start in range(0, len(order), size):
            batch = [pools[n] for n in order[start:start + size]]
            optimizer.zero_grad(set_to_none=True)
            loss = _batch_loss(net, batch)
            loss.backward()
            optimizer.step()
            total += float(loss.detach()) * len(batch)
        losses.append(total / max(len(pools), 1))
        logger.info("%s epoch %d: loss %.4f", model_config.variant, epoch + 1, losses[-1])
    net.eval()
    net.generator = None
    return net, losses


def _mean_loss(net: LinkNet, pools: Sequence[_Prepared], size: int) -> float:
    if not pools:
        return 0.0
    total = sum(float(_batch_loss(net, pools[n:n + size])) * len(pools[n:n + size])
                for n in range(0, len(pools), size))  # fmt: skip
    return total / len(pools)


@dataclass(frozen=True)
class ScoredPool:
    """One held-out pool's metrics under every scorer."""

    dataset: str
    fold: int
    metrics: dict[str, LinkMetrics]


@dataclass(frozen=True)
class CrossValidation:
    """Per-pool results of :func:`cross_validate` and the training losses of each fold."""

    scorers: tuple[str, ...]
    pools: tuple[ScoredPool, ...]
    losses: dict[str, list[list[float]]] = field(default_factory=dict)
    seconds: float = 0.0

    def summary(self, *, fold: int | None = None, dataset: str | None = None) -> dict[str, LinkMetrics]:
        """Mean metrics per scorer over the pools of ``fold`` and/or ``dataset`` (all if None)."""
        chosen = [p for p in self.pools
                  if (fold is None or p.fold == fold) and (dataset is None or p.dataset == dataset)]
        return {s: mean_metrics([p.metrics[s] for p in chosen]) for s in self.scorers}


def reference_scores(example: LinkExample) -> dict[str, np.ndarray]:
    """The untrained scorers: the hand-built links and the relevance reference."""
    sims = example.similarities
    relevance = sims[:, None] + sims[None, :]
    np.fill_diagonal(relevance, 0.0)
    return {HANDBUILT: example.handbuilt, RELEVANCE: relevance}


def cross_validate(
    examples: Sequence[LinkExample], variants: Sequence[LinkModelConfig], training: LinkTrainingConfig,
    folds: int,
) -> CrossValidation:
    """Train each variant on all folds but one and score the held-out fold (module docstring)."""
    start = time.perf_counter()
    fold_of = assign_folds(examples, folds, training.seed)
    scorers = (HANDBUILT, *(v.variant for v in variants), RELEVANCE)
    results: list[ScoredPool] = []
    losses: dict[str, list[list[float]]] = {v.variant: [] for v in variants}
    for f in range(folds):
        train = [e for e, g in zip(examples, fold_of) if g != f]
        test = [e for e, g in zip(examples, fold_of) if g == f]
        trained = {}
        for v in variants:
            net, history = train_link_net(train, v, training)
            losses[v.variant].append(history)
            trained[v.variant] = LinkModel(net)
        for e in test:
            scores = reference_scores(e)
            scores.update({name: model.score_inputs(e.inputs) for name, model in trained.items()})
            metrics = {s: LinkMetrics.of(scores[s], e.gold, e.similarities) for s in scorers}
            results.append(ScoredPool(e.dataset, f, metrics))
        logger.info("fold %d/%d done (%.0f s)", f + 1, folds, time.perf_counter() - start)
    return CrossValidation(scorers, tuple(results), losses, time.perf_counter() - start)


def _fmt(value: float) -> str:
    return "  -  " if math.isnan(value) else f"{value:.3f}"


_COLUMNS = "| pair AP | pair AUC | hop@1 | rescue@1 |"


def _row(m: LinkMetrics) -> str:
    return f"{_fmt(m.ap)} | {_fmt(m.auc)} | {_fmt(m.hop)} | {_fmt(m.rescue)} |"


def format_report(cv: CrossValidation) -> str:
    """Markdown tables: per fold (all datasets), then per dataset (all folds)."""
    lines = [f"| fold | n | scorer {_COLUMNS}", "|---|---|---|---|---|---|---|"]
    folds = sorted({p.fold for p in cv.pools})
    for f in [*folds, None]:
        n = sum(1 for p in cv.pools if f is None or p.fold == f)
        for scorer, m in cv.summary(fold=f).items():
            lines.append(f"| {'all' if f is None else f + 1} | {n} | {scorer} | {_row(m)}")
    lines += ["", f"| dataset | n | scorer {_COLUMNS}", "|---|---|---|---|---|---|---|"]
    for d in sorted({p.dataset for p in cv.pools}):
        n = sum(1 for p in cv.pools if p.dataset == d)
        for scorer, m in cv.summary(dataset=d).items():
            lines.append(f"| {d} | {n} | {scorer} | {_row(m)}")
    return "\n".join(lines)
