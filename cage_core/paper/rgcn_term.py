"""The R-GCN coherence matrix of a pool, and the R-GCN term a bridge kind adds to its core.

``C`` is the cosine matrix of the pool's per-query trained R-GCN embeddings
(:func:`rgcn_matrix`, :mod:`cage_core.paper.encoder`). With ``rgcn_weight`` = ``w_rgcn > 0``,
a titled or untitled pool's coherence to its core ``A``
(:mod:`cage_core.ranking.kinds`) gains

``c'_i = c_i + w_rgcn · z(mean_{a ∈ A, a ≠ i} C_ia)``

(:func:`plus_rgcn_to_core`; ``z`` standardises within the pool, the mean of nothing is 0).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cage_core.config import CageConfig
from cage_core.graphs.passage_graph import PassageGraph
from cage_core.paper.encodings import EncodingCache
from cage_core.ranking.kinds.bridge import CoherenceAddOn
from cage_core.scoring import standardize

__all__ = ["plus_rgcn_to_core", "rgcn_matrix"]


def rgcn_matrix(
    graphs: Sequence[PassageGraph], config: CageConfig, encodings: EncodingCache | None = None
) -> np.ndarray:
    """The R-GCN coherence matrix C of a pool under ``config.encoder``, from ``encodings``
    when given (computed there once per encoder config)."""
    if encodings is not None:
        return encodings.coherence_matrix(graphs, config.encoder)
    from cage_core.paper.encodings import rgcn_coherence_matrix  # looked up at call time

    return rgcn_coherence_matrix(graphs, config.encoder)


def plus_rgcn_to_core(
    graphs: Sequence[PassageGraph], config: CageConfig, encodings: EncodingCache | None = None
) -> CoherenceAddOn | None:
    """The add-on ``(c, A) → c'`` of the module docstring for a pool of ``graphs``; ``None``
    when ``rgcn_weight`` is 0. It returns ``c`` itself for a pool of one passage, and trains
    the encoder (or reads ``encodings``) only when called."""
    if not config.rgcn_weight:
        return None

    def add(coherence: np.ndarray, core: np.ndarray) -> np.ndarray:
        k = len(coherence)
        if k < 2:
            return coherence
        c = rgcn_matrix(graphs, config, encodings)
        to_core = np.array([np.mean([c[i, a] for a in core if a != i] or [0.0]) for i in range(k)])
        return coherence + config.rgcn_weight * standardize(to_core)

    return add
