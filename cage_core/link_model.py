r"""A passage-to-passage link scorer trained once, offline, on the DEV files.

Where :mod:`cage_core.bridge` links two passages by hand (title mention ``T_ij``, shared
entities ``E_ij``), this model learns the link from the typed passage graphs:

.. math::
    \mathbf{h}_v = \mathrm{ReLU}(\text{R-GCN}(\mathbf{x})_v), \qquad
    Z_i = [\operatorname{mean}_{v \in G_i} \mathbf{h}_v \,\|\,
           \max_{v \in G_i} \mathbf{h}_v],

    c_{uv} = \cos(W_m \mathbf{h}_u, W_m \mathbf{h}_v), \quad
    M_{ij} = \Big[\max_{u \in A_i, v \in A_j} c_{uv} \,\Big\|\,
             \tfrac12\big(\operatorname{mean}_{u \in A_i} \max_{v \in A_j} c_{uv} +
             \operatorname{mean}_{v \in A_j} \max_{u \in A_i} c_{uv}\big)\Big],

    s_{ij} = \mathrm{MLP}\big([Z_i \odot Z_j \,\|\, Z_i + Z_j \,\|\, M_{ij} \,\|\,
             \ln(1 + P_{ij})]\big), \qquad S_{ij} = \sigma(s_{ij}),\; S_{ii} = 0

with one :class:`~cage_core.encoder.WeightedRGCNConv` (the layer the per-query encoder
uses, pinned against PyG's ``RGCNConv``) over the node features and edges of
:mod:`cage_core.link_features` (the query enters only as each node's "named in the query"
flag); ``M_ij`` is a learned soft match of the two passages' entity nodes ``A_i, A_j`` (the
strongest match, and how well each side's entities are found on the other; 0 when a side
has none) — the trained counterpart of shared entities and title mentions; and a
two-layer MLP (ReLU) is the pair scorer. Every input of the MLP is symmetric in
``i, j``, so ``S`` is **symmetric**; its entries are in [0, 1], the diagonal is 0 (like the
hand-built ``L``, so a passage never counts as its own partner).

:class:`LinkModelConfig` selects the variant: ``use_graphs`` (the R-GCN part ``Z``) and
``use_pair_features`` (the hand-built ``P_ij = (T_ij, E_ij)``); "graphs" alone shows what the
graphs carry, "links" alone is a learned re-weighting of the hand-built links.

Training (:mod:`cage_core.link_training`) labels pair ``(i, j)`` of a pool positive when
both passages are gold (supporting) passages of the question, negative otherwise, and
minimises :func:`link_loss`. :meth:`LinkModel.load_default` loads the weights shipped in
the package (:mod:`cage_core.link_weights`).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import Tensor
from torch_geometric.utils import scatter

from cage_core.config import check_bool, check_int, check_real
from cage_core.encoder import WeightedRGCNConv
from cage_core.graph.passage_graph import PassageGraph
from cage_core.graph.relations import NUM_RELATIONS
from cage_core.link_encoding import EncodingCache, pool_preactivations
from cage_core.link_features import (
    PAIR_FEATURES,
    PoolInputs,
    check_pool,
    entity_table,
    link_feature_dim,
    pair_features,
    pool_inputs,
    query_flags,
)
from cage_core.passage import PassageLike, as_passages

logger = logging.getLogger(__name__)

ENCODING_CACHE_SIZE = 4096
"""Passages whose query-independent encodings a :class:`LinkModel` keeps (~10 KB each)."""

Aggregated = list[tuple[int, Tensor, Tensor]]
"""Per relation ``(r, targets, neighbour sums)``: see
:meth:`WeightedRGCNConv.neighbour_sums <cage_core.encoder.WeightedRGCNConv.neighbour_sums>`."""


@dataclass(frozen=True)
class LinkModelConfig:
    """Architecture of the link model (stored with its weights).

    Attributes:
        use_graphs: read the passage graphs through the R-GCN (``Z_i``).
        use_pair_features: read the hand-built pair features ``(T_ij, E_ij)``.
        hidden_dim: width of the R-GCN node embeddings ``h_v`` (``Z_i`` is twice as wide).
        match_dim: width of the projection ``W_m h_v`` the entity match compares.
        pair_dim: width of the pair scorer's hidden layer.
        pooled: feed the pooled embeddings ``Z_i, Z_j`` to the pair scorer (else only the
            entity match ``M_ij`` carries the graphs).
        dropout: while training, the probability of dropping each input feature column (the
            same columns for all nodes of a batch) and each column of ``Z``; none at inference.
        beta: min-out-degree reweighting factor β of node features and edge weights.
        vector_dim: width of the node word vectors the graphs must carry.
    """

    use_graphs: bool = True
    use_pair_features: bool = True
    hidden_dim: int = 64
    match_dim: int = 32
    pair_dim: int = 64
    pooled: bool = True
    dropout: float = 0.5
    beta: float = 2.0
    vector_dim: int = 300

    def __post_init__(self) -> None:
        for name in ("use_graphs", "use_pair_features", "pooled"):
            check_bool(name, getattr(self, name))
        if not (self.use_graphs or self.use_pair_features):
            raise ValueError("a link model needs use_graphs or use_pair_features")
        check_int("hidden_dim", self.hidden_dim, low=1, high=1024)
        check_int("match_dim", self.match_dim, low=1, high=1024)
        check_int("pair_dim", self.pair_dim, low=1, high=1024)
        check_real("dropout", self.dropout, low=0.0, high=0.9)
        check_real("beta", self.beta, low=1.0, high=1e3)
        check_int("vector_dim", self.vector_dim, low=1, high=4096)

    @property
    def variant(self) -> str:
        """``"graphs"``, ``"links"`` or ``"graphs+links"``."""
        return "+".join(name for name, on in (("graphs", self.use_graphs),
                                              ("links", self.use_pair_features)) if on)  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> LinkModelConfig:
        """Rebuild from :meth:`to_dict` output, rejecting unknown or missing fields."""
        if not isinstance(data, dict):
            raise TypeError("a link model config must be a JSON object")
        names = {f.name for f in dataclasses.fields(cls)}
        if set(data) != names:
            raise ValueError(f"a link model config has exactly the fields {sorted(names)}, "
                             f"got {sorted(map(str, data))}")  # fmt: skip
        return cls(**data)


class LinkNet(torch.nn.Module):
    """The network of the module docstring; :meth:`forward` scores unordered pairs."""

    def __init__(self, config: LinkModelConfig) -> None:
        super().__init__()
        self.config = config
        in_pair = len(PAIR_FEATURES) if config.use_pair_features else 0
        if config.use_graphs:
            self.conv: WeightedRGCNConv | None = WeightedRGCNConv(
                link_feature_dim(config.vector_dim), config.hidden_dim, NUM_RELATIONS)
            self.match: torch.nn.Linear | None = torch.nn.Linear(
                config.hidden_dim, config.match_dim, bias=False)
            in_pair += 2 + (4 * config.hidden_dim if config.pooled else 0)
        else:
            self.conv = None
            self.match = None
        self.hidden = torch.nn.Linear(in_pair, config.pair_dim)
        self.out = torch.nn.Linear(config.pair_dim, 1)
        self.generator: torch.Generator | None = None
        """Source of the dropout masks while training (set by the trainer, for reproducibility)."""

    def reset_parameters(self, generator: torch.Generator) -> None:
        """Seeded initialisation (Xavier-uniform weights, zero biases)."""
        if self.conv is not None:
            self.conv.reset_parameters(generator)
        for layer in (self.match, self.hidden, self.out):
            if layer is not None:
                torch.nn.init.xavier_uniform_(layer.weight.data, generator=generator)
                if layer.bias is not None:
                    torch.nn.init.zeros_(layer.bias.data)

    def aggregate(self, inputs: PoolInputs) -> Aggregated:
        """The neighbour sums of ``inputs`` (constant: they do not depend on the weights)."""
        if self.conv is None:
            return []
        with torch.no_grad():
            return self.conv.neighbour_sums(torch.from_numpy(inputs.x),
                                            torch.from_numpy(inputs.edge_index),
                                            torch.from_numpy(inputs.edge_type),
                                            torch.from_numpy(inputs.edge_weight))  # fmt: skip

    def forward(
        self, x: Tensor, aggregated: Aggregated, graph_of: Tensor, entity_nodes: Tensor,
        pair_a: Tensor, pair_b: Tensor, pair_features: Tensor,
    ) -> Tensor:
        """Logits ``s_ab`` of the unordered pairs ``(pair_a[n], pair_b[n])``.

        ``x``, ``aggregated``, ``graph_of`` and ``entity_nodes`` (``[passages, e]``, ``-1``
        padded) describe the nodes of some passages (one pool, or several pools stacked);
        ``pair_features`` is ``[pairs, len(PAIR_FEATURES)]``.
        """
        h = None
        if self.conv is not None:
            if self.training and self.config.dropout:
                # drop whole feature columns: the same mask on the features and neighbour sums
                keep = self._keep_mask(x.shape[1])
                x = x * keep
                aggregated = [(r, t, s * keep) for r, t, s in aggregated]
            h = torch.relu(self.conv.forward_aggregated(x, aggregated))
        return self.score_pairs(h, graph_of, entity_nodes, pair_a, pair_b, pair_features)

    def score_pairs(
        self, h: Tensor | None, graph_of: Tensor, entity_nodes: Tensor, pair_a: Tensor,
        pair_b: Tensor, pair_features: Tensor,
    ) -> Tensor:
        """The pair scorer given the node embeddings ``h`` (``None`` without graphs)."""
        parts = []
        if self.conv is not None:
            assert h is not None
            parts.append(self._entity_match(h, entity_nodes, pair_a, pair_b))
            if self.config.pooled:
                num_passages = entity_nodes.shape[0]
                z = torch.cat([scatter(h, graph_of, 0, dim_size=num_passages, reduce="mean"),
                               scatter(h, graph_of, 0, dim_size=num_passages, reduce="max")], dim=1)
                if self.training and self.config.dropout:
                    z = z * self._keep_mask(z.shape[1])
                za, zb = z[pair_a], z[pair_b]
                parts += [za * zb, za + zb]
        if self.config.use_pair_features:
            parts.append(torch.log1p(pair_features))
        return self.out(torch.relu(self.hidden(torch.cat(parts, dim=1)))).squeeze(1)

    def _keep_mask(self, width: int) -> Tensor:
        """``[1, width]`` inverted-dropout mask: 0 with probability ``dropout``, else ``1/(1-p)``."""
        p = self.config.dropout
        return (torch.rand(1, width, generator=self.generator) >= p).float() / (1.0 - p)

    def _entity_match(self, h: Tensor, entity_nodes: Tensor, pair_a: Tensor, pair_b: Tensor) -> Tensor:
        """``[pairs, 2]``: ``M_ab`` of the module docstring."""
        assert self.match is not None
        p = torch.nn.functional.normalize(self.match(h), dim=1)
        mask = entity_nodes >= 0
        pe = p[entity_nodes.clamp(min=0)] * mask.unsqueeze(-1)
        ma, mb = mask[pair_a], mask[pair_b]
        both = ma.unsqueeze(2) & mb.unsqueeze(1)
        c = torch.einsum("ped,pfd->pef", pe[pair_a], pe[pair_b]).masked_fill(~both, -2.0)
        valid = both.flatten(1).any(dim=1)
        strongest = torch.where(valid, c.flatten(1).max(dim=1).values, 0.0)
        row = c.max(dim=2).values  # best partner in b of each entity of a
        col = c.max(dim=1).values
        found_a = (row * ma).sum(1) / ma.sum(1).clamp(min=1)
        found_b = (col * mb).sum(1) / mb.sum(1).clamp(min=1)
        coverage = torch.where(valid, 0.5 * (found_a + found_b), 0.0)
        return torch.stack([strongest, coverage], dim=1)


def link_loss(logits: Tensor, positive: Tensor, anchor: Tensor, partner: Tensor,
              pair_of: Tensor, anchor_gold: Tensor) -> Tensor:  # fmt: skip
    """Training loss of a batch: ``BCE + partner cross-entropy``.

    * BCE: mean binary cross-entropy of all unordered pairs (``positive``: both gold);
    * partner cross-entropy: for every directed pair ``anchor[n] → partner[n]`` (logit
      ``logits[pair_of[n]]``), a softmax over each gold anchor's partners; the loss is
      ``-mean_a ln Σ_{j gold} softmax_a(s_aj)`` over the gold anchors that have a gold
      partner (``anchor_gold`` marks the directed pairs whose anchor is gold).
    """
    bce = torch.nn.functional.binary_cross_entropy_with_logits(logits, positive.float())
    if not bool(anchor_gold.any()):
        return bce
    s = logits[pair_of][anchor_gold]
    a = anchor[anchor_gold]
    pos = positive[pair_of][anchor_gold]
    _, a = torch.unique(a, return_inverse=True)
    n = int(a.max()) + 1
    top = scatter(s.detach(), a, 0, dim_size=n, reduce="max")
    shifted = torch.exp(s - top[a])
    all_mass = scatter(shifted, a, 0, dim_size=n, reduce="sum")
    gold_mass = scatter(shifted * pos.float(), a, 0, dim_size=n, reduce="sum")
    return bce + (torch.log(all_mass) - torch.log(gold_mass.clamp(min=1e-30))).mean()


class LinkModel:
    """A trained :class:`LinkNet` ready to score pools; thread-safe (inference only).

    Build it with :meth:`load_default`, :func:`cage_core.link_weights.load_link_model`, or
    from a trained net (:mod:`cage_core.link_training`).
    """

    def __init__(self, net: LinkNet, header: dict[str, Any] | None = None, *,
                 cache_size: int = ENCODING_CACHE_SIZE) -> None:  # fmt: skip
        self.net = net.eval()
        self.config = net.config
        self.header = dict(header or {})
        """The JSON header stored with the weights (config, training command, data hashes)."""
        self.encodings = EncodingCache(cache_size)
        """Per-passage R-GCN pre-activations kept across queries (:mod:`cage_core.link_encoding`)."""

    @classmethod
    def load_default(cls) -> LinkModel:
        """The model shipped in the package, loaded once per process (lazily, thread-safe)."""
        from cage_core.link_weights import default_link_model

        return default_link_model()

    def inputs(self, query: str, passages: Sequence[PassageLike],
               graphs: Sequence[PassageGraph]) -> PoolInputs:  # fmt: skip
        """The model's inputs for one pool (see :func:`~cage_core.link_features.pool_inputs`)."""
        return pool_inputs(query, as_passages(passages), graphs, beta=self.config.beta,
                           vector_dim=self.config.vector_dim)  # fmt: skip

    def link_matrix(
        self, query: str, passages: Sequence[PassageLike], graphs: Sequence[PassageGraph]
    ) -> np.ndarray:
        """``[k, k]`` float64 link scores ``S`` (module docstring): symmetric, in [0, 1], zero
        diagonal. ``graphs[i]`` is passage i's full graph with word vectors (e.g.
        ``reranker.graphs(passages, level="full", with_vectors=True)``).

        Raises:
            ValueError: when the graphs do not match the passages or lack word vectors.
        """
        if not isinstance(query, str):
            raise TypeError(f"query must be a str, got {type(query).__name__}")
        items = as_passages(passages)
        check_pool(items, graphs, self.config.vector_dim)
        k = len(items)
        if k < 2:
            return np.zeros((k, k))
        pair = pair_features(query, items, graphs)
        a, b = np.triu_indices(k, 1)
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        h = graph_of = None
        entity_nodes = torch.zeros((k, 0), dtype=torch.int64)
        with torch.no_grad():
            if self.net.conv is not None:
                encodings = [self.encodings.get(self.net.conv, g, beta=self.config.beta,
                                                vector_dim=self.config.vector_dim) for g in graphs]  # fmt: skip
                flags = query_flags([x for e in encodings for x in e.labels], query,
                                    [w for e in encodings for w in e.words])  # fmt: skip
                h = torch.relu(torch.from_numpy(pool_preactivations(self.net.conv, encodings, flags)))
                sizes = [e.pre0.shape[0] for e in encodings]
                graph_of = torch.from_numpy(np.repeat(np.arange(k), sizes))
                offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
                entity_nodes = torch.from_numpy(entity_table([e.entity_nodes for e in encodings], offsets))
            logits = self.net.score_pairs(h, graph_of, entity_nodes, ta, tb, torch.from_numpy(pair[a, b]))
        return _symmetric(logits, k, a, b)

    def score_inputs(self, inputs: PoolInputs) -> np.ndarray:
        """:meth:`link_matrix` of already computed inputs, through the whole network at once
        (as in training); equal to :meth:`link_matrix` up to float rounding."""
        k = inputs.k
        matrix = np.zeros((k, k))
        if k < 2:
            return matrix
        a, b = np.triu_indices(k, 1)
        with torch.no_grad():
            logits = self.net(torch.from_numpy(inputs.x), self.net.aggregate(inputs),
                              torch.from_numpy(inputs.graph_of),
                              torch.from_numpy(inputs.entity_nodes), torch.from_numpy(a),
                              torch.from_numpy(b), torch.from_numpy(inputs.pair[a, b]))  # fmt: skip
        return _symmetric(logits, k, a, b)


def _symmetric(logits: Tensor, k: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``[k, k]``: ``σ(logits)`` at ``(a, b)`` and ``(b, a)``, zero diagonal."""
    matrix = np.zeros((k, k))
    values = torch.sigmoid(logits.double()).numpy()
    matrix[a, b] = values
    matrix[b, a] = values
    return matrix

