"""The trained link model: its contract, the safe loading of its weights, its training and
``cage train``."""

import io
import json
import threading
from pathlib import Path

import numpy as np
import pytest
import torch

from cage_core.cli import main
from cage_core.eval.datasets import load_questions
from cage_core.link_model import LinkModel, LinkModelConfig, LinkNet
from cage_core.link_training import (
    LinkTrainingConfig,
    assign_folds,
    file_digest,
    load_examples,
    train_link_net,
)
from cage_core.link_weights import (
    HEADER_KEY,
    MAX_WEIGHTS_BYTES,
    LinkWeightsError,
    default_link_model,
    load_link_model,
    save_link_model,
)
from cage_core.passage import Passage

pytestmark = pytest.mark.models  # the R-GCN stack; most tests also parse with spaCy

TINY = Path(__file__).parent / "fixtures" / "tiny_multihop.jsonl"
QUERY = "In which country was the director of Sky Harbor born?"


@pytest.fixture(scope="module")
def pool(reranker):
    q = load_questions(TINY)[0]
    passages = [Passage(text=p.text, title=p.title) for p in q.passages]
    return q.question, passages, reranker.graphs(passages, level="full", with_vectors=True)


@pytest.fixture(scope="module")
def tiny_examples(reranker):
    return load_examples([TINY], reranker, LinkModelConfig())


def small_net(seed=0, **config):
    net = LinkNet(LinkModelConfig(**config))
    net.reset_parameters(torch.Generator().manual_seed(seed))
    return net.eval()


# -- the shipped model and the scoring contract ---------------------------------------------


def test_the_shipped_model_scores_a_pool_as_a_symmetric_matrix_with_zero_diagonal(pool):
    query, passages, graphs = pool
    s = LinkModel.load_default().link_matrix(query, passages, graphs)
    k = len(passages)
    assert s.shape == (k, k) and s.dtype == np.float64
    assert np.array_equal(s, s.T) and not s.diagonal().any()
    assert ((s >= 0) & (s <= 1)).all() and (s[~np.eye(k, dtype=bool)] > 0).all()


def test_scores_are_deterministic_and_do_not_depend_on_the_loaded_copy(pool, tmp_path):
    query, passages, graphs = pool
    model = LinkModel.load_default()
    first = model.link_matrix(query, passages, graphs)
    copy = tmp_path / "copy.safetensors"
    save_link_model(copy, model.net, model.header)
    assert np.array_equal(first, model.link_matrix(query, passages, graphs))
    assert np.array_equal(first, load_link_model(copy).link_matrix(query, passages, graphs))


def test_the_cached_per_passage_encodings_give_the_scores_of_the_whole_network(pool):
    query, passages, graphs = pool
    model = LinkModel.load_default()
    whole = model.score_inputs(model.inputs(query, passages, graphs))
    assert np.allclose(model.link_matrix(query, passages, graphs), whole, rtol=0, atol=1e-6)


def test_each_passage_is_encoded_once_and_the_cache_carries_no_query(pool):
    query, passages, graphs = pool
    model, fresh = LinkModel(small_net(seed=1)), LinkModel(small_net(seed=1))
    model.link_matrix(query, passages, graphs)
    assert len(model.encodings) == len(passages)
    other = "Which river is longer, the Olt or the Mures?"
    second = model.link_matrix(other, passages, graphs)
    assert len(model.encodings) == len(passages)
    assert np.array_equal(second, fresh.link_matrix(other, passages, graphs))


