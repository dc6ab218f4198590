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

import torch
from torch import Tensor

from cage_core.cache import LRUCache, graph_key
from cage_core.encoder import WeightedRGCNConv
from cage_core.graph.passage_graph import PassageGraph
from cage_core.link_features import GraphInputs, graph_inputs


@dataclass(frozen=True, eq=False)
class PassageEncoding:
    """One graph's query-independent part (module docstring)."""

    pre0: Tensor
    """``[n, hidden]`` float32 pre-activations with all query flags 0."""
    edge_src: Tensor
    edge_dst: Tensor
    edge_type: Tensor
    edge_norm: Tensor
    """``[m]`` float32 ``w_uv / |N_r(v)|`` of each edge."""
    entity_nodes: Tensor
    labels: tuple[str, ...]
    words: tuple[frozenset[str], ...]


def encode_passage(conv: WeightedRGCNConv, inputs: GraphInputs) -> PassageEncoding:
    """The :class:`PassageEncoding` of one graph's inputs under ``conv``'s weights."""
    x = torch.from_numpy(inputs.x)
    edge_index = torch.from_numpy(inputs.edge_index)
    edge_type = torch.from_numpy(inputs.edge_type)
    edge_weight = torch.from_numpy(inputs.edge_weight)
    with torch.no_grad():
        pre0 = conv.forward_aggregated(x, conv.neighbour_sums(x, edge_index, edge_type, edge_weight))
    counts = torch.zeros((x.shape[0], conv.num_relations))
    counts.index_put_((edge_index[1], edge_type), torch.ones(len(edge_type)), accumulate=True)
    norm = edge_weight / counts[edge_index[1], edge_type].clamp(min=1.0)
    return PassageEncoding(pre0, edge_index[0], edge_index[1], edge_type, norm,
                           torch.from_numpy(inputs.entity_nodes), inputs.labels, inputs.words)  # fmt: skip


def pool_preactivations(
    conv: WeightedRGCNConv, encodings: Sequence[PassageEncoding], flags: Tensor
) -> Tensor:
    """``[N, hidden]`` pre-activations of a pool's nodes (graph after graph) given their
    query flags ``flags`` (``[N]`` float32): ``pre⁰`` plus the query part."""
    sizes = [e.pre0.shape[0] for e in encodings]
    offsets = torch.tensor([0, *sizes[:-1]]).cumsum(0)
    pre = torch.cat([e.pre0 for e in encodings]) + flags[:, None] * conv.root[-1]
    src = torch.cat([e.edge_src + o for e, o in zip(encodings, offsets)])
    flagged = flags[src] > 0
    if bool(flagged.any()):
        dst = torch.cat([e.edge_dst + o for e, o in zip(encodings, offsets)])[flagged]
        rel = torch.cat([e.edge_type for e in encodings])[flagged]
        norm = torch.cat([e.edge_norm for e in encodings])[flagged] * flags[src[flagged]]
        pre = pre.index_add(0, dst, norm[:, None] * conv.weight[rel, -1])
    return pre


class EncodingCache:
    """Bounded, thread-safe LRU of :class:`PassageEncoding` (module docstring)."""

    def __init__(self, capacity: int) -> None:
        self._cache: LRUCache[PassageEncoding] = LRUCache(capacity)

    @staticmethod
    def key(graph: PassageGraph, vector_dim: int) -> str | None:
        """The key of ``graph``'s encoding, or ``None`` when it must not be cached."""
        if not graph.content_sha:
            return None
        return graph_key(graph.content_sha, f"link/{graph.source}/{vector_dim}", graph.level)

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
