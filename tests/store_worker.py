"""A graph-store client that tests/graphs/test_graph_store_processes.py runs as a real, separate
process.

    python tests/store_worker.py ROLE STORE_PATH OPTIONS_JSON

Roles: ``writer`` (puts graphs and embeddings under its own and shared keys, reading its own
writes back), ``reader`` (reads random keys until told to stop, checking every value found)
and ``killable`` (commits one batch, then stops inside a second, open write transaction and
waits to be killed). A worker signals readiness by creating ``OPTIONS["ready"]``, waits for
``OPTIONS["go"]`` (so all workers open the store at once), prints one JSON line of results
and exits 0; any failed check exits non-zero with the reason on stderr. Store warnings go to
stderr, so a clean run prints nothing there.

The worker imports the store and the graph type from this checkout without running the
package ``__init__`` (which loads torch: seconds per process); the code under test is the
same. Imported by the tests, this module only provides the shared value builders.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def signal_with(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically: the waiting test sees no file or all of it."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text)
    os.replace(partial, path)


def _import_store_without_package_init() -> None:
    for name in ("cage_core", "cage_core.graphs"):
        package = types.ModuleType(name)
        package.__path__ = [str(ROOT.joinpath(*name.split(".")))]
        sys.modules[name] = package


if __name__ == "__main__":
    _import_store_without_package_init()

import json
import logging
import os
import random
import sqlite3
import time
from typing import Any

import numpy as np

from cage_core.graphs.passage_graph import PassageGraph, content_hash
from cage_core.graphs.store import GraphStore

EMBEDDING_DIM = 16
SHARED_KEYS = 10
"""Keys every writer writes (with its own value), besides its own keys."""
WAIT_POLL_S = 0.002
GO_TIMEOUT_S = 30.0
HANG_S = 60.0
"""How long a ``killable`` worker waits inside its open transaction (it is killed sooner)."""
SMALL_PAGE_CACHE = "PRAGMA cache_size = -64"
"""64 KiB page cache: a killable worker's open transaction spills pages into the WAL file."""


def own_key(writer: int, i: int) -> str:
    return f"own-{writer}-{i}"


def shared_key(j: int) -> str:
    return f"shared-{j}"


def graph_for(key: str, writer: int, nodes: int = 3) -> PassageGraph:
    """A valid graph that names its key and writer (a chain of edges)."""
    labels = (key, f"writer {writer}") + tuple(f"node {i}" for i in range(nodes - 2))
    chain = np.arange(nodes - 1, dtype=np.int64)
    return PassageGraph(
        labels=labels,
        pos=("PROPN",) * nodes,
        entity_types=("PERSON",) + ("",) * (nodes - 1),
        edge_src=chain,
        edge_dst=chain + 1,
        edge_type=np.zeros(nodes - 1, np.int64),
        edge_verbs=("link",) * (nodes - 1),
        source=f"test-writer-{writer}",
        content_sha=content_hash(key),
    )


def embedding_for(key: str, writer: int) -> np.ndarray:
    """A float32 vector that depends on the key and the writer (not float16-exact)."""
    return (np.arange(EMBEDDING_DIM, dtype=np.float32) + len(key) + writer) / 7


def content(graph: PassageGraph) -> tuple:
    """Everything a graph holds, comparable with ``==``."""
    return (
        graph.labels,
        graph.pos,
        graph.entity_types,
        graph.edge_src.tolist(),
        graph.edge_dst.tolist(),
        graph.edge_type.tolist(),
        graph.edge_verbs,
        graph.source,
        graph.content_sha,
    )


def _fail(reason: str) -> None:
    print(reason, file=sys.stderr)
    sys.exit(1)


def _writer(store: GraphStore, opt: dict[str, Any]) -> dict[str, Any]:
    writer, batch = opt["writer"], opt["batch"]
    for r in range(opt["rounds"]):
        keys = [own_key(writer, r * batch + k) for k in range(batch)]
        store.put_many([(k, graph_for(k, writer)) for k in keys])
        store.put(shared_key(r % SHARED_KEYS), graph_for(shared_key(r % SHARED_KEYS), writer))
        store.put_embeddings([(k, embedding_for(k, writer)) for k in keys])
        back = store.get_many(keys)
        expected = {k: content(graph_for(k, writer)) for k in keys}
        if {k: content(g) for k, g in back.items()} != expected:
            _fail(f"writer {writer} round {r}: its own graphs did not read back exactly")
        vectors = store.get_embeddings(keys)
        if sorted(vectors) != sorted(keys) or any(
            not np.array_equal(vectors[k], embedding_for(k, writer)) for k in keys
        ):
            _fail(f"writer {writer} round {r}: its own embeddings did not read back exactly")
    return {"writer": writer, "graphs": opt["rounds"] * batch}


def _reader(store: GraphStore, opt: dict[str, Any]) -> dict[str, Any]:
    writers, most = opt["writers"], opt["rounds"] * opt["batch"]
    rng = random.Random(0)
    graphs_seen = vectors_seen = reads = 0
    while not os.path.exists(opt["stop"]):
        owners = {own_key(w, rng.randrange(most)): w for w in range(writers) for _ in range(8)}
        shared = [shared_key(j) for j in range(SHARED_KEYS)]
        graphs = store.get_many([*owners, *shared])
        for key, graph in graphs.items():
            candidates = [owners[key]] if key in owners else range(writers)
            if all(content(graph) != content(graph_for(key, w)) for w in candidates):
                _fail(f"reader: graph {key} is not a value any writer wrote")
        vectors = store.get_embeddings(list(owners))
        for key, vector in vectors.items():
            if not np.array_equal(vector, embedding_for(key, owners[key])):
                _fail(f"reader: embedding {key} is not the value its writer wrote")
        graphs_seen, vectors_seen = graphs_seen + len(graphs), vectors_seen + len(vectors)
        reads += 1
    return {"reads": reads, "graphs_seen": graphs_seen, "embeddings_seen": vectors_seen}


def _killable(path: str, opt: dict[str, Any]) -> dict[str, Any]:
    """Commit ``committed`` graphs, then stop before the last insert of ``pending`` graphs."""
    armed, inserts = False, 0
    wal = Path(path + "-wal")
    wal_before = 0

    def trace(statement: str) -> None:
        nonlocal inserts
        if armed and statement.startswith("INSERT"):
            inserts += 1
            if inserts == opt["pending"]:  # every earlier row of the open transaction is written
                signal_with(
                    Path(opt["in_transaction"]), json.dumps([wal_before, wal.stat().st_size])
                )
                time.sleep(HANG_S)

    real_connect = sqlite3.connect

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn = real_connect(*args, **kwargs)
        conn.execute(SMALL_PAGE_CACHE)
        conn.set_trace_callback(trace)
        return conn

    sqlite3.connect = connect  # type: ignore[assignment]  # this process only
    with GraphStore(path) as store:
        store.put_many([(k, graph_for(k, 0, nodes=opt["nodes"])) for k in opt["committed_keys"]])
        wal_before, armed = wal.stat().st_size, True
        store.put_many([(k, graph_for(k, 0, nodes=opt["nodes"])) for k in opt["pending_keys"]])
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
    if role == "killable":
        result = _killable(path, opt)
    else:
        with GraphStore(path) as store:
            result = _writer(store, opt) if role == "writer" else _reader(store, opt)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
