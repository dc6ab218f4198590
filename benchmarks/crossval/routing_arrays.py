"""The routing grid's points and the arrays files of their figures.

``tuning/routing_cv.py`` writes one for the DEV files (``--arrays``) and reads it back
(``--from-arrays``); ``tuning/routing_folders.py`` writes one for the DEV folders, which
``routing_cv.py --with-folders`` pools in. A file (``numpy.savez_compressed``, no pickle)
holds, for ``P`` points and ``N`` questions of ``M`` off-topic ones:

* ``scores [P, N, 2, 2]``: R@3 / R@5 of cage and hybrid; ``routed [P, N]``: whether the
  point routes the question; ``groups [N]``, ``ids [N]``: its file or folder, its id;
* ``false_routes [P, M]``: whether the point routes the off-topic question;
  ``false_route_ids [M]``, ``false_route_pairs [M]``: its id, and "asked of -> corpus";
* ``points``: :data:`POINT_LABELS` (a file of another grid is refused).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from cage_core.expansion.routing import RoutingSettings
from cage_core.names.routes import DocumentRoute

from .choice import grid_points
from .grids import ROUTING_GRID

__all__ = [
    "POINT_LABELS",
    "joined",
    "read_arrays",
    "route_cache",
    "routing_points",
    "write_arrays",
]

POINT_LABELS = ["off", *(json.dumps(p) for p in grid_points(ROUTING_GRID))]
"""The grid's points as a file names them: no routing, then :data:`crossval.grids.ROUTING_GRID`."""
AXES = {
    "scores": 1,
    "routed": 1,
    "groups": 0,
    "ids": 0,
    "false_routes": 1,
    "false_route_ids": 0,
    "false_route_pairs": 0,
}
"""The arrays of a file, each with the axis its questions run along."""


def routing_points() -> list[RoutingSettings | None]:
    """The points of :data:`POINT_LABELS`: ``None`` (no routing), then the grid's settings."""
    grid = [RoutingSettings(**p) for p in grid_points(ROUTING_GRID)]  # type: ignore[arg-type]
    return [None, *grid]


def route_cache(
    route: Callable[[str, RoutingSettings], DocumentRoute],
) -> Callable[[str, RoutingSettings | None], DocumentRoute]:
    """``route(question, point)`` called once per question and the point's fields other than
    ``chunks`` (no route for ``None``, routing off): ``chunks`` says how many chunks of a named
    document join the pool, not whether or where the question goes, so the grid's points that
    differ only in it share one call."""
    memo: dict[tuple[str, RoutingSettings], DocumentRoute] = {}

    def routed(question: str, point: RoutingSettings | None) -> DocumentRoute:
        if point is None:
            return DocumentRoute((), question)
        key = (question, dataclasses.replace(point, chunks=RoutingSettings().chunks))
        if key not in memo:
            memo[key] = route(question, point)
        return memo[key]

    return routed


def joined(parts: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The arrays of ``parts`` (files, folders), one after the other."""
    return {key: np.concatenate([p[key] for p in parts], axis=axis) for key, axis in AXES.items()}


def write_arrays(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` (:data:`AXES`) to ``path``, with the grid's :data:`POINT_LABELS`."""
    np.savez_compressed(path, points=np.array(POINT_LABELS), **arrays)


def read_arrays(path: Path) -> dict[str, np.ndarray]:
    """The arrays of the file ``path``, checked to be of this grid."""
    arrays = np.load(path)
    if arrays["points"].tolist() != POINT_LABELS:
        raise SystemExit(f"{path} was made with another grid: make it again")
    return {key: arrays[key] for key in AXES}
