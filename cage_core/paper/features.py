"""Node feature matrices: ``x_v = w_v · [word vector ‖ one-hot POS ‖ one-hot entity type ‖ 1]``.

The word vector is the graph's attached L2-normalised vector (``vector_dim`` wide), POS is
one of :data:`~cage_core.graphs.relations.POS_TAGS`, the entity type one of
:data:`~cage_core.graphs.relations.ENTITY_TYPES` (all zeros for non-entities), and the
last column is the scalar weight: 1 before reweighting, so after scaling by ``w_v`` it
reads ``w_v`` (β for min-out-degree anchors).
"""

from __future__ import annotations

import numpy as np

from cage_core.graphs.passage_graph import PassageGraph
from cage_core.graphs.relations import ENTITY_TYPES, POS_TAGS

__all__ = [
    "feature_dim",
    "node_features",
]

_POS_INDEX = {tag: i for i, tag in enumerate(POS_TAGS)}
_ENT_INDEX = {label: i for i, label in enumerate(ENTITY_TYPES)}


def feature_dim(vector_dim: int) -> int:
    """Width of a node feature row for word vectors of width ``vector_dim``."""
    return vector_dim + len(POS_TAGS) + len(ENTITY_TYPES) + 1


def node_features(graph: PassageGraph, node_weights: np.ndarray) -> np.ndarray:
    """``[n, feature_dim]`` float32 features of ``graph``'s nodes, row v scaled by weight v."""
    if graph.vectors is None:
        raise ValueError(
            "the graph has no word vectors attached; use GraphParser.with_vectors "
            "(CageReranker attaches them when its method needs them)"
        )
    n, dim = graph.vectors.shape
    x = np.zeros((n, feature_dim(dim)), dtype=np.float32)
    x[:, :dim] = graph.vectors
    pos_cols = dim + np.array([_POS_INDEX[p] for p in graph.pos], dtype=np.int64)
    x[np.arange(n), pos_cols] = 1.0
    ent_offset = dim + len(POS_TAGS)
    for v, label in enumerate(graph.entity_types):
        if label:
            x[v, ent_offset + _ENT_INDEX[label]] = 1.0
    x[:, -1] = 1.0
    return x * node_weights[:, None].astype(np.float32)
