"""How the short chain of untitled pools was chosen: a grid, 5-fold cross-validation over DEV questions.

    python benchmarks/untitled_chain_cv.py --data ../shared/data [--graph-store graphs.sqlite]

The setting and the pools are those of ``untitled_cv.py`` (open retrieval without titles, top
20 by cosine plus the link index's expansion). The subject core keeps its shipped settings
(the other fields of :class:`~cage_core.config.UntitledConfig`); each grid point of the short
chain's fields (``chain_window`` 0 is the subject core alone) reorders its ranking through
:func:`~cage_core.ranking.untitled_core.short_chain`, exactly as :func:`~cage_core.ranking.fusion.score_pool`
does. Folds, objective (mean over HotpotQA, 2WikiMultihopQA and MuSiQue of ``R@3 + R@5``) and
choice are those of ``untitled_cv.py``, and so is the RAMDocs guard, here on misinformation in
the top 2 (closed and open pools; Recall@5 and the top 5 are the subject core's); the
printed tables are the out-of-fold rankings beside hybrid (relevance order) and the subject
core alone, R@3 and R@5 per file. The shipped defaults are the point chosen on all folds
together.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from untitled_cv import (
    FILES,
    grid_cv,
    grid_points,
    load_setting,
    ramdocs_guard,
    recalls,
)

from cage_core import CageConfig
from cage_core.config import UntitledConfig
from cage_core.ranking.fusion import ranked_first
from cage_core.ranking.untitled_core import short_chain, subject_core_scores
from cage_core.scoring import ranking

GRID = {
    "chain_window": (0, 5),
    "chain_length": (2, 3),
    "chain_mention_weight": (1.0, 2.0, 3.0, 4.0, 6.0, 10.0),
    "chain_entity_weight": (0.0, 0.5, 1.0),
    "chain_entity_cap": (2.0, 3.0),
    "chain_query_named_penalty": (0.0, 1.0, 3.0, 6.0, 10.0),
}
# Until cage-rag 0.4 the grid also held "chain_same_subject_penalty": (0.0, 1.0, 3.0, 6.0), a
# loss for a candidate sharing a name with a chain passage; the point chosen on all folds was 0
# (off), so the penalty and its [k, k] matrix left the code.


def rank(pool: dict, point: dict, config: CageConfig) -> np.ndarray:
    untitled = UntitledConfig(**point)
    links = pool["links"][untitled.aliases]
    r, _, coherence, _ = subject_core_scores(pool["relevance"], links, core_size=config.core_size,
                                             entity_weight=config.entity_weight, config=untitled)  # fmt: skip
    fused = untitled.alpha * r + (1 - untitled.alpha) * coherence
    lead = short_chain(fused, r, links, untitled)
    return ranking(ranked_first(fused, [[i] for i in lead]))  # corpus passages are distinct


def main() -> None:
    config, pools, closed = load_setting(__doc__.splitlines()[0])
    rank_fn = functools.partial(rank, config=config)
    allowed = ramdocs_guard(
        pools, closed, grid_points(GRID), rank_fn, recall=False, ks=(2,), config=config
    )
    cv = grid_cv(pools, GRID, rank_fn, allowed=allowed)
    datasets = cv.datasets
    alone = cv.points.index({**cv.points[0], "chain_window": 0})
    rows = {
        "hybrid (relevance order)": np.array([recalls(ranking(p["relevance"]), p) for p in pools]),
        "subject core alone (chain_window 0)": cv.scores[alone],
        "short chain, out of fold": cv.out_of_fold,
        "short chain, all-fold choice": cv.scores[cv.chosen],
    }
    print("| ranking | " + " | ".join(f"{d} R@3 | {d} R@5" for d in FILES) + " |")
    print("|---|" + "---|---|" * len(FILES))
    for label, values in rows.items():
        cells = [f"{values[datasets == d, i].mean():.3f}" for d in FILES for i in (0, 1)]
        print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
