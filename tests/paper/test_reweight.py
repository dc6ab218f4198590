"""Min-out-degree reweighting and node feature layout."""

import numpy as np

from cage_core.graphs.relations import ENTITY_TYPES, POS_TAGS
from cage_core.paper.features import feature_dim, node_features
from cage_core.paper.reweight import min_out_degree_weights


def test_min_out_degree_nodes_and_their_edges_get_beta(marie_graph):
    # Marie Curie has out-degree 3; Warsaw and Nobel Prize are sinks (δ⁺ = 0).
    w = min_out_degree_weights(marie_graph, beta=2.0)
    assert marie_graph.out_degree().tolist() == [3, 0, 0]
    assert w.anchors.tolist() == [False, True, True]
    assert w.node.tolist() == [1.0, 2.0, 2.0]
    assert w.edge.tolist() == [2.0, 2.0, 2.0]  # every edge touches a sink


def test_beta_one_switches_reweighting_off(marie_graph):
    w = min_out_degree_weights(marie_graph, beta=1.0)
    assert set(w.node.tolist()) == {1.0} and set(w.edge.tolist()) == {1.0}


def test_feature_layout_vector_pos_entity_weight(marie_graph):
    w = min_out_degree_weights(marie_graph, beta=2.0)
    x = node_features(marie_graph, w.node)
    assert x.shape == (3, feature_dim(300)) == (3, 300 + len(POS_TAGS) + len(ENTITY_TYPES) + 1)
    warsaw = x[1]
    assert np.allclose(warsaw[:300], 2.0 * marie_graph.vectors[1])
    assert warsaw[300 + POS_TAGS.index("PROPN")] == 2.0
    assert warsaw[300 + len(POS_TAGS) + ENTITY_TYPES.index("GPE")] == 2.0
    assert warsaw[-1] == 2.0  # the weight scalar reads β for an anchor
    assert x[0, -1] == 1.0
