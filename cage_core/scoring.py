"""Numeric building blocks of the scores: cosines, the R-GCN coherence matrix and its row
means, the α-weighted fusion and a deterministic ranking. Which of them make up a method's
score is said once, in :mod:`cage_core.methods.cage`.

Cosines and row sums are computed so that duplicate passages get bit-identical values
wherever they sit in the pool (``einsum`` instead of BLAS, ``math.fsum`` row sums); a zero
vector (a passage with no content words) has cosine 0 with everything.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "coherence_matrix",
    "coherence_scores",
    "cosine_matrix",
    "fuse",
    "min_max",
    "ranking",
    "standardize",
]

_EPS = 1e-12


def cosine_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine similarity of every row of ``a`` with every row of ``b`` (zero rows give 0).

    Computed with ``einsum`` loops rather than BLAS so that equal rows give bit-identical
    results wherever they sit in the matrix (BLAS kernels differ between row blocks).
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    an = a / np.maximum(np.sqrt(np.einsum("id,id->i", a, a)), _EPS)[:, None]
    bn = b / np.maximum(np.sqrt(np.einsum("id,id->i", b, b)), _EPS)[:, None]
    return np.clip(np.einsum("id,jd->ij", an, bn), -1.0, 1.0)


def coherence_matrix(embeddings: np.ndarray) -> np.ndarray:
    """``[k, k]`` symmetric matrix of pairwise cosines of ``embeddings`` with a zero diagonal."""
    c = cosine_matrix(embeddings, embeddings)
    np.fill_diagonal(c, 0.0)
    return c


def coherence_scores(matrix: np.ndarray) -> np.ndarray:
    """The mean of each row over the other ``k − 1`` passages; zeros when k ≤ 1 (row sums
    by ``math.fsum``: exactly rounded, so independent of the order of the passages)."""
    k = matrix.shape[0]
    if k <= 1:
        return np.zeros(k, dtype=np.float64)
    return np.array([math.fsum(row) for row in matrix.tolist()], dtype=np.float64) / (k - 1)


def fuse(relevance: np.ndarray, coherence: np.ndarray, alpha: float) -> np.ndarray:
    """``α·relevance + (1−α)·coherence``, elementwise."""
    return alpha * np.asarray(relevance, dtype=np.float64) + (1.0 - alpha) * np.asarray(
        coherence, dtype=np.float64
    )


def ranking(scores: np.ndarray) -> np.ndarray:
    """Indices by descending score; equal scores keep their input order."""
    return np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")


def standardize(x: np.ndarray) -> np.ndarray:
    """``(x − mean)/std`` within the pool; zeros when the values are (nearly) constant
    (``std ≤ 1e-9``: values that differ by less than that are a tie).

    Finite values too large for that formula (``|x|`` beyond about 1e154, where the squares
    of the deviations overflow) are first divided by ``max |x|``, which leaves the z-scores
    as they are; every other input takes the plain formula, so ordinary scores are
    bit-identical to it.
    """
    x = np.asarray(x, dtype=np.float64)
    if not x.size:
        return np.zeros_like(x)
    with np.errstate(over="ignore", invalid="ignore"):
        mean, std = x.mean(), x.std()
    if not (math.isfinite(mean) and math.isfinite(std)) and np.isfinite(x).all():
        return _standardize_scaled(x)
    return (x - mean) / std if std > 1e-9 else np.zeros_like(x)


def _standardize_scaled(x: np.ndarray) -> np.ndarray:
    """:func:`standardize` of finite ``x`` whose plain mean or std overflows: computed on
    ``x / max |x|`` (in [-1, 1]), whose std is ``std(x) / max |x|``."""
    scale = float(np.abs(x).max())
    y = x / scale
    std = y.std()
    return (y - y.mean()) / std if std * scale > 1e-9 else np.zeros_like(x)


def min_max(x: np.ndarray) -> np.ndarray:
    """``(x − min)/(max − min)`` within the pool, in [0, 1]; ones when the values are (nearly)
    constant (span ≤ 1e-12). Finite values whose span overflows (beyond about 1.8e308) are
    first divided by ``max |x|``, as in :func:`standardize`; every other input takes the
    plain formula."""
    x = np.asarray(x, dtype=np.float64)
    if not x.size:
        return np.ones_like(x)
    with np.errstate(over="ignore", invalid="ignore"):
        span = x.max() - x.min()
    if not math.isfinite(span) and np.isfinite(x).all():
        return min_max(x / float(np.abs(x).max()))
    return (x - x.min()) / span if span > 1e-12 else np.ones_like(x)
