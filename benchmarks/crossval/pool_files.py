"""Pool files: the DEV pools ``beyond_pools.py`` builds, as gzipped JSON (no pickle).

One file per setting, ``<setting>.json.gz``::

    {"format": "cage-benchmark-pools", "version": 1, "pools": [
        {"setting": "hotpotqa-closed", "dataset": "hotpotqa", "id": "...", "type": "bridge",
         "query": "...", "passages": [{"text": ..., "title": ..., "id": ..., "doc_id": ...,
         "position": ...}, ...], "sims": [0.61, ...], "graphs": [<PassageGraph.to_dict()>, ...],
         "gold": [0, 3], "n_gold": 2, "misinfo": [5] | null}, ...]}

In memory a pool is a dict of those keys with ``passages`` as :class:`~cage_core.Passage`,
``sims`` a float64 array, ``graphs`` as :class:`~cage_core.graphs.passage_graph.PassageGraph`
(rebuilt and checked by ``PassageGraph.from_stored``) and ``gold`` / ``misinfo`` as
frozensets. Floats are written in their shortest round-trip form, so a pool read back ranks
bit for bit as the pool written.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cage_core.graphs.passage_graph import PassageGraph
from cage_core.passage import Passage

__all__ = ["FORMAT", "SUFFIX", "VERSION", "pool_paths", "read_pools", "write_pools"]

FORMAT = "cage-benchmark-pools"
VERSION = 1
SUFFIX = ".json.gz"


def _passage(p: Passage) -> dict[str, Any]:
    return {
        "text": p.text,
        "title": p.title,
        "id": p.id,
        "doc_id": p.doc_id,
        "position": p.position,
    }


def _to_json(pool: dict[str, Any]) -> dict[str, Any]:
    return {
        **{k: pool[k] for k in ("setting", "dataset", "id", "type", "query", "n_gold")},
        "passages": [_passage(p) for p in pool["passages"]],
        "sims": [float(s) for s in pool["sims"]],
        "graphs": [g.to_dict() for g in pool["graphs"]],
        "gold": sorted(int(i) for i in pool["gold"]),
        "misinfo": None if pool["misinfo"] is None else sorted(int(i) for i in pool["misinfo"]),
    }


def _from_json(data: dict[str, Any]) -> dict[str, Any]:
    return {
        **{k: data[k] for k in ("setting", "dataset", "id", "type", "query", "n_gold")},
        "passages": [Passage(**p) for p in data["passages"]],
        "sims": np.asarray(data["sims"], dtype=np.float64),
        "graphs": [PassageGraph.from_stored(g) for g in data["graphs"]],
        "gold": frozenset(data["gold"]),
        "misinfo": None if data["misinfo"] is None else frozenset(data["misinfo"]),
    }


def write_pools(path: Path, pools: Iterable[dict[str, Any]]) -> None:
    """Write ``pools`` to ``path`` (a ``.json.gz`` file), through a temporary file so an
    interrupted write leaves no partial pool file."""
    payload = {"format": FORMAT, "version": VERSION, "pools": [_to_json(p) for p in pools]}
    partial = path.with_name(path.name + ".partial")
    with gzip.open(partial, "wt", encoding="utf-8") as handle:
        json.dump(payload, handle, separators=(",", ":"))
    partial.replace(path)


def read_pools(paths: Sequence[Path]) -> list[dict[str, Any]]:
    """The pools of every file of ``paths``, in order; a file of another format or version
    raises ``ValueError``."""
    pools: list[dict[str, Any]] = []
    for path in paths:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            payload = json.load(handle)
        if payload.get("format") != FORMAT or payload.get("version") != VERSION:
            raise ValueError(f"{path} is not a {FORMAT} file of version {VERSION}")
        pools.extend(_from_json(p) for p in payload["pools"])
    return pools


def pool_paths(folder: Path) -> list[Path]:
    """The pool files of ``folder`` (``beyond_pools.py``'s ``--out``), sorted; none raises
    ``FileNotFoundError`` (a wrong folder would otherwise cross-validate nothing)."""
    paths = sorted(folder.glob(f"*{SUFFIX}"))
    if not paths:
        raise FileNotFoundError(f"no *{SUFFIX} pool files in {folder} (run beyond_pools.py)")
    return paths
