"""The small protocol every ranking method implements, and the pool it ranks.

A :class:`Pool` is one query with its candidate passages and everything a method may
need that is computed once and shared: the query–passage similarities and, when some
method needs them, the passage graphs, the passage embeddings, edge types computed at ingest
and the R-GCN encodings. A method returns one score per passage (higher is better); ranking,
``top_n`` and evaluation are done by the caller. :func:`pool_scores` gives every method's
result in the reranker's :class:`~cage_core.ranking.pool_scores.PoolScores` form (it lives in
:mod:`cage_core.methods.scores`: this module is the protocol alone and imports no method's or
score's implementation).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from cage_core.paper.encodings import EncodingCache

if TYPE_CHECKING:
    from cage_core.graphs.passage_graph import PassageGraph
    from cage_core.passage import Passage
    from cage_core.ranking.pool_scores import PoolScores

__all__ = [
    "ExplainedMethod",
    "Pool",
    "RankingMethod",
]


@dataclass(eq=False)
class Pool:
    """One query's candidates and their shared, precomputed inputs."""

    query: str
    passages: list[Passage]
    similarities: np.ndarray
    """``[k]`` query–passage cosine similarities (the retriever's or MiniLM's)."""
    graphs: list[PassageGraph] | None = None
    key: str = ""
    """A stable id of the pool (e.g. the question id), used to seed random methods."""
    passage_vectors: np.ndarray | None = None
    """``[k, d]`` passage embeddings, when the caller has them (TEGR's edge similarity)."""
    tegr_edges: Mapping[tuple[int, int], str] | None = None
    """Edge types computed at ingest, by index pair ``(i, j)``, ``i < j`` (TEGR uses them
    instead of typing the candidates; see :func:`~cage_core.methods.tegr.inherit_chunk_edges`)."""
    encodings: EncodingCache = field(default_factory=EncodingCache)
    """R-GCN encodings of :attr:`graphs`, shared by the CAGE variants ranking this pool."""
    named: np.ndarray | None = None
    """``[k]`` whether each passage belongs to a document the question names (routing,
    :mod:`cage_core.expansion.routing`): those come first in every method's ranking
    (:func:`cage_core.ranking.named_documents.named_first`); ``None``: none named."""


@runtime_checkable
class RankingMethod(Protocol):
    """A reranker: ``score(pool) -> [k]`` scores in input order, higher is better.

    ``name`` and ``needs_graphs`` are read-only: a frozen dataclass's fields, plain class
    attributes and properties all implement them."""

    @property
    def name(self) -> str:
        """The method's name (as in ``cage eval`` reports)."""
        ...

    @property
    def needs_graphs(self) -> bool:
        """Whether :meth:`score` reads ``pool.graphs`` (the caller then parses them)."""
        ...

    def score(self, pool: Pool) -> np.ndarray: ...


@runtime_checkable
class ExplainedMethod(RankingMethod, Protocol):
    """A method whose scores decompose into relevance and coherence (CAGE and its variants)."""

    def pool_scores(self, pool: Pool) -> PoolScores: ...
