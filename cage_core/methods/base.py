"""The small protocol every ranking method implements, and the pool it ranks.

A :class:`Pool` is one query with its candidate passages and everything a method may
need that is computed once and shared: the query–passage similarities and, when some
method needs them, the passage graphs. A method returns one score per passage (higher is
better); ranking, ``top_n`` and evaluation are done by the caller.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from cage_core.graph.passage_graph import PassageGraph
from cage_core.passage import Passage


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
    memo: dict[Any, Any] = field(default_factory=dict)
    """Scratch space shared by the methods ranking this pool (e.g. one encoding reused)."""


@runtime_checkable
class RankingMethod(Protocol):
    """A reranker: ``score(pool) -> [k]`` scores in input order, higher is better."""

    name: str
    needs_graphs: bool

    def score(self, pool: Pool) -> np.ndarray: ...
