"""Min-out-degree reweighting: the paper's structural prior on grounded anchor nodes.

With ``δ⁺(G) = min_v deg⁺(v)``, every node ``v`` with ``deg⁺(v) = δ⁺(G)`` is an anchor.
Anchors get weight β, other nodes 1; an edge gets weight β when either endpoint is an
anchor (once, not β², when both are), else 1. The node weights scale the node feature
vectors (see :mod:`cage_core.paper.features`), the edge weights scale R-GCN messages.
β = 1 switches reweighting off.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cage_core.graphs.passage_graph import PassageGraph

__all__ = [
    "GraphWeights",
    "min_out_degree_weights",
]


@dataclass(frozen=True, eq=False)
class GraphWeights:
    """Per-node and per-edge weights of one graph (``[n]`` and ``[m]`` float32)."""

    node: np.ndarray
    edge: np.ndarray
    anchors: np.ndarray
    """Boolean ``[n]`` mask of the min-out-degree nodes."""


def min_out_degree_weights(graph: PassageGraph, beta: float) -> GraphWeights:
    """Weights of ``graph`` under min-out-degree reweighting with factor ``beta``."""
    n = graph.num_nodes
    if n == 0:
        empty = np.zeros(0, dtype=np.float32)
        return GraphWeights(
            node=empty, edge=np.ones(graph.num_edges, np.float32), anchors=np.zeros(0, dtype=bool)
        )
    degree = graph.out_degree()
    anchors = degree == degree.min()
    node = np.where(anchors, beta, 1.0).astype(np.float32)
    touches_anchor = anchors[graph.edge_src] | anchors[graph.edge_dst]
    edge = np.where(touches_anchor, beta, 1.0).astype(np.float32)
    return GraphWeights(node=node, edge=edge, anchors=anchors)