def test_the_default_model_is_loaded_once_and_shared_across_threads():
    found = []
    threads = [threading.Thread(target=lambda: found.append(default_link_model())) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(found) == 4 and all(m is LinkModel.load_default() for m in found)


def test_the_shipped_header_says_how_the_weights_were_made():
    header = LinkModel.load_default().header
    assert header["command"].startswith("cage train")
    assert set(header["data"]) == {"hotpotqa.jsonl", "2wikimultihopqa.jsonl", "musique.jsonl"}
    assert all(len(digest) == 64 for digest in header["data"].values())
    assert header["cross_validation"]["folds"] == 5


def test_pools_of_zero_and_one_passage_get_empty_and_zero_matrices(pool):
    query, passages, graphs = pool
    model = LinkModel.load_default()
    assert model.link_matrix(query, [], []).shape == (0, 0)
    assert model.link_matrix(query, passages[:1], graphs[:1]).tolist() == [[0.0]]


def test_graphs_without_word_vectors_or_of_another_count_are_refused(pool, reranker):
    query, passages, graphs = pool
    model = LinkModel.load_default()
    bare = reranker.graphs(passages, level="full")
    with pytest.raises(ValueError, match="with_vectors=True"):
        model.link_matrix(query, passages, bare)
    with pytest.raises(ValueError, match="got 3 graphs for 4 passages"):
        model.link_matrix(query, passages, graphs[:3])


def test_a_model_without_graphs_reads_only_the_hand_built_links(pool):
    query, passages, graphs = pool
    model = LinkModel(small_net(use_graphs=False))
    inputs = model.inputs(query, passages, graphs)
    s = model.score_inputs(inputs)
    linked = inputs.pair.sum(axis=2) > 0
    # equal pair features give equal scores, whatever the passages say
    unlinked = s[~linked & ~np.eye(len(passages), dtype=bool)]
    assert np.allclose(unlinked, unlinked[0])


# -- weight files: round trip and hostile input ------------------------------------------


def stored(tmp_path, net=None, header=None, name="w.safetensors"):
    return save_link_model(tmp_path / name, net or small_net(hidden_dim=4, match_dim=2, pair_dim=3),
                           header or {})  # fmt: skip


def rewrite(path, tensors=None, metadata=None):
    from safetensors import safe_open
    from safetensors.numpy import load_file, save_file

    with safe_open(str(path), framework="numpy") as f:
        meta = f.metadata()
    data = load_file(str(path))
    if tensors is not None:
        data = tensors(data)
    save_file(data, str(path), metadata=meta if metadata is None else metadata(meta))
    return path


def test_saved_weights_load_back_identically(tmp_path):
    net = small_net(seed=3, hidden_dim=4, match_dim=2, pair_dim=3)
    loaded = load_link_model(stored(tmp_path, net, {"note": "x"}))
    assert loaded.config == net.config and loaded.header["note"] == "x"
    for name, value in net.state_dict().items():
        assert torch.equal(loaded.net.state_dict()[name], value)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda p: p.unlink(), "cannot read"),
        (lambda p: p.write_bytes(b"\x80\x04\x95 pickle protocol 4"), "not a readable safetensors"),
        (lambda p: p.write_bytes(torch.save({"w": 1}, p) or p.read_bytes()), "not a readable safetensors"),
        (lambda p: rewrite(p, metadata=lambda m: {}), "not a cage link-model file"),
        (lambda p: rewrite(p, metadata=lambda m: {HEADER_KEY: "{not json"}), "not JSON"),
        (lambda p: rewrite(p, metadata=lambda m: {HEADER_KEY: json.dumps({**json.loads(m[HEADER_KEY]),
                                                                          "version": 9})}), "version 9"),
        (lambda p: rewrite(p, metadata=lambda m: {HEADER_KEY: json.dumps(
            {**json.loads(m[HEADER_KEY]), "config": {"hidden_dim": 4}})}), "invalid link-model config"),
        (lambda p: rewrite(p, metadata=lambda m: {HEADER_KEY: json.dumps(
            {**json.loads(m[HEADER_KEY]), "config": {**json.loads(m[HEADER_KEY])["config"],
                                                     "hidden_dim": -1}})}), "hidden_dim must be in"),
        (lambda p: rewrite(p, tensors=lambda t: {k: v for k, v in t.items() if k != "out.bias"}),
         "do not match the config"),
        (lambda p: rewrite(p, tensors=lambda t: {**t, "extra": np.zeros(1, np.float32)}),
         "do not match the config"),
        (lambda p: rewrite(p, tensors=lambda t: {**t, "out.bias": np.zeros(2, np.float32)}),
         r"'out.bias' must be float32 of shape \(1,\)"),
        (lambda p: rewrite(p, tensors=lambda t: {**t, "out.bias": np.zeros(1, np.float64)}),
         "must be float32"),
        (lambda p: rewrite(p, tensors=lambda t: {**t, "out.bias": np.full(1, np.nan, np.float32)}),
         "non-finite"),
    ],
    ids=["missing", "pickle-bytes", "torch-save", "no-header", "header-not-json", "other-version",
         "config-fields", "config-value", "missing-tensor", "extra-tensor", "wrong-shape", "wrong-dtype",
         "nan"],
)
def test_damaged_or_hostile_weight_files_raise_a_clear_error(tmp_path, damage, message):
    path = stored(tmp_path)
    damage(path)
    with pytest.raises(LinkWeightsError, match=message) as info:
        load_link_model(path)
    assert str(path) in str(info.value)


