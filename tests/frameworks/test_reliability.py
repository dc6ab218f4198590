"""Reliability: bad input gets a defined result or a clear error; outputs conserve passages;
concurrent use gives exactly the sequential results."""

import asyncio
import math
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cage_core import CageConfig, CageReranker, PassageGraph
from cage_core.config import EncoderConfig
from cage_core.config.kinds import with_settings

QUERY = "Where was Marie Curie born?"
NASTY = [
    "Marie \ud800 Curie was born in Warsaw.",  # invalid (lone) surrogate
    "😀😀 emoji only 🎉",
    "<html><body><p>Warsaw &amp; Kraków</p><script>x()</script></body></html>",
    "ctrl\x00\x01\x1b[31m red \x7f",
    "日本語のテキストです。東京は首都です。",
    "Привет мир, Варшава — столица Польши.",
    "",
    "   \n\t  ",
    "\u200b\u200b\u200b",
    "the of and to",
    "Warsaw is the capital of Poland.",
    "Warsaw is the capital of Poland.",  # identical duplicate
]


def _check_conservation(out, k, top_n=None):
    expected = k if top_n is None else min(top_n, k)
    assert len(out) == expected
    indices = [o.index for o in out]
    assert len(set(indices)) == len(indices) and all(0 <= i < k for i in indices)
    assert [o.rank for o in out] == list(range(expected))
    for o in out:
        assert all(math.isfinite(v) for v in (o.score, o.similarity, o.coherence))
    assert [o.score for o in out] == sorted((o.score for o in out), reverse=True)


def test_nasty_passages_get_a_full_finite_ranking(reranker):
    out = reranker.rerank(QUERY, NASTY)
    _check_conservation(out, len(NASTY))
    assert {o.index: o.text for o in out} == dict(enumerate(NASTY))  # text returned unchanged


def test_nasty_query_is_fine(reranker):
    _check_conservation(reranker.rerank("\ud800 <b>who</b> \x00?", NASTY[:3]), 3)


def test_a_200k_character_passage_is_cut_with_a_warning(nlp, caplog):
    r = CageReranker(CageConfig(encoder=EncoderConfig(epochs=5)), nlp=nlp, embedder=lambda t: None)
    huge = "Marie Curie was born in Warsaw. " * 6250  # 200,000 characters
    out = r.rerank(QUERY, [huge, "Warsaw is in Poland."], query_similarities=[0.5, 0.4])
    _check_conservation(out, 2)
    assert "passage of 200000 characters cut to max_parse_chars=20000" in caplog.text


@pytest.mark.parametrize("top_n, expected", [(0, 0), (3, 3), (100, len(NASTY)), (None, len(NASTY))])
def test_top_n_bounds(reranker, top_n, expected):
    assert len(reranker.rerank(QUERY, NASTY, top_n=top_n)) == expected


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"top_n": -1}, ValueError, "top_n must be >= 0"),
        ({"top_n": 2.5}, TypeError, "top_n must be an int"),
        ({"query_similarities": [0.1]}, ValueError, "one value for each"),
        ({"query_similarities": [float("nan")] * 12}, ValueError, "NaN/inf"),
        ({"query_similarities": ["a"] * 12}, TypeError, "sequence of numbers"),
    ],
)
def test_bad_arguments_fail_fast_with_a_message(reranker, kwargs, error, message):
    with pytest.raises(error, match=message):
        reranker.rerank(QUERY, NASTY, **kwargs)


@pytest.mark.parametrize(
    "field, value",
    [("alpha", 1.01), ("alpha", -1), ("encoder.beta", 0.0), ("encoder.beta", float("inf"))],
)
def test_out_of_range_alpha_beta(field, value):
    with pytest.raises(ValueError, match=field.rpartition(".")[2]):
        with_settings(CageConfig(), {field: value})


@pytest.mark.parametrize("passages", [[b"bytes"], [1.5], [{"text": "dict"}], [["list"]]])
def test_non_string_passages_are_type_errors(reranker, passages):
    with pytest.raises(TypeError, match="pass str or cage_core.Passage"):
        reranker.rerank(QUERY, passages)


# ---- property-based ---------------------------------------------------------------------

