"""What a ranking of one pool scores: Recall@3 and @5, misinformation in the top k.

A pool here is a mapping with ``gold`` (a frozenset of pool positions), ``n_gold`` (the
question's gold passages, also those the pool lacks: they count as missed) and ``misinfo``
(a frozenset of positions, or ``None`` without RAMDocs' labels).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["misinfo_rate", "pool_measures", "print_table", "recalls"]


def recalls(order: np.ndarray, pool: Mapping[str, Any]) -> tuple[float, float]:
    """(R@3, R@5) of ``order`` (pool positions, best first)."""
    n = max(pool["n_gold"], 1)
    return (
        len(set(order[:3].tolist()) & pool["gold"]) / n,
        len(set(order[:5].tolist()) & pool["gold"]) / n,
    )


def pool_measures(order: np.ndarray, pool: Mapping[str, Any]) -> tuple[float, float, float]:
    """(R@3, R@5, misinformation in the top 5: 1.0, 0.0, or NaN without labels)."""
    r3, r5 = recalls(order, pool)
    top5 = set(order[:5].tolist())
    misinfo = float("nan") if pool["misinfo"] is None else float(bool(top5 & pool["misinfo"]))
    return r3, r5, misinfo


def misinfo_rate(orders: Sequence[np.ndarray], pools: Sequence[Mapping[str, Any]], k: int) -> float:
    """Share of the labelled pools with a misinformation passage in the top k (``cage eval``'s
    "misinfo in top k")."""
    flags = [
        bool(set(order[:k].tolist()) & p["misinfo"])
        for order, p in zip(orders, pools)
        if p["misinfo"] is not None
    ]
    return float(np.mean(flags))


def print_table(rows: Mapping[str, np.ndarray], groups: np.ndarray) -> None:
    """Each row's mean R@3 / R@5 (columns 0 and 1 of its per-pool measures) per group, as a
    Markdown table."""
    print("| setting | n | " + " | ".join(f"{r} R@3 / R@5" for r in rows) + " |")
    print("|---|---|" + "---|" * len(rows))
    for g in sorted(set(groups)):
        mask = groups == g
        cells = [f"{v[mask, 0].mean():.3f} / {v[mask, 1].mean():.3f}" for v in rows.values()]
        print(f"| {g} | {int(mask.sum())} | " + " | ".join(cells) + " |")
