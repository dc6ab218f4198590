"""Coherence matrix and fusion, checked by hand."""

import numpy as np
import pytest

from cage_core.scoring import coherence_matrix, coherence_scores, fuse, ranking


def test_fusion_formula_on_a_hand_checked_example():
    z = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    c = coherence_matrix(z)
    r = 1 / np.sqrt(2)
    assert np.allclose(c, [[0, r, 0], [r, 0, r], [0, r, 0]], atol=1e-12)
    coh = coherence_scores(c)  # s_i/(k-1)
    assert np.allclose(coh, [r / 2, r, r / 2], atol=1e-12)
    rel = np.array([0.9, 0.2, 0.5])
    f = fuse(rel, coh, alpha=0.7)
    assert f[0] == pytest.approx(0.7 * 0.9 + 0.3 * 0.3535533906, abs=1e-6)
    assert f[1] == pytest.approx(0.7 * 0.2 + 0.3 * 0.7071067812, abs=1e-6)
    assert f[2] == pytest.approx(0.7 * 0.5 + 0.3 * 0.3535533906, abs=1e-6)
    assert ranking(f).tolist() == [0, 2, 1]


def test_single_passage_has_coherence_zero():
    assert coherence_scores(coherence_matrix(np.ones((1, 4)))).tolist() == [0.0]


def test_zero_embeddings_have_zero_cosine():
    c = coherence_matrix(np.array([[0.0, 0.0], [1.0, 0.0]]))
    assert c.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_ties_keep_input_order():
    assert ranking(np.array([0.5, 0.7, 0.5, 0.7])).tolist() == [1, 3, 0, 2]
