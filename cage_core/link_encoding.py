r"""Query-independent R-GCN pre-activations of single passages, for fast link scoring.

The link model's R-GCN layer (:class:`~cage_core.encoder.WeightedRGCNConv`) is linear
before its ReLU, and the query enters its input only as each node's query flag ``q_v``
(the last feature column, see :mod:`cage_core.link_features`). So the pre-activation of
node v splits into a part that depends on the graph and the weights alone and a query
part:

.. math::
    \mathrm{pre}_v = \mathrm{pre}^0_v + q_v \, \Theta_{root}[q] +
        \sum_r \sum_{u \in N_r(v)} \frac{w_{uv}}{|N_r(v)|} \, q_u \, \Theta_r[q]

where ``pre⁰`` is the layer's output with every flag 0 and ``Θ[q]`` the weight row of the
flag column. :class:`PassageEncoding` holds ``pre⁰`` and the normalised edges of one graph;
:class:`EncodingCache` keeps them across queries, keyed by what the graph was built from
(pipeline, level, content hash), so a warm pool costs only the query part.

The cache trusts that a graph's word vectors are the ones its pipeline derives from its
labels (as :meth:`GraphParser.with_vectors <cage_core.graph.build.GraphParser.with_vectors>`
attaches them); graphs without a content hash (built by hand) are never cached.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from cage_core.cache import LRUCache
from cage_core.encoder import WeightedRGCNConv
from cage_core.graph.passage_graph import PassageGraph
from cage_core.link_features import GraphInputs, graph_inputs


@dataclass(frozen=True, eq=False)
class PassageEncoding:
    """One graph's query-independent part (module docstring)."""

    pre0: np.ndarray
    """``[n, hidden]`` float32 pre-activations with all query flags 0."""
    out_start: np.ndarray
    """``[n + 1]``: the edges leaving node u are ``out_start[u]:out_start[u + 1]`` below."""
    out_dst: np.ndarray
    out_type: np.ndarray
    out_norm: np.ndarray
    """float32 ``w_uv / |N_r(v)|`` of each edge."""
    entity_nodes: np.ndarray
    labels: tuple[str, ...]
    words: tuple[frozenset[str], ...]


def encode_passage(conv: WeightedRGCNConv, inputs: GraphInputs) -> PassageEncoding:
    """The :class:`PassageEncoding` of one graph's inputs under ``conv``'s weights."""
    x = torch.from_numpy(inputs.x)
    src, dst = inputs.edge_index
    edge_type, edge_weight = inputs.edge_type, inputs.edge_weight
    with torch.no_grad():
        pre0 = conv.forward_aggregated(x, conv.neighbour_sums(
            x, torch.from_numpy(inputs.edge_index), torch.from_numpy(edge_type),
            torch.from_numpy(edge_weight))).numpy()  # fmt: skip
    n = x.shape[0]
    counts = np.zeros((n, conv.num_relations), dtype=np.float32)
    np.add.at(counts, (dst, edge_type), 1.0)
    norm = (edge_weight / np.maximum(counts[dst, edge_type], 1.0)).astype(np.float32)
    order = np.argsort(src, kind="stable")
    start = np.searchsorted(src[order], np.arange(n + 1)).astype(np.int64)
    return PassageEncoding(pre0, start, dst[order], edge_type[order], norm[order], inputs.entity_nodes,
                           inputs.labels, inputs.words)  # fmt: skip


def pool_preactivations(
    conv: WeightedRGCNConv, encodings: Sequence[PassageEncoding], flags: np.ndarray
) -> np.ndarray:
    """``[N, hidden]`` float32 pre-activations of a pool's nodes (graph after graph) given
    their query flags ``flags`` (``[N]`` float32): ``pre⁰`` plus the query part."""
    root_q = conv.root.detach()[-1].numpy()
    weight_q = conv.weight.detach()[:, -1].numpy()
    pre = np.concatenate([e.pre0 for e in encodings]) + flags[:, None] * root_q
    rows, terms = [], []
    offset = 0
    for e in encodings:
        n = e.pre0.shape[0]
        for u in np.flatnonzero(flags[offset:offset + n]):
            first, last = e.out_start[u], e.out_start[u + 1]
            rows.append(offset + e.out_dst[first:last])
            terms.append((flags[offset + u] * e.out_norm[first:last])[:, None] * weight_q[e.out_type[first:last]])
        offset += n
    if rows:
        np.add.at(pre, np.concatenate(rows), np.concatenate(terms))
    return pre


class EncodingCache:
    """Bounded, thread-safe LRU of :class:`PassageEncoding` (module docstring)."""

    def __init__(self, capacity: int) -> None:
        self._cache: LRUCache[PassageEncoding] = LRUCache(capacity)

    def __len__(self) -> int:
        return len(self._cache)

    @staticmethod
    def key(graph: PassageGraph, vector_dim: int) -> str | None:
        """The key of ``graph``'s encoding, or ``None`` when it must not be cached."""
        if not graph.content_sha:
            return None
        return f"{graph.source}\x00{graph.level}\x00{vector_dim}\x00{graph.content_sha}"

    def get(
        self, conv: WeightedRGCNConv, graph: PassageGraph, *, beta: float, vector_dim: int
    ) -> PassageEncoding:
        """``graph``'s encoding, computed (and kept) on a miss."""
        key = self.key(graph, vector_dim)
        found = self._cache.get(key) if key is not None else None
        if found is None:
            found = encode_passage(conv, graph_inputs(graph, beta=beta, vector_dim=vector_dim))
            if key is not None:
                self._cache.put(key, found)
        return found
