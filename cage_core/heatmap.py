"""Render one rerank as a picture: similarity, coherence and fused score per passage, and the
pool's pairwise matrix as a heatmap (``PoolScores.matrix``: the bridge link matrix in the
default mode, the R-GCN cosines in the paper's; the view of the paper's Figure 3).

Needs matplotlib (``pip install "cage-rag[viz]"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from cage_core.passage import Passage
from cage_core.ranking.pool_scores import PoolScores

__all__ = [
    "render_heatmap",
]


def _label(p: Passage, i: int, width: int = 28) -> str:
    name = p.title or " ".join(p.text.split())
    return f"{i + 1}. {name[: width - 1] + '…' if len(name) > width else name}"


def render_heatmap(
    query: str, passages: Sequence[Passage], scores: PoolScores, path: str | Path
) -> Path:
    """Write a PNG of ``scores`` to ``path`` and return the path."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError('cage explain needs matplotlib: pip install "cage-rag[viz]"') from None
    labels = [_label(p, i) for i, p in enumerate(passages)]
    k = len(passages)
    fig, (bars, heat) = plt.subplots(
        1, 2, figsize=(6 + 0.45 * k, 2.5 + 0.45 * k), gridspec_kw={"width_ratios": [1, 1.4]}
    )
    y = np.arange(k)
    bars.barh(y - 0.25, scores.similarities, height=0.25, label="similarity")
    bars.barh(y, scores.coherence, height=0.25, label="coherence")
    bars.barh(y + 0.25, scores.fused, height=0.25, label="fused f_i")
    bars.set_yticks(y, labels, fontsize=8)
    bars.invert_yaxis()
    bars.legend(fontsize=7, loc="lower right")
    bars.set_title("scores per passage", fontsize=9)
    image = heat.imshow(scores.matrix, cmap="viridis")
    heat.set_xticks(y, [str(i + 1) for i in y], fontsize=8)
    heat.set_yticks(y, [str(i + 1) for i in y], fontsize=8)
    heat.set_title("pairwise matrix (links, or R-GCN cosines)", fontsize=9)
    fig.colorbar(image, ax=heat, shrink=0.8)
    fig.suptitle(query if len(query) < 90 else query[:89] + "…", fontsize=9)
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
