"""Two ways of lifting passages to the top of a ranking: the evidence chain, in chain order
(:func:`chain_first`), and groups of passages with their exact duplicates (:func:`ranked_first`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cage_core.ranking.chain import ChainStep

__all__ = ["chain_first", "ranked_first"]


def chain_first(fused: np.ndarray, chain: Sequence[ChainStep]) -> np.ndarray:
    """Scores that rank the chain first, in chain order, then the rest by ``fused``
    (:func:`ranked_first`)."""
    return ranked_first(fused, [[step.index] for step in chain])


def ranked_first(fused: np.ndarray, lead: Sequence[Sequence[int]]) -> np.ndarray:
    """Scores that rank the groups of passages ``lead`` first, in that order, then the rest by
    ``fused``: every passage of the group at position t (0-based, of n) scores
    ``max_j f_j + n − t`` (a group holds a passage and its exact duplicates, which so keep
    equal scores)."""
    if not len(lead):
        return fused
    top = float(fused.max())
    lifted = fused.copy()
    for t, group in enumerate(lead):
        lifted[list(group)] = top + len(lead) - t
    return lifted
