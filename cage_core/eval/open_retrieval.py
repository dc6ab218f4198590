"""The open setting of ``cage eval``: a corpus, a first-stage retriever, then the rankers.

The benchmark files give each question its own closed pool with the gold passages always in
it. Users run a reranker after a retriever over their own corpus instead; this measures that.
For each evaluation file:

1. **Corpus** (:mod:`cage_core.eval.corpus`): the distinct passages of the pools of *all* the
   file's questions (``limit`` limits the questions evaluated, never the corpus), or the
   passages of one corpus file shared by every evaluation file. Without titles
   (``titles=False``) every passage has ``title=""`` in the corpus, the retrieval and the
   ranking.
2. **Embeddings**: each corpus passage is embedded once per run
   (:meth:`CageReranker.passage_embeddings <cage_core.reranker.CageReranker.passage_embeddings>`,
   so with a graph store they are kept in its embeddings table across runs), the questions
   once per file.
3. **Retrieval** (:mod:`cage_core.eval.corpus_retrieval`): the top ``k`` corpus passages of
   each question by cosine, BM25 or hybrid.
4. **Expansion** (optional, a separate step): passages the link index
   (:mod:`cage_core.expansion.index`) reaches from the retrieved ones join the pool after them,
   in the index's order.
5. **Ranking**: the pool — retrieval order, expansions last — with each passage's query
   cosine as the pool similarity and each corpus passage's graph computed once per run (the
   graph store works here too); every method ranks it with :func:`~cage_core.eval.runner.rank_pool`.

Gold: the question's gold passages as corpus indices (:meth:`Corpus.find
<cage_core.eval.corpus.Corpus.find>`); one the corpus lacks (possible with a corpus file)
counts as missed. With a corpus file, a question whose ``meta`` lists its gold by corpus id
(``gold_chunk_ids``, then ``gold_ids``: the first list that is non-empty and found whole in
the corpus, :data:`GOLD_ID_KEYS`) is matched by id instead — text can recur in other
documents —, and a question none of whose lists the corpus holds is left out (logged: a
claim without chunk-level evidence has no gold among the chunks). RAMDocs ``misinfo`` labels are
mapped the same way. The first stage's recall (:class:`~cage_core.eval.runner.RetrievalOutcome`) is
the ceiling of every method.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cage_core.eval.corpus import Corpus, corpus_from_pools, load_corpus
from cage_core.eval.corpus_retrieval import CorpusRetriever, Retriever
from cage_core.eval.datasets import EvalQuestion, load_questions
from cage_core.eval.metrics import all_gold_in_top_k, recall_at_k
from cage_core.eval.open_routing import CorpusDocuments, RoutedPools
from cage_core.eval.runner import (
    DEFAULT_KS,
    DatasetRun,
    EvalRun,
    OpenSetting,
    RetrievalOutcome,
    rank_pool,
    resolve_data_paths,
)
from cage_core.expansion.index import DEFAULT_LIMIT, DEFAULT_SEEDS, LinkIndex
from cage_core.expansion.routing import RoutingSettings, route_question
from cage_core.graphs.passage_graph import PassageGraph
from cage_core.methods.base import Pool, RankingMethod
from cage_core.names.routes import DocumentRoute
from cage_core.reranker import CageReranker
from cage_core.scoring import cosine_matrix

__all__ = [
    "DEFAULT_OPEN_K",
    "GOLD_ID_KEYS",
    "CorpusState",
    "ExpansionSettings",
    "expand_pool",
    "gold_ids_in_corpus",
    "gold_in_corpus",
    "misinfo_in_corpus",
    "run_open_evaluation",
]

logger = logging.getLogger(__name__)

DEFAULT_OPEN_K = 20
"""Passages retrieved per question (the issue's setting)."""


@dataclass(frozen=True)
class ExpansionSettings:
    """Bounds of the multi-hop expansion step (passed to ``LinkIndex.expand``).

    seeds: how many of the retrieved passages (best first) expansion starts from.
    limit: at most this many passages join each pool.
    routing: how questions that name documents are routed
        (:mod:`cage_core.eval.open_routing`); ``None``: not routed.
    """

    seeds: int = DEFAULT_SEEDS
    limit: int = DEFAULT_LIMIT
    routing: RoutingSettings | None = field(default_factory=RoutingSettings)

    def __post_init__(self) -> None:
        if self.routing is not None and not isinstance(self.routing, RoutingSettings):
            raise TypeError(
                f"expansion routing must be RoutingSettings or None, got {self.routing!r}"
            )
        for name in ("seeds", "limit"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"expansion {name} must be an integer >= 1, got {value!r}")


class CorpusState:
    """What is computed once per corpus: embeddings, graphs and (lazily) the link index."""

    def __init__(self, corpus: Corpus, reranker: CageReranker) -> None:
        self.corpus = corpus
        start = time.perf_counter()
        self.embeddings = np.asarray(
            reranker.passage_embeddings([p.content for p in corpus.passages]), dtype=np.float64
        )
        self._embed_seconds = time.perf_counter() - start
        self.graphs: dict[int, PassageGraph] = {}
        self.link_index: LinkIndex | None = None
        self._documents: CorpusDocuments | None = None
        self._reranker = reranker

    @property
    def documents(self) -> CorpusDocuments:
        """The corpus's documents and their records (built on first use)."""
        if self._documents is None:
            self._documents = CorpusDocuments(self.corpus)
        return self._documents

    def take_embed_seconds(self) -> float:
        """The corpus's embedding time, once (charged to the first file using the corpus)."""
        seconds, self._embed_seconds = self._embed_seconds, 0.0
        return seconds

    def ensure_graphs(self, indices: Sequence[int], *, full: bool) -> float:
        """Parse (or fetch) the graphs of the corpus passages ``indices`` not yet held;
        returns the seconds it took."""
        missing = sorted({int(i) for i in indices} - set(self.graphs))
        if not missing:
            return 0.0
        start = time.perf_counter()
        made = self._reranker.graphs(
            [self.corpus.passages[i] for i in missing],
            level="full" if full else "light",
            with_vectors=full,
        )
        self.graphs.update(zip(missing, made))
        return time.perf_counter() - start

    def ensure_link_index(self) -> LinkIndex:
        """The link index over every corpus passage, built on first use (graphs must be held)."""
        if self.link_index is None:
            self.link_index = LinkIndex.build(
                (p.id or str(i), p, self.graphs[i]) for i, p in enumerate(self.corpus.passages)
            )
        return self.link_index


def expand_pool(
    link_index: LinkIndex,
    corpus: Corpus,
    query: str,
    retrieved: Sequence[int],
    settings: ExpansionSettings,
) -> list[int]:
    """The expansion step: corpus indices of the passages ``link_index`` reaches from the
    ``retrieved`` ones (``LinkIndex.expand``), in its order, without those already in the pool."""
    found = link_index.expand(
        query, [corpus.ids[i] for i in retrieved], seeds=settings.seeds, limit=settings.limit
    )
    taken = set(retrieved)
    out: list[int] = []
    for expansion in found:
        index = corpus.position(expansion.id)
        if index is None:
            raise ValueError(f"the link index returned an id outside the corpus: {expansion.id!r}")
        if index not in taken:
            taken.add(index)
            out.append(index)
    return out


def run_open_evaluation(
    paths: Sequence[str | Path],
    methods: Sequence[RankingMethod],
    *,
    reranker: CageReranker | None = None,
    k: int = DEFAULT_OPEN_K,
    corpus_path: str | Path | None = None,
    titles: bool = True,
    retriever: Retriever = "cosine",
    expansion: ExpansionSettings | None = None,
    ks: Sequence[int] = DEFAULT_KS,
    limit: int | None = None,
    generator: Any = None,
    progress: Callable[[int, str], None] | None = None,
) -> EvalRun:
    """Evaluate ``methods`` in the open setting (see the module docstring); ``expansion``
    turns on the expansion step."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"the open setting's k must be an integer >= 1, got {k!r}")
    reranker = reranker or CageReranker()
    run = EvalRun(methods=[m.name for m in methods], ks=tuple(sorted(set(ks))))
    need_graphs = any(m.needs_graphs for m in methods)
    full = any(getattr(m, "needs_vectors", False) for m in methods)
    shared = CorpusState(load_corpus(corpus_path, titles=titles), reranker) if corpus_path else None
    for path in resolve_data_paths(paths):
        all_questions = load_questions(path)
        questions = all_questions[:limit]
        if not questions:
            continue
        name = questions[0].dataset
        state = shared or CorpusState(corpus_from_pools(all_questions, titles=titles), reranker)
        corpus = state.corpus
        if shared is not None:
            kept = [q for q in questions if gold_ids_in_corpus(q, corpus) != ()]
            if len(kept) < len(questions):
                logger.warning(
                    "%s: %d questions left out: the corpus %s holds none of their gold ids",
                    name,
                    len(questions) - len(kept),
                    corpus.source,
                )
            questions = kept
            if not questions:
                continue
        start = time.perf_counter()
        query_vectors = np.asarray(
            reranker.embedder([q.question for q in questions]), dtype=np.float64
        )
        cosines = cosine_matrix(query_vectors, state.embeddings)
        embed_seconds = time.perf_counter() - start + state.take_embed_seconds()
        start = time.perf_counter()
        first_stage = CorpusRetriever(
            [p.content for p in corpus.passages], cosines, retriever, reranker.config.lexical_weight
        )
        retrieved = [first_stage.top(row, q.question, k) for row, q in enumerate(questions)]
        retrieve_seconds = time.perf_counter() - start
        parse_seconds = expand_seconds = index_seconds = 0.0
        expansions: list[list[int]] = [[] for _ in questions]
        if expansion is not None:
            parse_seconds += state.ensure_graphs(range(len(corpus)), full=full)
            start = time.perf_counter()
            link_index = state.ensure_link_index()
            index_seconds = time.perf_counter() - start
            start = time.perf_counter()
            expansions = [
                expand_pool(link_index, corpus, q.question, ids, expansion)
                for q, ids in zip(questions, retrieved)
            ]
            expand_seconds += time.perf_counter() - start
        pools = [ids + extra for ids, extra in zip(retrieved, expansions)]
        routes = [DocumentRoute((), q.question) for q in questions]
        routed = RoutedPools({}, {})
        if expansion is not None and expansion.routing is not None:
            start = time.perf_counter()
            names = state.documents.names
            routes = [route_question(q.question, names, expansion.routing) for q in questions]
            shortened = [route.question for route in routes if route]
            if shortened:
                vectors = np.asarray(reranker.embedder(shortened), dtype=np.float64)
                routed = RoutedPools.build(
                    routes,
                    pools,
                    state.documents,
                    cosine_matrix(vectors, state.embeddings),
                    expansion.routing.chunks,
                )
                pools = [routed.pools.get(row, pool) for row, pool in enumerate(pools)]
            expand_seconds += time.perf_counter() - start
        if need_graphs:
            parse_seconds += state.ensure_graphs([i for ids in pools for i in ids], full=full)
        golds = [gold_in_corpus(q, corpus) for q in questions]
        missing_gold = sum(1 for gold in golds for g in gold if g < 0)
        if missing_gold:
            logger.warning(
                "%s: %d gold passages are not in the corpus %s (counted as missed)",
                name,
                missing_gold,
                corpus.source,
            )
        run.datasets[name] = DatasetRun(
            name,
            len(questions),
            parse_seconds,
            embed_seconds,
            shuffled=False,
            titles=titles,
            open=OpenSetting(
                corpus_source=corpus.source,
                corpus_size=len(corpus),
                retriever=retriever,
                k=k,
                expand=expansion is not None,
                gold_outside_corpus=missing_gold,
                retrieve_seconds=retrieve_seconds,
                expand_seconds=expand_seconds,
                index_seconds=index_seconds,
                routed=sum(1 for route in routes if route),
            ),
        )
        logger.info(
            "%s: %d questions, corpus of %d passages, embedded in %.1fs, retrieved in "
            "%.1fs, parsed in %.1fs",
            name,
            len(questions),
            len(corpus),
            embed_seconds,
            retrieve_seconds,
            parse_seconds,
        )
        for row, (q, ids, gold) in enumerate(zip(questions, pools, golds)):
            run.retrieval.append(_outcome(q, gold, retrieved[row], ids))
            route = routes[row]
            similarities = routed.similarities.get(row)
            pool = Pool(
                query=route.question,
                passages=[corpus.passages[i] for i in ids],
                similarities=(cosines[row] if similarities is None else similarities)[ids],
                key=q.id,
                graphs=[state.graphs[i] for i in ids] if need_graphs else None,
                passage_vectors=state.embeddings[ids],
                named=np.array([corpus.passages[i].doc_id in route.doc_ids for i in ids])
                if route
                else None,
            )
            misinfo = misinfo_in_corpus(q, corpus)
            run.results.extend(rank_pool(methods, pool, q, gold, misinfo, run.ks, generator, ids))
            if progress is not None:
                progress(1, name)
    return run


GOLD_ID_KEYS = ("gold_chunk_ids", "gold_ids")
"""Keys of ``EvalQuestion.meta`` that may list a question's gold passages by corpus id, in the
order they are tried (chunk-level gold before document-level)."""


def gold_ids_in_corpus(q: EvalQuestion, corpus: Corpus) -> tuple[int, ...] | None:
    """The sorted corpus indices of the first list of :data:`GOLD_ID_KEYS` in ``q.meta`` that
    is non-empty and whose ids the corpus holds, all of them; ``None`` when ``q.meta`` has no
    such key (match by content), ``()`` when it has one but the corpus holds none of its lists."""
    lists = [q.meta[key] for key in GOLD_ID_KEYS if isinstance(q.meta.get(key), list)]
    if not lists:
        return None
    for ids in lists:
        found = [corpus.position(str(i)) for i in ids]
        if found and all(i is not None for i in found):
            return tuple(sorted({i for i in found if i is not None}))
    return ()


def gold_in_corpus(q: EvalQuestion, corpus: Corpus) -> tuple[int, ...]:
    """The corpus indices of ``q``'s gold passages, sorted; ``-1, -2, …`` for those the corpus
    lacks (never retrieved, but counted). Gold listed by id (:func:`gold_ids_in_corpus`)
    comes first."""
    by_id = gold_ids_in_corpus(q, corpus) if corpus.source != "pools" else None
    if by_id:
        return by_id
    found: set[int] = set()
    missing = 0
    for p in q.passages:
        if p.gold:
            index = corpus.find(p)
            if index is None:
                missing += 1
            else:
                found.add(index)
    return tuple(sorted(found)) + tuple(-(i + 1) for i in range(missing))


def misinfo_in_corpus(q: EvalQuestion, corpus: Corpus) -> tuple[int, ...] | None:
    labels = q.meta.get("doc_labels")
    if not isinstance(labels, list) or len(labels) != len(q.passages):
        return None
    ids = (corpus.find(p) for p, label in zip(q.passages, labels) if label == "misinfo")
    return tuple(sorted({i for i in ids if i is not None}))


def _outcome(
    q: EvalQuestion, gold: tuple[int, ...], retrieved: list[int], pool: list[int]
) -> RetrievalOutcome:
    return RetrievalOutcome(
        dataset=q.dataset,
        question_id=q.id,
        type=q.type,
        retrieved=len(retrieved),
        pool_size=len(pool),
        retrieved_recall=recall_at_k(retrieved, gold, len(retrieved)),
        pool_recall=recall_at_k(pool, gold, len(pool)),
        all_gold_retrieved=all_gold_in_top_k(retrieved, gold, len(retrieved)),
        all_gold_in_pool=all_gold_in_top_k(pool, gold, len(pool)),
    )
