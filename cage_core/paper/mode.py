"""The paper's mode (``CageConfig.coherence = "rgcn"``, the ``paper`` preset): the pool kind
``paper``.

relevance ``r_i = sim_i``; coherence ``c_i = s_i/(k−1)`` with ``s_i = Σ_{j≠i} C_ij`` and ``C``
the cosine matrix of the per-query trained R-GCN embeddings
(:func:`~cage_core.paper.rgcn_term.rgcn_matrix`); ``f_i = α·r_i + (1−α)·c_i − d_i`` with ``d`` the
contradiction demotion (:func:`~cage_core.ranking.contradiction.contradiction_demotion`). The kind
has no gate.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cage_core.config import CageConfig
from cage_core.graphs.passage_graph import PassageGraph
from cage_core.paper.encodings import EncodingCache
from cage_core.paper.rgcn_term import rgcn_matrix
from cage_core.ranking.pool_scores import PoolScores
from cage_core.scoring import coherence_scores, fuse

__all__ = ["paper_scores"]


def paper_scores(
    sims: np.ndarray,
    graphs: Sequence[PassageGraph],
    config: CageConfig,
    demotion: np.ndarray,
    encodings: EncodingCache | None = None,
) -> PoolScores:
    """The scores of a pool in the paper's mode (module docstring)."""
    matrix = rgcn_matrix(graphs, config, encodings) if len(sims) else np.zeros((0, 0))
    coherence = coherence_scores(matrix)
    fused = fuse(sims, coherence, config.alpha) - demotion
    return PoolScores(sims, coherence, fused, matrix, tuple(graphs), sims, kind="paper")