texts = st.text(st.characters(codec=None, exclude_categories=()), max_size=120)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=texts)
def test_graph_builder_invariants_on_random_unicode(parser, text):
    g = parser.with_vectors(parser.parse([text]))[0]
    n = g.num_nodes
    assert g.vectors.shape == (n, 300)
    back = PassageGraph.from_stored(g.to_text())  # any parse survives the stored form
    assert (back.labels, back.triples(), back.content_sha) == (g.labels, g.triples(), g.content_sha)
    assert len({label.lower() for label in g.labels}) == n  # one node per distinct label
    if g.num_edges:
        assert g.edge_src.max() < n and g.edge_dst.max() < n
        assert (g.edge_src != g.edge_dst).all()  # no self-loops


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    pool=st.lists(texts, min_size=0, max_size=12),
    top_n=st.one_of(st.none(), st.integers(0, 15)),
    sims=st.data(),
)
def test_rerank_conserves_passages_on_random_pools(nlp, pool, top_n, sims):
    r = CageReranker(CageConfig(encoder=EncoderConfig(epochs=3)), nlp=nlp, embedder=lambda t: None)
    values = sims.draw(st.lists(st.floats(-1, 1), min_size=len(pool), max_size=len(pool)))
    out = r.rerank(QUERY, pool, top_n=top_n, query_similarities=values)
    _check_conservation(out, len(pool), top_n)


# ---- concurrency ------------------------------------------------------------------------

POOLS = [
    ["Marie Curie was born in Warsaw.", "Warsaw is the capital of Poland.", "Bananas are yellow."],
    [
        "Paris is in France.",
        "The Seine flows through Paris.",
        "Rome is in Italy.",
        "Pasta is food.",
    ],
    ["Einstein developed relativity.", "Relativity changed physics.", "Cats purr."],
]


def test_eight_threads_share_one_reranker_and_match_sequential(nlp, embedder):
    shared = CageReranker(CageConfig(encoder=EncoderConfig(epochs=10)), nlp=nlp, embedder=embedder)
    calls = [(f"question {i % 5}", POOLS[i % 3]) for i in range(8 * 50)]
    reference = CageReranker(
        CageConfig(encoder=EncoderConfig(epochs=10)), nlp=nlp, embedder=embedder
    )
    expected = [reference.rerank(q, p) for q, p in calls]
    with ThreadPoolExecutor(max_workers=8) as pool:
        got = list(pool.map(lambda c: shared.rerank(*c), calls))
    assert got == expected


def test_wrappers_under_asyncio_gather_match_sequential(nlp):
    from langchain_core.documents import Document
    from llama_index.core.schema import NodeWithScore, TextNode

    from cage_langchain import CageRerank as LCRerank
    from cage_llamaindex import CageRerank as LIRerank

    lc = LCRerank(top_n=2, config=CageConfig(encoder=EncoderConfig(epochs=10)))
    li = LIRerank(top_n=2, config=CageConfig(encoder=EncoderConfig(epochs=10)))
    docs = [[Document(page_content=t, metadata={"i": i}) for i, t in enumerate(p)] for p in POOLS]
    nodes = [
        [
            NodeWithScore(node=TextNode(text=t, id_=f"{j}-{i}"), score=0.1 * i)
            for i, t in enumerate(p)
        ]
        for j, p in enumerate(POOLS)
    ]
    originals = (
        [[d.model_copy(deep=True) for d in ds] for ds in docs],
        [[n.model_copy(deep=True) for n in ns] for ns in nodes],
    )

    async def both():
        a = await asyncio.gather(
            *(lc.acompress_documents(docs[i % 3], f"q{i % 4}") for i in range(32))
        )
        b = await asyncio.gather(
            *(li.apostprocess_nodes(nodes[i % 3], query_str=f"q{i % 4}") for i in range(32))
        )
        return a, b

    lc_async, li_async = asyncio.run(both())
    assert lc_async == [lc.compress_documents(docs[i % 3], f"q{i % 4}") for i in range(32)]

    def key(res):
        return [(n.node.node_id, n.score, n.node.metadata) for n in res]

    assert [key(r) for r in li_async] == [
        key(li.postprocess_nodes(nodes[i % 3], query_str=f"q{i % 4}")) for i in range(32)
    ]
    # the callers' objects are untouched
    assert [[d.model_dump() for d in ds] for ds in docs] == [
        [d.model_dump() for d in ds] for ds in originals[0]
    ]
    assert [[(n.score, n.node.metadata) for n in ns] for ns in nodes] == [
        [(n.score, n.node.metadata) for n in ns] for ns in originals[1]
    ]
