"""GraphER (seed 003): enrichment-implied edges and personalised PageRank over the candidates.

GraphER enriches every object once, at indexing time, with metadata that implies edges;
CAGE's passage graphs already are that enrichment (titles and named entities, stored with
the object by the ingest transformers). At query time a graph over the candidates is built
from it — the bridge link matrix ``L`` of :mod:`cage_core.ranking.links` (title mentions and
shared named entities) — and ranked by personalised PageRank seeded by the retriever::

    p = softmax(z(sim) / τ)
    P_ij = L_ij / Σ_j L_ij      (a passage with no link jumps back to p)
    x ← (1 − d)·p + d·xP         (until it changes by < 1e-10, at most 200 iterations)

The score is x. d = 0.5 and τ = 0.5 were chosen on the DEV files (:class:`GraphERConfig`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from cage_core.config import WEIGHT, Flag, Ranges, Real, Validated
from cage_core.methods.base import Pool
from cage_core.ranking.links import link_matrix
from cage_core.scoring import standardize

__all__ = [
    "MAX_ITERATIONS",
    "TOLERANCE",
    "GraphERConfig",
    "GraphERMethod",
    "personalized_pagerank",
    "seed_distribution",
]

logger = logging.getLogger(__name__)

MAX_ITERATIONS = 200
TOLERANCE = 1e-10


def personalized_pagerank(
    links: np.ndarray, personalization: np.ndarray, damping: float
) -> np.ndarray:
    """Stationary scores of the walk above (sums to 1). If they still move by ``TOLERANCE``
    or more after ``MAX_ITERATIONS`` steps, the last iterate is returned and a warning logged
    (with damping below 1 the walk converges geometrically, so this signals bad input)."""
    p = np.asarray(personalization, dtype=np.float64)
    rows = links.sum(axis=1, keepdims=True)
    transition = np.where(rows > 0, links / np.where(rows > 0, rows, 1.0), p[None, :])
    x = p.copy()
    for _ in range(MAX_ITERATIONS):
        nxt = (1.0 - damping) * p + damping * (x @ transition)
        if np.abs(nxt - x).sum() < TOLERANCE:
            return nxt
        x = nxt
    logger.warning(
        "personalised PageRank did not converge in %d iterations (damping %.3g, "
        "%d passages); using the last iterate",
        MAX_ITERATIONS,
        damping,
        len(p),
    )
    return x


def seed_distribution(similarities: np.ndarray, temperature: float) -> np.ndarray:
    """``softmax(z(sim)/τ)``."""
    logits = standardize(similarities) / temperature
    weights = np.exp(logits - logits.max())
    return weights / weights.sum()


@dataclass(frozen=True)
class GraphERConfig(Validated):
    """GraphER's settings.

    Attributes:
        damping: the walk's damping d; in [0, 0.99].
        temperature: the seed temperature τ; > 0.
        entity_weight: weight of shared named entities against title mentions in the links
            (as CAGE's bridge links, :func:`~cage_core.ranking.links.link_matrix`).
        title_links: whether a passage naming another passage's title links them.
    """

    damping: float = 0.5
    temperature: float = 0.5
    entity_weight: float = 0.5
    title_links: bool = True

    RANGES: ClassVar[Ranges] = {
        "damping": Real(0.0, 0.99),
        "temperature": Real(0.0, 100.0, low_open=True),
        "entity_weight": WEIGHT,
        "title_links": Flag(),
    }


@dataclass(frozen=True)
class GraphERMethod:
    config: GraphERConfig = GraphERConfig()
    name: str = "grapher"
    needs_graphs: bool = True

    def score(self, pool: Pool) -> np.ndarray:
        if pool.graphs is None:
            raise ValueError("grapher needs the pool's passage graphs (the enrichment)")
        k = len(pool.passages)
        if k == 0:
            return np.zeros(0)
        links = link_matrix(
            pool.query,
            [p.title for p in pool.passages],
            [p.text for p in pool.passages],
            pool.graphs,
            entity_weight=self.config.entity_weight,
            use_titles=self.config.title_links,
        )
        seeds = seed_distribution(pool.similarities, self.config.temperature)
        return personalized_pagerank(links, seeds, self.config.damping)
