"""Similarities at the edges of the float range rank by value; values that are not real
numbers are refused with a TypeError naming the argument (issue 40, row 10)."""

from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cage_core import CageReranker
from cage_core.scoring import min_max, standardize

PASSAGES = ["Alpha text one.", "Beta text two.", "Gamma text three."]


def plain_standardize(x):
    """The formula :func:`standardize` had before the overflow guard."""
    x = np.asarray(x, dtype=np.float64)
    std = x.std()
    return (x - x.mean()) / std if std > 1e-9 else np.zeros_like(x)


def plain_min_max(x):
    """TEGR's min–max scaling before the overflow guard."""
    x = np.asarray(x, dtype=np.float64)
    span = x.max() - x.min()
    return (x - x.min()) / span if span > 1e-12 else np.ones(len(x))


similarity_lists = st.lists(
    st.floats(-1.0, 1.0, allow_nan=False, allow_subnormal=True), min_size=1, max_size=64
)
score_lists = st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=64)


@settings(max_examples=300, deadline=None)
@given(similarity_lists)
def test_ordinary_similarities_standardise_bit_identically_to_the_plain_formula(values):
    assert standardize(values).tobytes() == plain_standardize(values).tobytes()


@settings(max_examples=300, deadline=None)
@given(score_lists)
def test_ordinary_scores_standardise_and_scale_bit_identically(values):
    assert standardize(values).tobytes() == plain_standardize(values).tobytes()
    assert min_max(values).tobytes() == plain_min_max(values).tobytes()


@pytest.mark.parametrize(
    "values, expected",
    [
        ([1e200, 2e200, 3e200], [-1.224744871391589, 0.0, 1.224744871391589]),
        ([1e308, 1e308, 0.0], [0.7071067811865476, 0.7071067811865476, -1.414213562373095]),
        ([-1e308, 1e308], [-1.0, 1.0]),
        ([1e300, 1e300, 1e300], [0.0, 0.0, 0.0]),
    ],
)
def test_huge_finite_values_get_their_z_scores(values, expected):
    assert standardize(values) == pytest.approx(expected, abs=1e-12)


def test_huge_finite_values_get_their_min_max_scale():
    assert min_max([-1e308, 1e308, 0.0]).tolist() == [0.0, 1.0, 0.5]


@pytest.mark.parametrize(
    "sims", [[1e200, 2e200, 3e200], [1e308, 1e308, 0.0], [-1e308, 0.0, 1e308], [3e-3, 2e-3, 1e-3]]
)
@pytest.mark.parametrize("method", ["cage", "vanilla", "grapher", "tegr"])
def test_extreme_similarities_rank_by_value(reranker, method, sims):
    r = reranker if method == "cage" else CageReranker(nlp=reranker.parser.nlp, method=method)
    ranked = r.rerank("Which text?", PASSAGES, query_similarities=sims)
    assert [p.index for p in ranked] == sorted(range(3), key=lambda i: (-sims[i], i))
    assert all(np.isfinite(p.score) for p in ranked)


@pytest.mark.parametrize(
    "sims, named",
    [
        (["0.1", "0.2", "0.3"], "dtype <U3"),
        ([0.1j, 0.2j, 0.3j], "dtype complex128"),
        ([Decimal("0.1"), Decimal("0.2"), Decimal("0.3")], "Decimal at position 0"),
        ([0.1, None, 0.3], "NoneType at position 1"),
        ([True, False, True], "dtype bool"),
        (np.array([0.5, 0.25, 0.75], dtype=object).astype(str), "dtype <U"),
    ],
)
def test_non_numeric_similarities_are_refused(sims, named):
    r = CageReranker(method="vanilla")
    with pytest.raises(
        TypeError, match=rf"query_similarities must be a sequence of numbers.*{named}"
    ):
        r.rerank("q", PASSAGES, query_similarities=sims)


def test_an_int_beyond_the_float_range_is_refused():
    with pytest.raises(ValueError, match="query_similarities must be finite"):
        CageReranker(method="vanilla").rerank("q", PASSAGES, query_similarities=[10**400, 1, 2])


@pytest.mark.parametrize(
    "sims", [[1, 2, 3], np.array([1, 2, 3], dtype=np.uint8), [np.float32(0.5), 0.25, 1]]
)
def test_ints_and_numpy_numbers_are_similarities(sims):
    ranked = CageReranker(method="vanilla").rerank("q", PASSAGES, query_similarities=sims)
    assert [p.similarity for p in ranked] == sorted((float(s) for s in sims), reverse=True)
