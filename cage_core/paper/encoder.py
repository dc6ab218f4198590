"""Graph encoder and its per-query diversity training.

The encoder is one relational graph convolution, ReLU, and global sum pooling:

.. math::
    \\mathbf{h}_i = \\mathrm{ReLU}\\Big(\\mathbf{\\Theta}_{root}\\mathbf{x}_i + \\mathbf{b} +
        \\sum_{r \\in \\mathcal{R}} \\sum_{j \\in \\mathcal{N}_r(i)}
        \\frac{w_{ji}}{|\\mathcal{N}_r(i)|} \\mathbf{\\Theta}_r \\mathbf{x}_j\\Big),
    \\qquad Z_G = \\sum_{i \\in G} \\mathbf{h}_i

This is PyG's ``RGCNConv`` (``aggr="mean"``, per-relation normalisation) with the edge
weight ``w_ji`` of min-out-degree reweighting multiplied into each message —
``RGCNConv`` has no edge-weight input, so :class:`WeightedRGCNConv` implements it on
PyG's ``MessagePassing``. With all weights 1 it equals ``RGCNConv`` exactly (tested).
The ``"gcn"`` ablation uses PyG's ``GCNConv`` with the same edge weights.

For each query a freshly seeded encoder is trained on that query's k graphs as one
batch with Adam, minimising the mean pairwise cosine similarity of the ``Z_i``
(the diversity objective); no pre-training. Its settings are an
:class:`~cage_core.config.EncoderConfig` (defined with the other configs, so that reading a
configuration never loads torch; importable from here too).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor
from torch_geometric.data import Batch, Data
from torch_geometric.nn import GCNConv, MessagePassing, global_add_pool
from torch_geometric.utils import one_hot, scatter

from cage_core.config import EncoderConfig
from cage_core.graphs.passage_graph import PassageGraph
from cage_core.graphs.relations import NUM_RELATIONS
from cage_core.paper.features import feature_dim, node_features
from cage_core.paper.reweight import min_out_degree_weights

__all__ = [
    "EncodingResult",
    "GraphEncoder",
    "WeightedRGCNConv",
    "diversity_loss",
    "encode_pool",
    "graph_batch",
]

logger = logging.getLogger(__name__)

_COSINE_EPS = 1e-8


class WeightedRGCNConv(MessagePassing):
    """Relational graph convolution whose messages are scaled by edge weights.

    ``x'_i = Θ_root x_i + b + Σ_r Σ_{j∈N_r(i)} (w_ji / |N_r(i)|) Θ_r x_j``
    """

    def __init__(self, in_channels: int, out_channels: int, num_relations: int) -> None:
        super().__init__(aggr="add")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.num_relations = num_relations
        self.weight = torch.nn.Parameter(torch.empty(num_relations, in_channels, out_channels))
        self.root = torch.nn.Parameter(torch.empty(in_channels, out_channels))
        self.bias = torch.nn.Parameter(torch.empty(out_channels))
        self.reset_parameters()

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        super().reset_parameters()
        for r in range(self.num_relations):
            torch.nn.init.xavier_uniform_(self.weight.data[r], generator=generator)
        torch.nn.init.xavier_uniform_(self.root.data, generator=generator)
        torch.nn.init.zeros_(self.bias.data)

    def neighbour_sums(
        self, x: Tensor, edge_index: Tensor, edge_type: Tensor, edge_weight: Tensor | None = None
    ) -> list[tuple[int, Tensor, Tensor]]:
        """Per relation r, the normalised weighted neighbour sums ``Σ_j w_ji/|N_r(i)| x_j``.

        Returns ``(r, targets, sums)`` for each relation that has edges, ``sums`` holding one
        row per target node with incoming r-edges. It depends only on the graph and the
        input features, so per-query training computes it once, not once per epoch.
        """
        num_nodes = x.size(0)
        if edge_weight is None:
            edge_weight = x.new_ones(edge_type.size(0))
        counts = scatter(
            one_hot(edge_type, self.num_relations, dtype=x.dtype),
            edge_index[1],
            dim=0,
            dim_size=num_nodes,
            reduce="sum",
        )
        norm = edge_weight / counts[edge_index[1], edge_type].clamp(min=1.0)
        out = []
        for r in range(self.num_relations):
            mask = edge_type == r
            if not bool(mask.any()):
                continue
            sums = self.propagate(
                edge_index[:, mask], x=x, norm=norm[mask], size=(num_nodes, num_nodes)
            )
            targets = torch.unique(edge_index[1, mask])
            out.append((r, targets, sums[targets]))
        return out

    def forward(
        self, x: Tensor, edge_index: Tensor, edge_type: Tensor, edge_weight: Tensor | None = None
    ) -> Tensor:
        return self.forward_aggregated(
            x, self.neighbour_sums(x, edge_index, edge_type, edge_weight)
        )

    def forward_aggregated(self, x: Tensor, aggregated: list[tuple[int, Tensor, Tensor]]) -> Tensor:
        """The layer output given :meth:`neighbour_sums`'s result for the same ``x`` and graph."""
        out = x @ self.root + self.bias
        for r, targets, sums in aggregated:
            out = out.index_add(0, targets, sums @ self.weight[r])
        return out

    def message(self, x_j: Tensor, norm: Tensor) -> Tensor:
        return x_j * norm.unsqueeze(-1)

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__}({self.in_channels}, {self.out_channels}, "
            f"num_relations={self.num_relations})"
        )