def test_oversized_weight_files_are_refused_before_reading(tmp_path):
    path = tmp_path / "huge.safetensors"
    with path.open("wb") as f:
        f.truncate(MAX_WEIGHTS_BYTES + 1)
    with pytest.raises(LinkWeightsError, match="more than"):
        load_link_model(path)


# -- training ------------------------------------------------------------------------------


def test_a_short_training_run_on_a_real_pool_lowers_the_loss_reproducibly(tiny_examples):
    training = LinkTrainingConfig(epochs=5, batch_pools=2, learning_rate=1e-2)
    net, losses = train_link_net(tiny_examples, LinkModelConfig(), training)
    again, same = train_link_net(tiny_examples, LinkModelConfig(), training)
    assert len(losses) == 6 and losses[-1] < losses[0]
    assert same == losses
    assert all(torch.equal(v, again.state_dict()[k]) for k, v in net.state_dict().items())


def test_folds_are_disjoint_balanced_and_mix_the_datasets(tiny_examples):
    examples = tiny_examples * 5  # 10 pools of one dataset stand in for a larger file
    fold = assign_folds(examples, 5, seed=0)
    assert sorted(np.bincount(fold).tolist()) == [2, 2, 2, 2, 2]
    assert np.array_equal(fold, assign_folds(examples, 5, seed=0))
    with pytest.raises(ValueError, match="folds must be in"):
        assign_folds(examples, 1, seed=0)


# -- cage train ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--folds", "1"], "--folds must be 0"), (["--variant", "magic"], "unknown link-model variant"),
     (["--compare", "graphs,nope"], "unknown link-model variant 'nope'"), (["--limit", "0"], "--limit"),
     (["--threads", "0"], "--threads")],
)
def test_cage_train_refuses_bad_arguments(tmp_path, capsys, args, message):
    out = tmp_path / "w.safetensors"
    assert main(["train", "--data", str(TINY), "--out", str(out), *args], out=io.StringIO()) == 2
    assert message in capsys.readouterr().err and not out.exists()


def test_cage_train_cross_validates_and_writes_loadable_weights(tmp_path):
    out, report = tmp_path / "w.safetensors", tmp_path / "cv.md"
    text = io.StringIO()
    code = main(["train", "--data", str(TINY), "--folds", "2", "--train-epochs", "2", "--out", str(out),
                 "--report", str(report), "--no-progress"], out=text)
    assert code == 0
    printed = text.getvalue()
    assert "2-fold cross-validation" in printed and "| all | 2 | hand-built L |" in printed
    assert "| tiny | 2 | graphs+links |" in printed and report.read_text() in printed
    model = load_link_model(out)
    assert model.config == LinkModelConfig()
    assert model.header["data"] == {TINY.name: file_digest(TINY)}
    assert model.header["questions"] == 2 and model.header["cross_validation"]["folds"] == 2
