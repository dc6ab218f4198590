"""The steps of one rerank call that both framework wrappers take the same way
(:class:`cage_langchain.CageRerank` and :class:`cage_llamaindex.CageRerank`).

Each wrapper turns its framework's objects into passages and chooses where the similarities
come from; the rest is here, once: the core reranker built from the wrapper's settings on
first use (:func:`lazy_reranker`), the pool checked once with the route it carries for the
query (:func:`routed_pool`), the similarities of a routed pool (:func:`routed_similarities`),
the pool embedded when no similarity was given, timed and warned about once
(:func:`embedded_similarities`), and the ranked results with the 0–1 score and the metadata
each returned document or node carries (:func:`scored_rerank`, :func:`ranked_items`).
:func:`embedded_similarities` is a generator of :mod:`cage_core.integrations.steps`, so one
implementation serves a wrapper's sync and async calls.

The score (:func:`cage_core.relevance.pool_relevance`) reads the maximum similarity of the
whole pool and the question's words one passage of the whole pool holds
(:func:`~cage_core.ranking.pool_bm25.query_word_coverage`), not those of the ``top_n``
returned: a passage the ranking placed below ``top_n`` can be the pool's best match. When the
pool has no similarities, :func:`scored_rerank` computes them by the reranker's own
:meth:`~cage_core.CageReranker.pool_similarities` (what ``rank_pool`` would compute from them,
so the ranking is the same). A routed pool (the documents the question names,
:mod:`cage_core.integrations.document_routing`) is ranked for its ``question``, the question
less their naming words, and similarities computed there are that question's; the coverage
reads the question as asked (``query``), naming words included, and counts those words as held
by every passage of a named document
(:func:`~cage_core.ranking.pool_bm25.named_word_coverage`). Its best similarity is the better
of that question's and, where the wrapper has them (the retriever's own scores of the pool,
``CheckedPool.asked_similarities``), the question as asked's: routing changes what the pool is
ranked for, not the evidence that it answers the question (:func:`evidence_similarities`).

**The fallback warning.** The rerank step costs milliseconds when the retriever hands on its
own query similarities, and embedding the query and every retrieved passage again when it does
not (0.7–1.8 s a query for 20 chunks with MiniLM on a CPU, 85–244× the scored step, as measured
for issue 27; ``python benchmarks/claims/real_pipelines.py`` measures it as "langchain-plain").
That slow path is legal (a retriever with no scores) but rarely meant, so each reranker
instance says so once, at WARNING (:func:`warn_once`), with what the embedding cost on the call
that found it and how to avoid it (:func:`fallback_message`); a caller who asks for embedding
on purpose (LangChain ``score_key=None``, LlamaIndex ``similarity_source="embed"``) is not
warned.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from cage_core.call_checks import CheckedPool, check_top_n
from cage_core.config import CageConfig
from cage_core.graphs.passage_graph import PassageGraph
from cage_core.integrations.document_routing import named_metadata, pool_route, route_similarities
from cage_core.integrations.steps import Call, Steps
from cage_core.metadata import ranked_metadata
from cage_core.names.routes import DocumentRoute
from cage_core.passage import PassageLike, RankedPassage
from cage_core.ranking.pool_bm25 import named_word_coverage, query_word_coverage
from cage_core.relevance import pool_relevance
from cage_core.reranker import CageReranker, configured_reranker

__all__ = [
    "RankedItem",
    "RerankSettings",
    "embedded_similarities",
    "evidence_similarities",
    "fallback_message",
    "lazy_reranker",
    "pool_coverage",
    "ranked_items",
    "routed_pool",
    "routed_similarities",
    "scored_rerank",
    "warn_once",
]

_warn_lock = threading.Lock()


class RerankSettings(Protocol):
    """The settings both wrappers share, where they keep their core reranker (a private
    attribute: it pickles as ``None``,
    :func:`~cage_core.integrations.pickled_state.without_private_attributes`), and whether
    they have warned of the fallback (:func:`warn_once`; plain bool attributes, so they pickle
    and deep-copy)."""

    _reranker: CageReranker | None
    _warned_fallback: bool
    config: CageConfig
    alpha: float | None
    spacy_model: str | None
    method: str
    max_pool: int | None
    top_n: int | None
    graph_key: str
    integrity_key: Any


def fallback_message(owner: str, reason: str, count: int, seconds: float, fix: str) -> str:
    """The fallback warning's text: what was missing, the measured cost, and the fix."""
    return (
        f"{owner}: {reason}, so the query and {count} passages were embedded to get the "
        f"similarity ({1e3 * seconds:.0f} ms on this call; with the retriever's scores the "
        f"rerank step embeds nothing). {fix} (warned once per {owner})"
    )


def warn_once(
    owner: RerankSettings, logger: logging.Logger, message: str, flag: str = "_warned_fallback"
) -> bool:
    """Log ``message`` at WARNING the first time for ``owner`` (thread-safe); whether it did.
    ``flag``: the owner's bool attribute that remembers it (another warning, another flag)."""
    with _warn_lock:
        if getattr(owner, flag):
            return False
        setattr(owner, flag, True)
    logger.warning("%s", message)
    return True


def lazy_reranker(owner: RerankSettings) -> CageReranker:
    """``owner``'s core reranker, created on first use (:func:`~cage_core.reranker.
    configured_reranker`: ``alpha`` overrides ``config.alpha`` when set; models are shared
    per process)."""
    if owner._reranker is None:
        owner._reranker = configured_reranker(
            owner.config,
            alpha=owner.alpha,
            nlp=owner.spacy_model,
            method=owner.method,
            max_pool=owner.max_pool,
        )
    return owner._reranker


