"""Run ranking methods over evaluation files, doing the shared work once.

For each file: every question and passage is embedded once (all-MiniLM-L6-v2 unless the
reranker has another embedder) and, if any method needs graphs, every passage is parsed
once; all methods then rank the same pools. Pools of RAMDocs are shuffled with a fixed seed
first (its source order leaks the gold position); ``shuffle="always"``/``"never"`` override.
Latency is the time of ``method.score`` on one pool, plus the seconds of the encodings it
reused from another variant with the same encoder (``Pool.encodings``), so every CAGE row
pays for its own encoding. ``titles=False`` drops every passage's title (from its content and
its metadata) before anything is embedded or parsed. A passage's ``doc_id`` / ``position``
(:mod:`cage_core.eval.datasets`) are kept, whatever the shuffle: a pool of chunks that share a
document is ranked with the document view, as the framework rerankers rank it.

The open setting (a corpus, a retriever, then these pools) is
:mod:`cage_core.eval.open_retrieval`; it ranks its pools with :func:`rank_pool` too.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np

from cage_core.eval.datasets import EvalPassage, EvalQuestion, load_questions
from cage_core.eval.generation import generate_answer
from cage_core.eval.metrics import (
    all_gold_in_top_k,
    exact_match,
    flagged_in_top_k,
    recall_at_k,
    token_f1,
)
from cage_core.methods.base import Pool, RankingMethod
from cage_core.methods.scores import pool_scores
from cage_core.paper.encodings import EncodingCache
from cage_core.passage import Passage
from cage_core.ranking.named_documents import named_pool_order, reads_as_asked
from cage_core.reranker import CageReranker
from cage_core.scoring import cosine_matrix, ranking

__all__ = [
    "ANSWER_CONTEXT",
    "DEFAULT_KS",
    "SHUFFLED_BY_DEFAULT",
    "DatasetRun",
    "EvalRun",
    "OpenSetting",
    "QuestionResult",
    "RetrievalOutcome",
    "Shuffle",
    "pool_permutation",
    "pool_similarities",
    "rank_pool",
    "resolve_data_paths",
    "run_evaluation",
]

logger = logging.getLogger(__name__)

Shuffle = Literal["auto", "always", "never"]
SHUFFLED_BY_DEFAULT = frozenset({"ramdocs"})
ANSWER_CONTEXT = 5
"""Passages given to the generator (the paper's top-5)."""
DEFAULT_KS: tuple[int, ...] = (1, 2, 3, 5)
"""The cut-offs of Recall@k and all-gold@k reported by default."""


@dataclass(frozen=True)
class QuestionResult:
    """One method's ranking of one question's pool and its metrics at each k.

    ``order`` and ``gold`` are pool positions in the closed setting and corpus indices in the
    open one (where a gold passage missing from the corpus is a negative number, so it counts
    in the recall's denominator and is never found)."""

    dataset: str
    question_id: str
    type: str | None
    method: str
    order: tuple[int, ...]
    gold: tuple[int, ...]
    recall: dict[int, float]
    all_gold: dict[int, bool]
    latency_s: float
    misinfo_in_top: dict[int, bool] | None = None
    answer: str | None = None
    em: float | None = None
    f1: float | None = None


@dataclass(frozen=True)
class OpenSetting:
    """How one file's pools were made in the open setting (see
    :mod:`~cage_core.eval.open_retrieval`)."""

    corpus_source: str
    corpus_size: int
    retriever: str
    k: int
    expand: bool
    gold_outside_corpus: int
    """Gold passages of the evaluated questions that the corpus does not hold."""
    retrieve_seconds: float
    expand_seconds: float = 0.0
    """Seconds of the expansion step over all questions (the link index's build excluded)."""
    index_seconds: float = 0.0
    """Seconds to build the link index (once per corpus; charged to the first file using it)."""
    routed: int = 0
    """Questions routed to the documents they name (:mod:`~cage_core.eval.open_routing`)."""


@dataclass(frozen=True)
class RetrievalOutcome:
    """Open setting: how much of one question's gold the first stage put in its pool.

    ``retrieved_recall`` is the retriever's Recall@K (the ceiling of every method's recall
    when the pool is the K retrieved); ``pool_recall`` the recall of the whole pool ranked
    (the K retrieved plus the expansions; equal to ``retrieved_recall`` without expansion).
    ``all_gold_*``: whether every gold passage is there."""

    dataset: str
    question_id: str
    type: str | None
    retrieved: int
    pool_size: int
    retrieved_recall: float
    pool_recall: float
    all_gold_retrieved: bool
    all_gold_in_pool: bool


@dataclass
class DatasetRun:
    name: str
    questions: int
    parse_seconds: float
    embed_seconds: float
    shuffled: bool
    titles: bool = True
    open: OpenSetting | None = None
    """The open setting's corpus and retriever; ``None`` for the benchmark's own pools."""


@dataclass
class EvalRun:
    methods: list[str]
    ks: tuple[int, ...]
    results: list[QuestionResult] = field(default_factory=list)
    datasets: dict[str, DatasetRun] = field(default_factory=dict)
    retrieval: list[RetrievalOutcome] = field(default_factory=list)
    """Open setting only: one first-stage outcome per question."""


def resolve_data_paths(items: Sequence[str | Path]) -> list[Path]:
    """Files as given; directories expand to their ``*.jsonl`` files, sorted."""
    paths: list[Path] = []
    for item in items:
        p = Path(item)
        if p.is_dir():
            found = sorted(p.glob("*.jsonl"))
            if not found:
                raise FileNotFoundError(f"no .jsonl files in {p}")
            paths.extend(found)
        elif p.is_file():
            paths.append(p)
        else:
            raise FileNotFoundError(f"no such file or directory: {p}")
    return paths


def pool_permutation(seed: int, key: str, k: int) -> np.ndarray:
    """The fixed shuffle of a pool of ``k`` passages keyed ``key`` (a question id) under
    ``seed``: ``cage eval``'s order of a shuffled file's pool (position n holds source passage
    ``perm[n]``), the same on every machine and run."""
    digest = hashlib.blake2b(f"shuffle:{seed}:{key}".encode(), digest_size=8).digest()
    return np.random.default_rng(int.from_bytes(digest, "little")).permutation(k)


def run_evaluation(
    paths: Sequence[str | Path],
    methods: Sequence[RankingMethod],
    *,
    reranker: CageReranker | None = None,
    ks: Sequence[int] = DEFAULT_KS,
    shuffle: Shuffle = "auto",
    titles: bool = True,
    seed: int = 0,
    limit: int | None = None,
    generator: Any = None,
    progress: Callable[[int, str], None] | None = None,
) -> EvalRun:
    """Evaluate ``methods`` on every file of ``paths`` (see the module docstring)."""
    reranker = reranker or CageReranker()
    run = EvalRun(methods=[m.name for m in methods], ks=tuple(sorted(set(ks))))
    need_graphs = any(m.needs_graphs for m in methods)
    need_vectors = any(getattr(m, "needs_vectors", False) for m in methods)
    for path in resolve_data_paths(paths):
        questions = load_questions(path)[:limit]
        if not questions:
            continue
        name = questions[0].dataset
        shuffled = shuffle == "always" or (shuffle == "auto" and name in SHUFFLED_BY_DEFAULT)
        perms = [
            (
                pool_permutation(seed, q.id, len(q.passages))
                if shuffled
                else np.arange(len(q.passages))
            )
            for q in questions
        ]
        pools_passages = [
            [_passage(q.passages[i], titles) for i in perm] for q, perm in zip(questions, perms)
        ]
        flat = [p for ps in pools_passages for p in ps]
        start = time.perf_counter()
        sims = pool_similarities(reranker, questions, pools_passages)
        embed_seconds = time.perf_counter() - start
        start = time.perf_counter()
        graphs = (
            reranker.graphs(
                flat, level="full" if need_vectors else "light", with_vectors=need_vectors
            )
            if need_graphs
            else None
        )
        parse_seconds = time.perf_counter() - start
        run.datasets[name] = DatasetRun(
            name, len(questions), parse_seconds, embed_seconds, shuffled, titles
        )
        logger.info(
            "%s: %d questions, embedded in %.1fs, parsed in %.1fs",
            name,
            len(questions),
            embed_seconds,
            parse_seconds,
        )
        offset = 0
        for q, perm, passages, (q_sims, vectors) in zip(questions, perms, pools_passages, sims):
            k = len(passages)
            pool = Pool(
                query=q.question,
                passages=passages,
                similarities=q_sims,
                key=q.id,
                graphs=graphs[offset : offset + k] if graphs is not None else None,
                passage_vectors=vectors,
            )
            offset += k
            position = {int(src): new for new, src in enumerate(perm)}
            gold = tuple(sorted(position[i] for i in q.gold_indices))
            misinfo = _misinfo_positions(q, position)
            run.results.extend(rank_pool(methods, pool, q, gold, misinfo, run.ks, generator))
            if progress is not None:
                progress(1, name)
    return run


def _passage(passage: EvalPassage, titles: bool) -> Passage:
    """The pool passage of a record's passage: its text, title (unless ``titles=False``) and
    document place (``doc_id`` / ``position``: :mod:`cage_core.eval.datasets`)."""
    title = passage.title if titles else ""
    return Passage(passage.text, title=title, doc_id=passage.doc_id, position=passage.position)


def pool_similarities(
    reranker: CageReranker, questions: list[EvalQuestion], pools: list[list[Passage]]
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per pool: the query–passage cosines and the passage embeddings."""
    texts = list(
        dict.fromkeys([q.question for q in questions] + [p.content for ps in pools for p in ps])
    )
    vectors = np.asarray(reranker.embedder(texts), dtype=np.float64)
    row = {t: i for i, t in enumerate(texts)}
    out = []
    for q, ps in zip(questions, pools):
        passage_vectors = vectors[[row[p.content] for p in ps]]
        out.append((cosine_matrix(vectors[[row[q.question]]], passage_vectors)[0], passage_vectors))
    return out


def _misinfo_positions(q: EvalQuestion, position: dict[int, int]) -> tuple[int, ...] | None:
    labels = q.meta.get("doc_labels")
    if not isinstance(labels, list) or len(labels) != len(q.passages):
        return None
    return tuple(position[i] for i, label in enumerate(labels) if label == "misinfo")


def rank_pool(
    methods: Sequence[RankingMethod],
    pool: Pool,
    q: EvalQuestion,
    gold: tuple[int, ...],
    misinfo: tuple[int, ...] | None,
    ks: tuple[int, ...],
    generator: Any = None,
    ids: Sequence[int] | None = None,
) -> list[QuestionResult]:
    """Every method's ranking of ``pool`` and its metrics against ``gold`` (and ``misinfo``).

    ``gold``, ``misinfo`` and the results' ``order`` are pool positions, or with ``ids``
    (one per pool passage) the ids of the passages, e.g. their corpus indices."""
    results = []
    for method in methods:
        reused_before = pool.encodings.reused_seconds
        start = time.perf_counter()
        if pool.named is None:
            scores = method.score(pool)
        else:
            parts = pool_scores(method, pool)
            asked = None
            if reads_as_asked(pool.named, pool.query, q.question):
                as_asked = replace(pool, query=q.question, named=None, encodings=EncodingCache())
                asked = pool_scores(method, as_asked)
            scores = named_pool_order(parts, pool.named, pool.passages, pool.query, asked)
        latency = time.perf_counter() - start + pool.encodings.reused_seconds - reused_before
        positions = [int(i) for i in ranking(scores)]
        order = tuple(positions if ids is None else (int(ids[i]) for i in positions))
        answer = em = f1 = None
        if generator is not None:
            answer = generate_answer(
                generator, q.question, [pool.passages[i] for i in positions[:ANSWER_CONTEXT]]
            )
            em, f1 = exact_match(answer, q.answers), token_f1(answer, q.answers)
        results.append(
            QuestionResult(
                dataset=q.dataset,
                question_id=q.id,
                type=q.type,
                method=method.name,
                order=order,
                gold=gold,
                recall={k: recall_at_k(order, gold, k) for k in ks},
                all_gold={k: all_gold_in_top_k(order, gold, k) for k in ks},
                latency_s=latency,
                misinfo_in_top=None
                if misinfo is None
                else {k: flagged_in_top_k(order, misinfo, k) for k in ks},
                answer=answer,
                em=em,
                f1=f1,
            )
        )
    return results
