"""Small hand-made passage graphs for the tests of link logic that reads only entity nodes."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from cage_core.graphs.passage_graph import PassageGraph

_NO_EDGES = np.zeros(0, np.int64)


def entity_graph(
    entities: Iterable[tuple[str, str] | str] = (), *, light: bool = False
) -> PassageGraph:
    """A graph of named-entity nodes and no edges.

    Each entity is a ``(label, entity type)`` pair, or a bare label of type ``PERSON``. The
    full graph has PROPN nodes with 4-d zero vectors; the light one (``light=True``) has
    untagged ("X") nodes and no vectors.
    """
    pairs = [(e, "PERSON") if isinstance(e, str) else e for e in entities]
    labels, types = tuple(label for label, _ in pairs), tuple(t for _, t in pairs)
    n = len(pairs)
    if light:
        return PassageGraph(
            labels=labels,
            pos=("X",) * n,
            entity_types=types,
            edge_src=_NO_EDGES,
            edge_dst=_NO_EDGES,
            edge_type=_NO_EDGES,
            edge_verbs=(),
            level="light",
        )
    return PassageGraph(
        labels=labels,
        pos=("PROPN",) * n,
        entity_types=types,
        vectors=np.zeros((n, 4), np.float32),
        edge_src=_NO_EDGES,
        edge_dst=_NO_EDGES,
        edge_type=_NO_EDGES,
        edge_verbs=(),
    )