class GraphEncoder(torch.nn.Module):
    """One graph convolution (R-GCN or GCN), ReLU, global sum pooling → ``[k, hidden]``."""

    def __init__(self, in_dim: int, hidden_dim: int, kind: str = "rgcn") -> None:
        super().__init__()
        self.kind = kind
        self.conv: torch.nn.Module
        if kind == "rgcn":
            self.conv = WeightedRGCNConv(in_dim, hidden_dim, NUM_RELATIONS)
        elif kind == "gcn":
            self.conv = GCNConv(in_dim, hidden_dim)
        else:
            raise ValueError(f"encoder kind must be 'rgcn' or 'gcn', got {kind!r}")

    def reset_parameters(self, generator: torch.Generator) -> None:
        if isinstance(self.conv, WeightedRGCNConv):
            self.conv.reset_parameters(generator)
        elif isinstance(self.conv, GCNConv):  # the only other kind (__init__)
            self.conv.reset_parameters()
            torch.nn.init.xavier_uniform_(self.conv.lin.weight.data, generator=generator)

    def forward(
        self, batch: Batch, aggregated: list[tuple[int, Tensor, Tensor]] | None = None
    ) -> Tensor:
        """Graph embeddings ``[num_graphs, hidden]``; ``aggregated`` (R-GCN only) skips
        recomputing the constant neighbour sums (see :meth:`WeightedRGCNConv.neighbour_sums`)."""
        if isinstance(self.conv, WeightedRGCNConv):
            if aggregated is None:
                aggregated = self.conv.neighbour_sums(
                    batch.x, batch.edge_index, batch.edge_type, batch.edge_weight
                )
            h = self.conv.forward_aggregated(batch.x, aggregated)
        else:
            h = self.conv(batch.x, batch.edge_index, batch.edge_weight)
        return global_add_pool(torch.relu(h), batch.batch, size=batch.num_graphs)

    def precompute(self, batch: Batch) -> list[tuple[int, Tensor, Tensor]] | None:
        """What stays constant across training epochs for ``batch`` (None for GCN)."""
        if isinstance(self.conv, WeightedRGCNConv):
            with torch.no_grad():
                return self.conv.neighbour_sums(
                    batch.x, batch.edge_index, batch.edge_type, batch.edge_weight
                )
        return None


def graph_batch(graphs: Sequence[PassageGraph], beta: float, vector_dim: int) -> Batch:
    """The k reweighted graphs of one query as one PyG ``Batch``."""
    items = []
    for g in graphs:
        weights = min_out_degree_weights(g, beta)
        if g.num_nodes:
            x = torch.from_numpy(node_features(g, weights.node))
        else:
            x = torch.zeros((0, feature_dim(vector_dim)), dtype=torch.float32)
        items.append(
            Data(
                x=x,
                edge_index=torch.from_numpy(np.stack([g.edge_src, g.edge_dst])).long(),
                edge_type=torch.from_numpy(g.edge_type).long(),
                edge_weight=torch.from_numpy(weights.edge).float(),
                num_nodes=g.num_nodes,
            )
        )
    return Batch.from_data_list(items)


def diversity_loss(z: Tensor) -> Tensor:
    """Mean pairwise cosine similarity of the rows of ``z`` (i ≠ j); 0 for fewer than 2 rows."""
    k = z.size(0)
    if k < 2:
        return z.sum() * 0.0
    zn = z / z.norm(dim=1, keepdim=True).clamp(min=_COSINE_EPS)
    sim = zn @ zn.T
    off_diagonal = sim.sum() - sim.diagonal().sum()
    return off_diagonal / (k * (k - 1))


@dataclass(frozen=True)
class EncodingResult:
    """Graph embeddings of one pool and how training went."""

    embeddings: np.ndarray
    """``[k, hidden_dim]`` float64 graph embeddings Z_i after training."""
    initial_loss: float
    final_loss: float


def encode_pool(graphs: Sequence[PassageGraph], config: EncoderConfig) -> EncodingResult:
    """Train a freshly seeded encoder on one pool's graphs and return their embeddings."""
    k = len(graphs)
    if k == 0:
        return EncodingResult(np.zeros((0, config.hidden_dim)), 0.0, 0.0)
    batch = graph_batch(graphs, config.beta, config.vector_dim)
    generator = torch.Generator().manual_seed(config.seed)
    model = GraphEncoder(feature_dim(config.vector_dim), config.hidden_dim, config.kind)
    model.reset_parameters(generator)
    aggregated = model.precompute(batch)
    if batch.num_nodes == 0 or k < 2:
        with torch.no_grad():
            z = model(batch, aggregated)
        return EncodingResult(z.double().numpy(), 0.0, 0.0)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.learning_rate)
    initial = None
    for _ in range(config.epochs):
        optimizer.zero_grad(set_to_none=True)
        loss = diversity_loss(model(batch, aggregated))
        if initial is None:
            initial = float(loss.detach())
        loss.backward()
        optimizer.step()
    with torch.no_grad():
        z = model(batch, aggregated)
        final = float(diversity_loss(z))
    if initial is None:
        initial = final
    logger.debug("encoded %d graphs: diversity loss %.4f → %.4f", k, initial, final)
    return EncodingResult(_share_duplicates(graphs, z.double().numpy()), initial, final)


def _share_duplicates(graphs: Sequence[PassageGraph], z: np.ndarray) -> np.ndarray:
    """Give repeated graph objects (duplicate passages) the embedding of their first copy.

    Their rows are equal up to the last bit of BLAS kernels that differ by row position;
    copying makes duplicate passages score exactly alike.
    """
    first: dict[int, int] = {}
    for i, g in enumerate(graphs):
        j = first.setdefault(id(g), i)
        if j != i:
            z[i] = z[j]
    return z
