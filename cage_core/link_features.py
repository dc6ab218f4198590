"""What the trained link model reads from one pool: node features, graph edges, pair features.

For a pool of k passages with their full passage graphs (word vectors attached), the
inputs are:

* node features ``x_v = [w_v · f_v ‖ q_v]``: ``f_v`` the R-GCN features of
  :func:`~cage_core.graph.features.node_features` (word vector, one-hot POS, one-hot
  entity type, 1), ``w_v`` the min-out-degree weight (β for anchors, see
  :mod:`cage_core.graph.reweight`), and ``q_v = 1`` when the node's label occurs in the
  query as whole words (case-insensitive), else 0 — the only way the query enters;
* the edges of all k graphs in one index space, with their relation ids and min-out-degree
  edge weights (what :class:`~cage_core.encoder.WeightedRGCNConv` propagates);
* ``graph_of[v]``: the passage each node belongs to;
* ``entity_nodes[i]``: the first :data:`MAX_LINK_ENTITIES` non-numeric named-entity nodes
  of passage i (node order; ``-1`` pads; numeric types as in :mod:`cage_core.bridge`), which
  the model matches across passages;
* pair features ``P[i, j] = (T_ij, E_ij)``: the hand-built title-mention and shared-entity
  links of :mod:`cage_core.bridge` (symmetric, zero diagonal). The model reads them only
  when its config says so (see :class:`~cage_core.link_model.LinkModelConfig`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cage_core.bridge import shared_entity_links, title_links
from cage_core.graph.features import feature_dim, node_features
from cage_core.graph.passage_graph import PassageGraph
from cage_core.graph.pronouns import NUMERIC_ENTITY_TYPES
from cage_core.graph.reweight import min_out_degree_weights
from cage_core.passage import Passage
from cage_core.pool_index import occurs_as_whole_words, words

MAX_LINK_ENTITIES = 16
"""Named-entity nodes per passage that the model matches across passages (the first ones:
the title's come first; the match costs ``O(k² · MAX_LINK_ENTITIES²)``)."""
PAIR_FEATURES: tuple[str, ...] = ("title", "entity")
"""The pair features, in the order of the last axis of :attr:`PoolInputs.pair`."""


def link_feature_dim(vector_dim: int) -> int:
    """Width of a node feature row: the R-GCN features plus the query flag."""
    return feature_dim(vector_dim) + 1


@dataclass(frozen=True, eq=False)
class PoolInputs:
    """The link model's inputs for one pool (see the module docstring)."""

    x: np.ndarray
    """``[N, link_feature_dim]`` float32 node features of all k graphs, graph after graph."""
    edge_index: np.ndarray
    """``[2, M]`` int64 source and target node of each edge, in the pool's node space."""
    edge_type: np.ndarray
    """``[M]`` int64 relation ids."""
    edge_weight: np.ndarray
    """``[M]`` float32 min-out-degree edge weights."""
    graph_of: np.ndarray
    """``[N]`` int64 passage index of each node."""
    entity_nodes: np.ndarray
    """``[k, e]`` int64 entity nodes of each passage, ``-1`` padded (``e ≤ MAX_LINK_ENTITIES``)."""
    pair: np.ndarray
    """``[k, k, len(PAIR_FEATURES)]`` float32 symmetric pair features, zero diagonal."""

    @property
    def k(self) -> int:
        return self.pair.shape[0]


def label_words(labels: Sequence[str]) -> tuple[frozenset[str], ...]:
    """The words (:func:`~cage_core.pool_index.words`) of each lower-cased label."""
    return tuple(frozenset(words(label.lower())) for label in labels)


def query_flags(
    labels: Sequence[str], query: str, words_of: Sequence[frozenset[str]] | None = None
) -> np.ndarray:
    """``[n]`` float32: 1 where the lower-cased label occurs in the lower-cased query as
    whole words (:func:`~cage_core.pool_index.occurs_as_whole_words`), else 0.

    ``words_of`` (:func:`label_words` of ``labels``, e.g. cached) skips labels with a word
    the query lacks before the exact check.
    """
    if words_of is None:
        words_of = label_words(labels)
    q = query.lower()
    in_query = set(words(q))
    return np.array([1.0 if ws <= in_query and occurs_as_whole_words(label.lower(), q) else 0.0
                     for label, ws in zip(labels, words_of)], dtype=np.float32)  # fmt: skip


@dataclass(frozen=True, eq=False)
class GraphInputs:
    """The query-independent inputs of one passage graph (node space of the graph)."""

    x: np.ndarray
    """``[n, link_feature_dim]`` float32 node features, query flag column 0."""
    edge_index: np.ndarray
    edge_type: np.ndarray
    edge_weight: np.ndarray
    entity_nodes: np.ndarray
    """The first :data:`MAX_LINK_ENTITIES` non-numeric entity nodes (int64, node order)."""
    labels: tuple[str, ...]
    words: tuple[frozenset[str], ...]
    """:func:`label_words` of ``labels``."""


def graph_inputs(graph: PassageGraph, *, beta: float, vector_dim: int) -> GraphInputs:
    """One graph's query-independent inputs (module docstring).

    Raises:
        ValueError: when the graph lacks word vectors of width ``vector_dim``.
    """
    g = graph
    check_vectors([g], vector_dim)
    w = min_out_degree_weights(g, beta)
    x = np.zeros((g.num_nodes, link_feature_dim(vector_dim)), dtype=np.float32)
    if g.num_nodes:
        x[:, :-1] = node_features(g, w.node)
    entities = np.array([v for v, ent in enumerate(g.entity_types)
                         if ent and ent not in NUMERIC_ENTITY_TYPES][:MAX_LINK_ENTITIES], dtype=np.int64)  # fmt: skip
    return GraphInputs(x, np.stack([g.edge_src, g.edge_dst]).astype(np.int64), g.edge_type.astype(np.int64),
                       w.edge.astype(np.float32), entities, g.labels, label_words(g.labels))  # fmt: skip


def pair_features(query: str, passages: Sequence[Passage], graphs: Sequence[PassageGraph]) -> np.ndarray:
    """``[k, k, len(PAIR_FEATURES)]`` float32 ``(T_ij, E_ij)`` of :mod:`cage_core.bridge`."""
    k = len(passages)
    pair = np.zeros((k, k, len(PAIR_FEATURES)), dtype=np.float32)
    if k:
        pair[:, :, 0] = title_links([p.title for p in passages], [p.text for p in passages])
        pair[:, :, 1] = shared_entity_links(graphs, query)
        idx = np.arange(k)
        pair[idx, idx] = 0.0
    return pair


def check_vectors(graphs: Sequence[PassageGraph], vector_dim: int) -> None:
    """Raise ``ValueError`` unless every graph carries word vectors of width ``vector_dim``."""
    for g in graphs:
        if g.vectors is None or g.vectors.shape[1] != vector_dim:
            have = "none" if g.vectors is None else f"width {g.vectors.shape[1]}"
            raise ValueError(f"the link model needs graphs with word vectors of width {vector_dim} "
                             f"(a graph has {have}); get graphs with with_vectors=True")  # fmt: skip


def check_pool(passages: Sequence[Passage], graphs: Sequence[PassageGraph], vector_dim: int) -> None:
    """Raise ``ValueError`` unless there is one graph with word vectors per passage."""
    if len(graphs) != len(passages):
        raise ValueError(f"got {len(graphs)} graphs for {len(passages)} passages")
    check_vectors(graphs, vector_dim)


def entity_table(entities: Sequence[np.ndarray], offsets: Sequence[int]) -> np.ndarray:
    """``[k, e]`` pool node ids of each passage's entity nodes, ``-1`` padded."""
    table = np.full((len(entities), max((len(e) for e in entities), default=0)), -1, dtype=np.int64)
    for i, (nodes, offset) in enumerate(zip(entities, offsets)):
        table[i, : len(nodes)] = nodes + offset
    return table


def pool_inputs(
    query: str, passages: Sequence[Passage], graphs: Sequence[PassageGraph], *, beta: float,
    vector_dim: int,
) -> PoolInputs:
    """The inputs of one pool; ``graphs[i]`` is passage i's graph with vectors attached.

    Raises:
        ValueError: when the counts differ, or a graph lacks word vectors of width
            ``vector_dim``.
    """
    check_pool(passages, graphs, vector_dim)
    parts = [graph_inputs(g, beta=beta, vector_dim=vector_dim) for g in graphs]
    sizes = [len(p.labels) for p in parts]
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64) if parts else []
    empty_i, empty_f = np.zeros(0, np.int64), np.zeros(0, np.float32)
    x = np.concatenate([p.x for p in parts]) if parts else np.zeros((0, link_feature_dim(vector_dim)),
                                                                      dtype=np.float32)  # fmt: skip
    x[:, -1] = query_flags([label for p in parts for label in p.labels], query,
                           [ws for p in parts for ws in p.words])  # fmt: skip
    return PoolInputs(
        x=x,
        edge_index=np.concatenate([p.edge_index + o for p, o in zip(parts, offsets)] or [np.zeros((2, 0), np.int64)],
                                  axis=1),
        edge_type=np.concatenate([p.edge_type for p in parts] or [empty_i]),
        edge_weight=np.concatenate([p.edge_weight for p in parts] or [empty_f]),
        graph_of=np.repeat(np.arange(len(parts), dtype=np.int64), sizes),
        entity_nodes=entity_table([p.entity_nodes for p in parts], offsets),
        pair=pair_features(query, passages, graphs),
    )  # fmt: skip
