"""Paired bootstrap intervals of a mean difference (e.g. out of fold minus hybrid, per question)."""

from __future__ import annotations

import numpy as np

__all__ = ["RESAMPLES", "paired_interval"]

RESAMPLES = 10_000
"""Resamples of the questions per interval."""


def paired_interval(
    diff: np.ndarray, seed: int = 0, resamples: int = RESAMPLES
) -> tuple[np.ndarray, np.ndarray]:
    """The 2.5th and 97.5th percentiles of the mean of ``diff`` (``[n, m]``, one row per
    question) over ``resamples`` resamples of its rows with replacement (``numpy``'s
    ``default_rng(seed)``): a 95% interval, paired because a question's row is resampled
    whole."""
    rows = np.random.default_rng(seed).integers(0, len(diff), (resamples, len(diff)))
    means = diff[rows].mean(axis=1)
    return np.percentile(means, 2.5, axis=0), np.percentile(means, 97.5, axis=0)
