"""How the commands print passages: a clipped one-line label and the evidence chain's
"← via" note."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cage_core.passage import Passage, Via
from cage_core.ranking.explanation import explain_ranking
from cage_core.ranking.pool_scores import PoolScores

__all__ = ["chain_vias", "clip", "via_text"]


def clip(text: str, width: int) -> str:
    """``text`` on one line, cut to ``width`` characters with "…"."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def via_text(via: Via | None) -> str:
    """``"← via 'Shirley Temple' from #1"`` (the passage is linked to rank #1 through that name)."""
    return "" if via is None else f"← via '{via.name}' from #{via.rank + 1}"


def chain_vias(
    query: str, passages: Sequence[Passage], scores: PoolScores, order: Sequence[int] | np.ndarray
) -> list[Via | None]:
    """The vias of ``order`` as a rerank reports them, document links included
    (:func:`~cage_core.ranking.explanation.explain_ranking`); title and entity links need the
    pool's graphs."""
    return [e.via for e in explain_ranking(query, passages, scores, order)]
