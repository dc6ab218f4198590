"""GraphER (seed 003): enrichment-implied edges and personalised PageRank over the candidates.

GraphER enriches every object once, at indexing time, with metadata that implies edges;
CAGE's passage graphs already are that enrichment (titles and named entities, stored with
the object by the ingest transformers). At query time a graph over the candidates is built
from it — the bridge link matrix ``L`` of :mod:`cage_core.bridge` (title mentions and
shared named entities) — and ranked by personalised PageRank seeded by the retriever::

    p = softmax(z(sim) / τ)
    P_ij = L_ij / Σ_j L_ij      (a passage with no link jumps back to p)
    x ← (1 − d)·p + d·xP         (until it changes by < 1e-10, at most 200 iterations)

The score is x. d = 0.5 and τ = 0.5 were chosen on the DEV files (``CageConfig``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cage_core.bridge import link_matrix
from cage_core.config import CageConfig
from cage_core.fusion import standardize
from cage_core.methods.base import Pool

MAX_ITERATIONS = 200
TOLERANCE = 1e-10


def personalized_pagerank(links: np.ndarray, personalization: np.ndarray, damping: float) -> np.ndarray:
    """Stationary scores of the walk above (sums to 1)."""
    p = np.asarray(personalization, dtype=np.float64)
    rows = links.sum(axis=1, keepdims=True)
    transition = np.where(rows > 0, links / np.where(rows > 0, rows, 1.0), p[None, :])
    x = p.copy()
    for _ in range(MAX_ITERATIONS):
        nxt = (1.0 - damping) * p + damping * (x @ transition)
        if np.abs(nxt - x).sum() < TOLERANCE:
            return nxt
        x = nxt
    return x


def seed_distribution(similarities: np.ndarray, temperature: float) -> np.ndarray:
    """``softmax(z(sim)/τ)``."""
    logits = standardize(similarities) / temperature
    weights = np.exp(logits - logits.max())
    return weights / weights.sum()


@dataclass(frozen=True)
class GraphERMethod:
    config: CageConfig
    name: str = "grapher"
    needs_graphs: bool = True

    def score(self, pool: Pool) -> np.ndarray:
        if pool.graphs is None:
            raise ValueError("grapher needs the pool's passage graphs (the enrichment)")
        k = len(pool.passages)
        if k == 0:
            return np.zeros(0)
        links = link_matrix(pool.query, [p.title for p in pool.passages], [p.text for p in pool.passages],
                            pool.graphs, entity_weight=self.config.entity_weight,
                            use_titles=self.config.title_links)  # fmt: skip
        seeds = seed_distribution(pool.similarities, self.config.ppr_temperature)
        return personalized_pagerank(links, seeds, self.config.ppr_damping)
