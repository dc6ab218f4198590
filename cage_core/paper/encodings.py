"""EncodingCache: one pool's R-GCN coherence matrices, shared by the methods that rank it.

Training the encoder is the expensive part of R-GCN coherence, and CAGE variants with equal
:class:`~cage_core.config.EncoderConfig` train identical encoders on the same graphs. The
cache keeps each pool's coherence matrix ``C`` (:mod:`cage_core.paper.rgcn_term`) per encoder
config, and how many seconds computing it took, so that an evaluation can still charge every variant
that reuses an encoding for its cost (:attr:`EncodingCache.reused_seconds`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from cage_core.config import EncoderConfig
from cage_core.graphs.passage_graph import PassageGraph
from cage_core.scoring import coherence_matrix

__all__ = [
    "EncodingCache",
    "rgcn_coherence_matrix",
]


def rgcn_coherence_matrix(graphs: Sequence[PassageGraph], config: EncoderConfig) -> np.ndarray:
    """``[k, k]`` cosine matrix C of the graphs' embeddings under a freshly trained encoder."""
    from cage_core.paper.encoder import encode_pool  # torch loads only when the R-GCN runs

    return coherence_matrix(encode_pool(graphs, config).embeddings)


class EncodingCache:
    """Coherence matrices of one pool's graphs, one per encoder config (not thread-safe:
    it belongs to one :class:`~cage_core.methods.base.Pool`)."""

    def __init__(self) -> None:
        self._entries: dict[EncoderConfig, tuple[np.ndarray, float]] = {}
        self.reused_seconds = 0.0
        """Seconds of encoding served from the cache so far: each hit adds what its entry
        cost to compute. A caller timing one method reads it before and after."""

    def coherence_matrix(self, graphs: Sequence[PassageGraph], config: EncoderConfig) -> np.ndarray:
        """:func:`rgcn_coherence_matrix` of ``graphs`` (always this cache's pool's graphs),
        computed on the first request per ``config``."""
        entry = self._entries.get(config)
        if entry is not None:
            self.reused_seconds += entry[1]
            return entry[0]
        start = time.perf_counter()
        matrix = rgcn_coherence_matrix(graphs, config)
        self._entries[config] = (matrix, time.perf_counter() - start)
        return matrix

    def __len__(self) -> int:
        return len(self._entries)