def routed_pool(
    owner: RerankSettings,
    query: str,
    passages: Sequence[PassageLike],
    metadatas: Sequence[Mapping[str, Any]],
) -> tuple[CheckedPool, DocumentRoute | None]:
    """The call's pool, converted and checked once, and the route its ``metadatas`` carry for
    ``query`` (:func:`~cage_core.integrations.document_routing.pool_route`), which the pool
    holds as its question and named passages; the route itself names the documents in the
    output's metadata (:func:`ranked_items`)."""
    route = pool_route(metadatas, query)
    return lazy_reranker(owner).checked_pool(query, passages, route=route), route


def routed_similarities(
    metadatas: Sequence[Mapping[str, Any]], items: str
) -> tuple[np.ndarray | None, str]:
    """A routed pool's similarities, its ``cage_route_score`` values, or ``None`` and why
    (``items``: what the wrapper calls its passages, ``"documents"`` or ``"nodes"``)."""
    sims = route_similarities(metadatas)
    return sims, "" if sims is not None else f"the routed {items} came without cage_route_score"


def embedded_similarities(
    owner: RerankSettings,
    logger: logging.Logger,
    pool: CheckedPool,
    reason: str,
    fix: str,
    embed: Steps[np.ndarray] | None = None,
) -> Steps[np.ndarray]:
    """The similarities of ``pool`` embedded: by ``embed`` (the caller's own embeddings), else
    by the reranker's model (loaded first, outside the measured time). With a ``reason`` (why
    no similarity was given; ``""``: embedding was asked for), the first call of ``owner``
    logs the fallback warning with the measured cost and ``fix``
    (module docstring)."""
    reranker = lazy_reranker(owner)
    if embed is None:
        yield Call(lambda: reranker.embedder)
    start = time.perf_counter()
    if embed is None:
        sims = yield Call(lambda: reranker.pool_similarities(pool))
    else:
        sims = yield from embed
    if reason:
        seconds = time.perf_counter() - start
        message = fallback_message("CageRerank", reason, len(pool.passages), seconds, fix)
        warn_once(owner, logger, message)
    return sims


@dataclass(frozen=True)
class RankedItem:
    """One ranked result of a call: the position of its document or node in the caller's
    pool, the copy of its metadata with the scores (:func:`~cage_core.metadata.
    ranked_metadata`) and, in a routed pool, why it is there (:func:`~cage_core.integrations.
    document_routing.named_metadata`), and its 0–1 score."""

    index: int
    metadata: dict[str, Any]
    score: float


def ranked_items(
    owner: RerankSettings,
    pool: CheckedPool,
    metadatas: Sequence[dict[str, Any]],
    route: DocumentRoute | None,
) -> list[RankedItem]:
    """The ``owner.top_n`` best of ``pool`` (:func:`scored_rerank`), ranked with the graphs
    stored under ``metadatas[i][owner.graph_key]`` that are usable (built from that very
    passage, valid under ``owner.integrity_key`` when given)."""
    reranker = lazy_reranker(owner)
    graphs = reranker.graph_service.stored(
        [m.get(owner.graph_key) for m in metadatas],
        pool.passages,
        integrity_key=owner.integrity_key,
    )
    out = []
    for r, score in scored_rerank(reranker, pool, owner.top_n, graphs):
        metadata = ranked_metadata(metadatas[r.index], r, score)
        if route:
            metadata = named_metadata(metadata, pool.passages[r.index].doc_id, route)
        out.append(RankedItem(r.index, metadata, score))
    return out


def scored_rerank(
    reranker: CageReranker,
    pool: CheckedPool,
    top_n: int | None,
    graphs: Sequence[PassageGraph | None] | None = None,
) -> list[tuple[RankedPassage, float]]:
    """``reranker.rank_pool`` of ``pool``, each result with its
    :func:`~cage_core.relevance.pool_relevance` score (module docstring)."""
    top_n = check_top_n(top_n)
    if pool.similarities is None and pool.passages:
        pool = pool.with_similarities(reranker.pool_similarities(pool))
    ranked = reranker.rank_pool(pool, top_n, graphs)
    if not ranked:
        return []
    assert pool.similarities is not None  # ranked passages came from a pool with similarities
    evidence = evidence_similarities(pool)
    scores = pool_relevance([r.score for r in ranked], evidence, pool_coverage(pool))
    return [(r, float(score)) for r, score in zip(ranked, scores)]


def evidence_similarities(pool: CheckedPool) -> np.ndarray:
    """The similarities whose maximum the score's evidence reads (module docstring): the
    pool's, and a routed pool's for the question as asked where it has them."""
    assert pool.similarities is not None  # scored pools only
    if pool.asked_similarities is None:
        return pool.similarities
    return np.concatenate([pool.similarities, pool.asked_similarities])


def pool_coverage(pool: CheckedPool) -> float:
    """The question's words one passage of the whole ``pool`` holds, as the score reads them
    (module docstring): :func:`~cage_core.ranking.pool_bm25.query_word_coverage` of its query,
    or of a routed pool :func:`~cage_core.ranking.pool_bm25.named_word_coverage`."""
    texts = [p.content for p in pool.passages]
    if pool.named is None:
        return query_word_coverage(pool.query, texts)
    return named_word_coverage(pool.query, pool.question, texts, pool.named)
