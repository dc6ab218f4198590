"""Ray Data support: passage-graph enrichment and batch reranking with ``Dataset.map_batches``.

Install with ``pip install "cage-rag[ray]"``. Both classes are *callable classes*: Ray
creates one instance per actor, so the spaCy pipeline and the embedder load once per
worker, lazily, on the first batch.

>>> ds = ray.data.read_json("passages.jsonl")                                  # doctest: +SKIP
>>> ds = ds.map_batches(GraphEnricher, concurrency=2, batch_format="pandas")    # doctest: +SKIP

* :class:`GraphEnricher` adds a ``cage_graph`` column: ``PassageGraph.to_text()`` — the same
  compact, versioned JSON string the LangChain and LlamaIndex ingest transformers store — for
  each row's ``text`` (and optional ``title``).
* :class:`BatchReranker` reranks one query per row (``query``, ``passages``: a list of strings,
  optional ``similarities`` and ``graphs`` columns) and adds ``ranking`` (input indices, best
  first) and ``scores`` (fused scores in that order) columns. A row is the unit of work:
  coherence needs the whole pool.

Neither imports Ray: they run on plain pandas batches too, which is how the in-process
path and the tests check that both give the same results.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from cage_core.config import CageConfig
from cage_core.graphs.integrity import key_bytes, signed_text
from cage_core.graphs.passage_graph import GraphLevel
from cage_core.graphs.service import PassageGraphs
from cage_core.graphs.store import GraphStore
from cage_core.metadata import GRAPH_KEY
from cage_core.passage import Passage
from cage_core.reranker import CageReranker, required_graph_level

__all__ = [
    "GRAPH_COLUMN",
    "BatchReranker",
    "GraphEnricher",
]

GRAPH_COLUMN = GRAPH_KEY
"""The column of enriched rows holding each passage's stored graph (the metadata key)."""


def _config(config: CageConfig | dict[str, Any] | None) -> CageConfig:
    if config is None or isinstance(config, CageConfig):
        return config or CageConfig()
    return CageConfig(**config)


def _cells(batch: Any, column: str) -> list[Any]:
    if column not in batch:
        return []
    values = batch[column]
    return list(values.tolist() if hasattr(values, "tolist") else values)


class GraphEnricher:
    """``map_batches`` callable: add the passage graph (JSON text) of each row, at ``level``
    (default: the level ``config`` ranks with: light, or full for the R-GCN presets).

    With ``graph_store`` (the path of a :class:`~cage_core.graphs.store.GraphStore`), graphs
    already stored there are read instead of parsed, and parsed ones are stored: each actor
    fills the store through its own connection, and a rerun after a stop parses only what
    was not stored yet. With ``integrity_key`` (the secret the rerankers are given as
    theirs, :mod:`cage_core.graphs.integrity`) every graph written — the column and the
    store's entries — carries an HMAC under it, and only stored graphs with a valid one are
    read (others are parsed again). The key travels with the enricher to Ray's actors."""

    def __init__(
        self,
        config: CageConfig | dict[str, Any] | None = None,
        spacy_model: str | None = None,
        text_column: str = "text",
        title_column: str = "title",
        graph_column: str = GRAPH_COLUMN,
        level: GraphLevel | None = None,
        graph_store: str | os.PathLike[str] | None = None,
        integrity_key: bytes | str | None = None,
    ) -> None:
        self.config = _config(config)
        self.spacy_model = spacy_model
        self.level = level
        self.graph_store = graph_store
        self.integrity_key = key_bytes(integrity_key)
        self.text_column, self.title_column, self.graph_column = (
            text_column,
            title_column,
            graph_column,
        )
        self._graphs: PassageGraphs | None = None

    @property
    def graph_service(self) -> PassageGraphs:
        if self._graphs is None:  # one per actor, created with the first batch
            store = (
                None
                if self.graph_store is None
                else GraphStore(
                    self.graph_store,
                    integrity_key=self.integrity_key,
                    max_parse_chars=self.config.max_parse_chars,
                )
            )
            self._graphs = PassageGraphs(
                self.spacy_model,
                cache_size=0,
                store=store,
                max_parse_chars=self.config.max_parse_chars,
            )
        return self._graphs

    def __call__(self, batch: Any) -> Any:
        texts = _cells(batch, self.text_column)
        titles = _cells(batch, self.title_column) or [""] * len(texts)
        passages = [  # a missing text (None, NaN) is a TypeError, not the passage "None"
            Passage(t, title=ti if isinstance(ti, str) else "") for t, ti in zip(texts, titles)
        ]
        level = self.level or required_graph_level(self.config)
        graphs = self.graph_service.graphs(passages, level=level)
        batch[self.graph_column] = [signed_text(g, self.integrity_key) for g in graphs]
        return batch


class BatchReranker:
    """``map_batches`` callable: rerank each row's pool for its query. A row's ``graphs``
    (stored graph texts, as :class:`GraphEnricher` writes them) are used when they were built
    from its passages — and, with ``integrity_key``, carry a valid HMAC under it."""

    def __init__(
        self,
        config: CageConfig | dict[str, Any] | None = None,
        spacy_model: str | None = None,
        top_n: int | None = None,
        method: str = "cage",
        integrity_key: bytes | str | None = None,
    ) -> None:
        self.config = _config(config)
        self.spacy_model = spacy_model
        self.top_n = top_n
        self.method = method
        self.integrity_key = key_bytes(integrity_key)
        self._reranker: CageReranker | None = None

    @property
    def reranker(self) -> CageReranker:
        if self._reranker is None:
            self._reranker = CageReranker(self.config, nlp=self.spacy_model, method=self.method)
        return self._reranker

    def __call__(self, batch: Any) -> Any:
        queries = _cells(batch, "query")
        pools = _cells(batch, "passages")
        sims = _cells(batch, "similarities") or [None] * len(queries)
        stored = _cells(batch, "graphs") or [None] * len(queries)
        rankings, scores = [], []
        for query, pool, sim, graphs in zip(queries, pools, sims, stored):
            passages = list(_as_list(pool))  # not str(): a missing cell is no passage "None"
            graph_objs = None
            if graphs is not None:
                graph_objs = self.reranker.stored_graphs(
                    list(_as_list(graphs)), passages, integrity_key=self.integrity_key
                )
            ranked = self.reranker.rerank(
                query,  # a missing query (None, NaN) is a TypeError: not ranked for "None"
                passages,
                top_n=self.top_n,
                query_similarities=None if sim is None else list(_as_list(sim)),
                graphs=graph_objs,
            )
            rankings.append([r.index for r in ranked])
            scores.append([r.score for r in ranked])
        batch["ranking"] = rankings
        batch["scores"] = scores
        return batch


def _as_list(value: Any) -> Sequence[Any]:
    return value.tolist() if isinstance(value, np.ndarray) else list(value)
