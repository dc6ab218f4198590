"""The choice: grid points, and the out-of-fold choice among them.

For each fold k, the point with the best objective on the other folds (the first best in grid
order) ranks the questions of fold k; the out-of-fold figures are those rankings, so every
question is ranked by settings chosen without it. The shipped default is the point chosen on
all folds together. A point may be barred (``-inf`` objective) by a guard, e.g. RAMDocs'
misinformation.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .folds import FOLDS

__all__ = ["CrossValidation", "cross_validate", "grid_points", "group_objective"]

Objective = Callable[[np.ndarray], np.ndarray]
"""``mask [N] bool → value [P]``: each grid point's objective on the pools of ``mask``."""


def grid_points(grid: Mapping[str, Sequence[object]]) -> list[dict[str, object]]:
    """Every combination of ``grid``'s values, the last name varying fastest (grid order)."""
    names = list(grid)
    return [dict(zip(names, values)) for values in itertools.product(*grid.values())]


def group_objective(
    scores: np.ndarray,
    groups: np.ndarray,
    names: Sequence[str],
    allowed: np.ndarray | None = None,
) -> Objective:
    """The objective of every tuning script: the mean over the groups ``names`` (files, or
    (file, setting) pairs) of the group's mean ``R@3 + R@5``; ``scores`` is ``[P, N, M]`` with
    R@3 and R@5 in columns 0 and 1, ``groups`` the group of each pool. Points not ``allowed``
    score ``-inf``."""

    def objective(mask: np.ndarray) -> np.ndarray:
        means = np.mean(
            [scores[:, mask & (groups == g), :2].sum(axis=2).mean(axis=1) for g in names], axis=0
        )
        return means if allowed is None else np.where(allowed, means, -np.inf)

    return objective


@dataclass(frozen=True)
class CrossValidation:
    """Each fold's choice (a grid index), the out-of-fold rows of ``scores`` and the all-fold
    choice."""

    fold_choices: tuple[int, ...]
    out_of_fold: np.ndarray
    chosen: int


def cross_validate(
    scores: np.ndarray,
    folds: np.ndarray,
    objective: Objective,
    train: np.ndarray | None = None,
    n_folds: int = FOLDS,
) -> CrossValidation:
    """The out-of-fold choice (module docstring). ``scores``: ``[P, N, ...]``, one row per grid
    point and pool; ``folds``: the fold of each pool; ``train``: the pools the objective may
    read (default all; the held-out rows of every fold are scored either way)."""
    train = np.ones(len(folds), dtype=bool) if train is None else train
    out_of_fold = np.zeros(scores.shape[1:], dtype=scores.dtype)
    choices = []
    for k in range(n_folds):
        best = int(np.argmax(objective(train & (folds != k))))
        choices.append(best)
        out_of_fold[folds == k] = scores[best, folds == k]
    return CrossValidation(tuple(choices), out_of_fold, int(np.argmax(objective(train))))
