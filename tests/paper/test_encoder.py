"""The weighted R-GCN layer, the encoder and per-query diversity training."""

import numpy as np
import pytest
import torch
import torch_geometric.backend
from torch_geometric.nn import RGCNConv

from cage_core.config import EncoderConfig
from cage_core.paper.encoder import WeightedRGCNConv, diversity_loss, encode_pool, graph_batch

pytestmark = pytest.mark.models  # the R-GCN stack: torch and torch-geometric take seconds to import


@pytest.fixture
def small_graph():
    torch.manual_seed(0)
    x = torch.randn(5, 6)
    edge_index = torch.tensor([[0, 1, 2, 3, 0, 4], [1, 2, 1, 1, 3, 3]])
    edge_type = torch.tensor([0, 0, 1, 1, 2, 0])
    return x, edge_index, edge_type


def test_unit_edge_weights_equal_pyg_rgcnconv_per_relation_mean(small_graph, monkeypatch):
    # Pin PyG's per-relation path (pyg-lib's segment_matmul path averages over all relations).
    monkeypatch.setattr(torch_geometric.backend, "use_segment_matmul", False)
    x, edge_index, edge_type = small_graph
    ours = WeightedRGCNConv(6, 4, num_relations=3)
    ref = RGCNConv(6, 4, num_relations=3, aggr="mean", root_weight=True, bias=True)
    with torch.no_grad():
        ref.weight.copy_(ours.weight)
        ref.root.copy_(ours.root)
        ref.bias.copy_(torch.randn(4))
        ours.bias.copy_(ref.bias)
    expected = ref(x, edge_index, edge_type)
    got = ours(x, edge_index, edge_type, torch.ones(6))
    assert torch.allclose(got, expected, atol=1e-6)


def test_formula_by_hand_with_edge_weights(small_graph):
    x, edge_index, edge_type = small_graph
    conv = WeightedRGCNConv(6, 4, num_relations=3)
    w = torch.tensor([2.0, 1.0, 3.0, 1.0, 1.0, 0.5])
    out = conv(x, edge_index, edge_type, w)
    # Node 1 receives relation 0 from node 0 (w=2), relation 1 from nodes 2 (w=3) and 3 (w=1).
    expected = (
        x[1] @ conv.root
        + conv.bias
        + 2.0 * (x[0] @ conv.weight[0])
        + (3.0 * (x[2] @ conv.weight[1]) + 1.0 * (x[3] @ conv.weight[1])) / 2
    )
    assert torch.allclose(out[1], expected, atol=1e-5)


def test_changing_an_edge_weight_changes_the_output(small_graph):
    x, edge_index, edge_type = small_graph
    conv = WeightedRGCNConv(6, 4, num_relations=3)
    a = conv(x, edge_index, edge_type, torch.ones(6))
    b = conv(x, edge_index, edge_type, torch.tensor([1.0, 1.0, 1.0, 1.0, 1.0, 2.0]))
    assert not torch.allclose(a[3], b[3])
    assert torch.allclose(a[[0, 1, 2, 4]], b[[0, 1, 2, 4]])  # only the target of edge 5 moves


def test_reweighting_changes_graph_embeddings(parser):
    graphs = parser.with_vectors(
        parser.parse(
            [
                "Marie Curie was born in Warsaw. She won the Nobel Prize.",
                "Warsaw is the capital of Poland.",
            ]
        )
    )
    a = encode_pool(graphs, EncoderConfig(beta=1.0, epochs=0)).embeddings
    b = encode_pool(graphs, EncoderConfig(beta=2.0, epochs=0)).embeddings
    assert not np.allclose(a, b)


def test_training_lowers_mean_pairwise_cosine(parser):
    graphs = parser.with_vectors(
        parser.parse(
            [
                "Marie Curie was born in Warsaw. She won the Nobel Prize.",
                "Warsaw is the capital of Poland.",
                "Pierre Curie shared the Nobel Prize in Physics in 1903.",
                "Bananas are rich in potassium.",
            ]
        )
    )
    result = encode_pool(graphs, EncoderConfig(epochs=50))
    assert result.final_loss < result.initial_loss - 0.05


def test_encoding_is_deterministic_for_a_seed(parser):
    graphs = parser.with_vectors(
        parser.parse(["Warsaw is the capital of Poland.", "Paris is in France."])
    )
    a = encode_pool(graphs, EncoderConfig(epochs=10, seed=3)).embeddings
    b = encode_pool(graphs, EncoderConfig(epochs=10, seed=3)).embeddings
    c = encode_pool(graphs, EncoderConfig(epochs=10, seed=4)).embeddings
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("kind", ["rgcn", "gcn"])
def test_both_encoder_kinds_give_one_embedding_per_graph(parser, kind):
    graphs = parser.with_vectors(
        parser.parse(["Warsaw is the capital of Poland.", "", "Paris is in France."])
    )
    z = encode_pool(graphs, EncoderConfig(kind=kind, epochs=5, hidden_dim=16)).embeddings
    assert z.shape == (3, 16)
    assert np.all(z[1] == 0.0)  # an empty graph pools to the zero vector


def test_batch_carries_edge_weights_and_types(marie_graph):
    batch = graph_batch([marie_graph, marie_graph], beta=2.0, vector_dim=300)
    assert batch.num_graphs == 2 and batch.num_nodes == 6
    assert batch.edge_weight.tolist() == [2.0] * 6
    assert batch.edge_index.max().item() == 5


def test_diversity_loss_is_mean_off_diagonal_cosine():
    z = torch.tensor([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    # pairs: (0,1)=1, (0,2)=0, (1,2)=0 → mean over the 6 ordered pairs = 2/6
    assert diversity_loss(z).item() == pytest.approx(1 / 3)
    assert diversity_loss(z[:1]).item() == 0.0
