"""A link-store client that tests/expansion/test_link_store_processes.py runs as a real, separate
process.

    python tests/link_store_worker.py ROLE STORE_PATH OPTIONS_JSON

Roles: ``writer`` (writes its partitions of enriched rows with
:func:`cage_core.expansion.ingest.write_link_partition`, as ``cage enrich`` does per batch, and
reads each back), ``reader`` (expands random candidates until told to stop, checking every
result) and ``killable`` (writes one partition, then stops inside the transaction of the
next and waits to be killed). A worker signals readiness by creating ``OPTIONS["ready"]``,
waits for ``OPTIONS["go"]``, prints one JSON line of results and exits 0; a failed check
exits non-zero with the reason on stderr. Store warnings go to stderr, so a clean run
prints nothing there.

Like tests/store_worker.py, the worker imports the store from this checkout without the
package ``__init__`` (which loads torch). Imported by the tests, this module provides the
rows every process writes (:func:`partition_rows`).
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _import_without_package_init() -> None:
    for name in ("cage_core", "cage_core.graphs"):
        package = types.ModuleType(name)
        package.__path__ = [str(ROOT.joinpath(*name.split(".")))]
        sys.modules[name] = package


if __name__ == "__main__":
    _import_without_package_init()

import json
import logging
import math
import os
import random
import sqlite3
import time
from typing import Any

import numpy as np

from cage_core.expansion import store as link_store
from cage_core.expansion.index import LinkIndex, LinkIndexFormatError
from cage_core.expansion.ingest import link_entries, write_link_partition
from cage_core.graphs.passage_graph import PassageGraph, content_hash

SHARED_NAMES = [
    f"{first} {last}"
    for first in ("Ada", "Boris", "Chen", "Dana", "Emil")
    for last in ("Kovacs", "Lindqvist", "Moreau", "Nakamura")
]
"""Names every partition mentions: their postings and counts are written by every writer."""
WAIT_POLL_S = 0.002
GO_TIMEOUT_S = 30.0
HANG_S = 60.0
SMALL_PAGE_CACHE_KIB = 8
"""A killable worker's page cache: its open transaction spills pages into the WAL file."""
_EMPTY = np.zeros(0, np.int64)


def title(partition: int, i: int) -> str:
    return f"Subject {partition} {i}"


def partition_rows(partition: int, size: int) -> list[dict[str, Any]]:
    """Enriched rows (``id``, ``title``, ``text``, ``cage_graph``) of one partition: each
    about its own subject, naming shared names and subjects of other partitions."""
    rng = random.Random(partition)
    rows = []
    for i in range(size):
        named = rng.sample(SHARED_NAMES, 4) + [
            title(rng.randrange(8), rng.randrange(size)) for _ in range(3)
        ]
        labels = tuple(dict.fromkeys([title(partition, i), *named]))
        text = f"{title(partition, i)} knew {', '.join(named)}."
        graph = PassageGraph(
            labels=labels,
            pos=("X",) * len(labels),
            entity_types=("PERSON",) * len(labels),
            edge_src=_EMPTY,
            edge_dst=_EMPTY,
            edge_type=_EMPTY,
            edge_verbs=(),
            level="light",
            content_sha=content_hash(f"{title(partition, i)}\n\n{text}"),
        )
        rows.append(
            {
                "id": f"r{partition}-{i}",
                "title": title(partition, i),
                "text": text,
                "cage_graph": graph.to_text(),
            }
        )
    return rows


def _fail(reason: str) -> None:
    print(reason, file=sys.stderr)
    sys.exit(1)


def _writer(path: str, opt: dict[str, Any]) -> dict[str, Any]:
    for partition in opt["partitions"]:
        rows = partition_rows(partition, opt["size"])
        write_link_partition(path, rows)
        expected = link_entries(rows)
        with LinkIndex.open(path) as index:
            back = [index.entry(e.id) for e in expected]
        if back != expected:
            _fail(f"writer: partition {partition} did not read back exactly")
    return {"partitions": len(opt["partitions"])}


def _reader(path: str, opt: dict[str, Any]) -> dict[str, Any]:
    rng = random.Random(0)
    ids = [f"r{p}-{i}" for p in range(opt["partitions"]) for i in range(opt["size"])]
    expansions = reads = 0
    deadline = time.monotonic() + GO_TIMEOUT_S
    while True:  # the writers create the store: wait until one has
        try:
            index = LinkIndex.open(path)
            break
        except (FileNotFoundError, LinkIndexFormatError):
            if time.monotonic() > deadline:
                _fail("reader: no writer created the store")
            time.sleep(WAIT_POLL_S)
    with index:
        while not os.path.exists(opt["stop"]):
            found = index.expand("Who knew Ada Kovacs?", rng.sample(ids, 5), limit=20)
            weights = [e.weight for e in found]
            if weights != sorted(weights, reverse=True) or not all(map(math.isfinite, weights)):
                _fail("reader: expansions out of order or not finite")
            if any(e.id not in ids or e.seed not in ids for e in found):
                _fail("reader: an expansion names an id no writer wrote")
            expansions, reads = expansions + len(found), reads + 1
    return {"reads": reads, "expansions": expansions}


def _killable(path: str, opt: dict[str, Any]) -> dict[str, Any]:
    """Write partition 0, then stop inside the transaction of partition 1, once it has
    written ``pending`` postings."""
    armed, inserts = False, 0
    wal = Path(path + "-wal")
    wal_before = 0

    def trace(statement: str) -> None:
        nonlocal inserts
        if armed and statement.startswith("INSERT OR IGNORE INTO postings"):
            inserts += 1
            if inserts == opt["pending"]:
                partial = Path(opt["in_transaction"] + ".partial")
                partial.write_text(json.dumps([wal_before, wal.stat().st_size]))
                os.replace(partial, opt["in_transaction"])
                time.sleep(HANG_S)

    real_connect = sqlite3.connect

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn = real_connect(*args, **kwargs)
        conn.set_trace_callback(trace)
        return conn

    sqlite3.connect = connect  # type: ignore[assignment]  # this process only
    link_store.CACHE_KIB = SMALL_PAGE_CACHE_KIB
    write_link_partition(path, partition_rows(0, opt["size"]))
    wal_before, armed = wal.stat().st_size if wal.exists() else 0, True  # a last close removes it
    write_link_partition(path, partition_rows(1, opt["size"]))
    _fail("killable: the pending write finished; it should have been killed inside it")
    return {}


def main() -> None:
    role, path, opt = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    Path(opt["ready"]).touch()
    deadline = time.monotonic() + GO_TIMEOUT_S
    while not os.path.exists(opt["go"]):
        if time.monotonic() > deadline:
            _fail(f"{role}: no go signal")
        time.sleep(WAIT_POLL_S)
    run = {"writer": _writer, "reader": _reader, "killable": _killable}[role]
    print(json.dumps(run(path, opt)))


if __name__ == "__main__":
    main()
