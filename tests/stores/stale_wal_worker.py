"""The "old process" of tests/stores/test_store_stamps.py: it has a store open when a rebuilt
one is moved over it, and its ``-wal`` stays at the path.

    python tests/stores/stale_wal_worker.py KIND STORE_PATH OPTIONS_JSON

``KIND`` is ``link`` or ``graph``. The worker opens (creates) the store and writes
``OPTIONS["entries"]`` entries (link ids / graph keys ``old0..``). With ``OPTIONS["pin"]`` a
plain SQLite connection holds a read snapshot taken before those writes, so that no
checkpoint copies them out of the WAL: they are there when the test swaps the file.
Without it, the WAL is checkpointed and emptied before the swap. It then creates
``OPTIONS["ready"]`` and waits for ``OPTIONS["late"]`` (if given): a plain connection to the
old file commits once more, as a cage-rag writer whose transaction began before the swap
does (the store's stamp written again, one row changed), and the worker creates
``OPTIONS["late_done"]``. Last it waits for ``OPTIONS["go"]``, runs one operation of the
store (a link write, a graph lookup: the store notices the swap), prints one JSON line
(``"ok"`` or the error) and exits 0. Like tests/link_store_worker.py, it imports the stores
without the package ``__init__`` (which loads torch).
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

if __name__ == "__main__":
    for name in ("cage_core", "cage_core.graphs"):
        package = types.ModuleType(name)
        package.__path__ = [str(ROOT.joinpath(*name.split(".")))]
        sys.modules[name] = package
    sys.path.insert(0, str(ROOT / "tests"))

import json
import os
import sqlite3
import time

WAIT_S = 30.0
LATE_COMMIT = {
    "link": "UPDATE meta SET value = value WHERE key = 'passages'",
    "graph": "INSERT OR REPLACE INTO graphs (key, data) VALUES ('late', 'not a graph')",
}
"""The late commit's change (besides the stamp written again), by kind of store."""


def _wait(path: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            sys.exit(f"worker: never told {path}")
        time.sleep(0.005)


def _outcome(call) -> str:
    try:
        call()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return "ok"


def main() -> None:
    from link_swap_worker import batch
    from store_worker import graph_for

    from cage_core.expansion.index import LinkIndex
    from cage_core.graphs.store import GraphStore

    kind, path, options = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    count = options["entries"]
    store = LinkIndex.open(path, create=True) if kind == "link" else GraphStore(path)
    raw = sqlite3.connect(path, isolation_level=None)  # the old file, as the store's own
    if options.get("pin"):
        raw.execute("BEGIN")
        raw.execute("SELECT count(*) FROM sqlite_master").fetchone()
    if kind == "link":
        store.add_entries(batch("old", count))
    else:
        store.put_many((f"old{i}", graph_for(f"old{i}", 0)) for i in range(count))
    if not options.get("pin"):
        raw.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    Path(options["ready"]).touch()
    if options.get("late"):
        _wait(options["late"])
        (stamp,) = raw.execute("PRAGMA user_version").fetchone()
        raw.execute("BEGIN IMMEDIATE")
        raw.execute(f"PRAGMA user_version = {stamp}")
        raw.execute(LATE_COMMIT[kind])
        raw.execute("COMMIT")
        Path(options["late_done"]).touch()
    _wait(options["go"])
    if kind == "link":
        outcome = _outcome(lambda: store.add_entries(batch("oldx", 1)))
    else:
        outcome = _outcome(lambda: store.get_many(["old0"]))
    raw.close()
    store.close()
    print(json.dumps({"outcome": outcome}))


if __name__ == "__main__":
    main()
