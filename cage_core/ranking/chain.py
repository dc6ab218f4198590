"""Evidence-chain selection: the first passages of a ranking chosen as a set, not one by one.

A multi-hop answer needs the passage that answers the first hop *and* the passage its
bridge entity or title leads to, which is often far from the question in embedding space.
The chain is built greedily, ``S_1 = argmax_j g_j(∅)``, ``S_{t+1} = argmax_{j ∉ S} g_j(S)``,
for ``t < n`` (``n`` = :attr:`ChainConfig.length <cage_core.config.ChainConfig>`), with gain

``g_j(S) = r_j + w_q · Q_j + max_{s ∈ S} (w_t · M_sj + w_e · min(E_sj, c))``

* ``r_j`` the pool relevance (:mod:`cage_core.ranking.kinds.bridge`), minus any demotion given;
* ``Q_j = 1`` when the query names passage j's title (the compared entities of a comparison
  question, the first hop of many bridge questions), ``w_q`` = ``query_title_weight``;
* ``M_sj = 1`` when selected passage s's text names passage j's title — the forward hop,
  weighted ``w_t`` = ``title_weight`` (:func:`~cage_core.ranking.links.title_mentions`);
* ``E_sj`` the pool-IDF weight of the entities they share and the query does not name
  (:func:`~cage_core.ranking.links.shared_entity_links`), capped at ``c`` = ``entity_cap`` and
  weighted ``w_e`` = ``entity_weight``.

The max over an empty set is 0. Ties go to the earlier input position. Each chain passage
after the first records *why* it was chosen: the selected passage and the title or entity
of the link that gave it the largest gain (:class:`ChainStep`). The work is ``O(n · k)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cage_core.config import ChainConfig

__all__ = [
    "ChainLinks",
    "ChainStep",
    "select_chain",
]


@dataclass(frozen=True)
class ChainStep:
    """One passage of the chain, in chain order."""

    index: int
    """Position of the passage in the pool."""
    linked_to: int | None
    """Pool position of the selected passage whose link gave the gain (None: relevance alone)."""


@dataclass(frozen=True)
class ChainLinks:
    """The link inputs of :func:`select_chain` for one pool (all in pool order)."""

    title_mentions: np.ndarray
    """``[k, k]`` ``M_sj``: passage s's text names passage j's title."""
    entity_links: np.ndarray
    """``[k, k]`` ``E_sj``: shared-entity weight (symmetric)."""
    query_titles: np.ndarray
    """``[k]`` ``Q_j``: the query names passage j's title."""


def select_chain(
    relevance: np.ndarray, links: ChainLinks, config: ChainConfig
) -> tuple[ChainStep, ...]:
    """The evidence chain of a pool (formula in the module docstring); at most
    ``min(config.length, k)`` steps."""
    r = np.asarray(relevance, dtype=np.float64)
    k = r.shape[0]
    length = min(config.length, k)
    if length == 0:
        return ()
    base = r + config.query_title_weight * links.query_titles
    gain_links = config.title_weight * links.title_mentions + config.entity_weight * np.minimum(
        links.entity_links, config.entity_cap
    )
    best_link = np.zeros(k)
    best_from = np.full(k, -1, dtype=np.int64)
    chosen = np.zeros(k, dtype=bool)
    steps: list[ChainStep] = []
    for _ in range(length):
        gain = np.where(chosen, -np.inf, base + best_link)
        pick = int(np.argmax(gain))  # first maximum: ties go to the earlier position
        steps.append(ChainStep(pick, int(best_from[pick]) if best_link[pick] > 0 else None))
        chosen[pick] = True
        row = gain_links[pick]
        better = (row > best_link) & ~chosen
        best_link[better], best_from[better] = row[better], pick
    return tuple(steps)
