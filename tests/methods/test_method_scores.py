"""One path for every method: CageReranker runs CAGE as a method, and pools hand typed
inputs (passage vectors, ingest-time edges, shared encodings) to the methods."""

import types

import numpy as np
import pytest
from pools import QUERY, TEXTS

from cage_core import CageConfig, CageReranker
from cage_core.config import EncoderConfig
from cage_core.config.kinds import with_settings
from cage_core.methods import CageMethod, Pool, get_method, pool_scores
from cage_core.methods.cage import score_pool
from cage_core.paper.encodings import EncodingCache
from cage_core.passage import Via, as_passages
from cage_core.reranker import configured_reranker

POOL = TEXTS[:4]
SIMS = [0.6, 0.7, 0.1, 0.4]


def _no_embedder(texts):
    raise AssertionError("the embedder must not be called")


def test_the_reranker_runs_cage_as_a_method():
    config = CageConfig(core_size=2)
    assert CageReranker(config).method == CageMethod("cage", config)
    assert CageReranker(config, method="cage").method == CageMethod("cage", config)
    assert configured_reranker(config, alpha=0.5).method == CageMethod(
        "cage", config.replace(alpha=0.5)
    )


@pytest.mark.parametrize(
    "config",
    [
        CageConfig(),
        with_settings(CageConfig.preset("paper"), {"encoder.epochs": 3}),
        CageConfig(rgcn_weight=0.2, encoder=EncoderConfig(epochs=3), contradiction_weight=3.0),
    ],
)
def test_cage_through_the_method_path_gives_exactly_score_pool(nlp, config):
    r = CageReranker(config, nlp=nlp, embedder=_no_embedder)
    graphs = r.graphs(POOL, with_vectors=r.needs_vectors)
    expected = score_pool(QUERY, as_passages(POOL), np.array(SIMS), graphs, config)
    got = r.score(QUERY, POOL, SIMS)
    for part in ("relevance", "coherence", "fused", "matrix", "similarities"):
        assert np.array_equal(getattr(got, part), getattr(expected, part)), part


def test_a_method_without_coherence_has_no_coherence_term_but_keeps_its_vias(nlp):
    r = CageReranker(nlp=nlp, embedder=_no_embedder, method="grapher")
    scores = r.score(QUERY, POOL, SIMS)
    assert np.array_equal(scores.relevance, SIMS) and np.array_equal(scores.similarities, SIMS)
    assert not scores.coherence.any() and not scores.matrix.any()
    ranked = r.rerank(QUERY, POOL, query_similarities=SIMS)
    assert [(o.index, o.via) for o in ranked] == [
        (1, None),
        (0, Via("Warsaw", 0, "entity")),
        (3, None),
        (2, None),
    ]
    assert [o.coherence for o in ranked] == [0.0, pytest.approx(1 - 1 / 3), 0.0, 0.0]


def test_invalid_method_scores_are_rejected():
    class Broken:
        name, needs_graphs = "broken", False

        def score(self, pool):
            return np.array([np.nan])

    with pytest.raises(ValueError, match="method 'broken' returned invalid scores"):
        pool_scores(Broken(), Pool("q", [], np.zeros(0)))


# ---- the encoding cache ---------------------------------------------------------------------

ENCODING_SECONDS = 0.25
"""What one fake training takes on the fake clock (a binary fraction: sums are exact)."""


@pytest.fixture
def counted_encodings(monkeypatch):
    """Replace training by a fake that counts its calls and takes ENCODING_SECONDS on a fake
    clock, the one the cache reads: no real time passes and none is measured."""
    calls = []
    clock = [100.0]

    def fake(graphs, config):
        calls.append(config)
        clock[0] += ENCODING_SECONDS
        return np.eye(len(graphs))

    monkeypatch.setattr("cage_core.paper.encodings.rgcn_coherence_matrix", fake)
    monkeypatch.setattr(
        "cage_core.paper.encodings.time", types.SimpleNamespace(perf_counter=lambda: clock[0])
    )
    return calls


def test_variants_with_one_encoder_config_share_one_encoding(parser, counted_encodings):
    pool = Pool(QUERY, as_passages(POOL), np.array(SIMS), parser.parse(POOL))
    config = CageConfig(encoder=EncoderConfig(epochs=3))
    for name in ("paper", "coherence-only", "cage+rgcn", "cage-gcn"):
        get_method(name, config).score(pool)
    assert counted_encodings == [EncoderConfig(epochs=3), EncoderConfig(kind="gcn", epochs=3)]
    assert len(pool.encodings) == 2


def test_a_reused_encoding_is_charged_its_cost(counted_encodings):
    cache = EncodingCache()
    graphs = [None, None]
    cache.coherence_matrix(graphs, EncoderConfig())
    assert cache.reused_seconds == 0.0
    cache.coherence_matrix(graphs, EncoderConfig())
    cache.coherence_matrix(graphs, EncoderConfig())
    assert cache.reused_seconds == 2 * ENCODING_SECONDS  # each hit charged its entry's cost
    assert len(counted_encodings) == 1


def test_a_registered_method_is_in_cage_evals_default_and_help(monkeypatch):
    import cage_core.methods as registry
    from cage_core.cli.commands import build_parser
    from cage_core.cli.evaluate import method_names
    from cage_core.methods import RandomMethod, register_method

    monkeypatch.setattr(registry, "_FACTORIES", dict(registry._FACTORIES))
    monkeypatch.setattr(registry, "METHOD_NAMES", registry.METHOD_NAMES)
    register_method("my-random", lambda c: RandomMethod(seed=1))
    assert method_names(None)[-1] == "my-random"
    assert method_names(" vanilla, my-random ,") == ["vanilla", "my-random"]
    eval_parser = build_parser()._subparsers._group_actions[0].choices["eval"]
    option = next(a for a in eval_parser._actions if "--methods" in a.option_strings)
    assert option.default is None and option.help.endswith(",my-random)")
    with pytest.raises(ValueError, match="names no method"):
        method_names(" , ")
