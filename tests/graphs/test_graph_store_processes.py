"""One graph store shared by real processes: concurrent writers and readers, a killed writer, fork.

Workers are separate Python processes (tests/store_worker.py) started together on one store
path that does not exist yet, so they also race to create it.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import stat
from pathlib import Path

import numpy as np
from process_workers import PROCESS_TIMEOUT_S, Workers, wait_for
from store_worker import SHARED_KEYS, content, embedding_for, graph_for, own_key, shared_key

from cage_core.graphs.store import GraphStore

WORKER = Path(__file__).resolve().parents[1] / "store_worker.py"
WRITERS = 4
ROUNDS = 20
BATCH = 20
"""Each writer puts ROUNDS batches of BATCH own graphs (and their embeddings) and ROUNDS
shared graphs."""


def test_four_writers_and_a_reader_share_one_store_without_errors_or_lost_entries(tmp_path):
    store_path = tmp_path / "cache" / "graphs.sqlite"  # neither the folder nor the file exists
    workers = Workers(tmp_path, store_path, WORKER)
    try:
        for w in range(WRITERS):
            workers.start(f"writer{w}", "writer", writer=w, rounds=ROUNDS, batch=BATCH)
        workers.start(
            "reader",
            "reader",
            writers=WRITERS,
            rounds=ROUNDS,
            batch=BATCH,
            stop=str(tmp_path / "stop"),
        )
        workers.release()
        results = [workers.finish(f"writer{w}") for w in range(WRITERS)]
        (tmp_path / "stop").touch()
        results.append(workers.finish("reader"))
    finally:
        workers.kill_all()

    for rc, _, err in results:
        assert (rc, err) == (0, "")  # no exception, no lock error, not even a warning
    assert results[-1][1]["graphs_seen"] > 0  # the reader read while the writers wrote

    with GraphStore(store_path) as store:
        own = [own_key(w, i) for w in range(WRITERS) for i in range(ROUNDS * BATCH)]
        graphs = store.get_many(own)
        assert sorted(graphs) == sorted(own)
        assert all(content(graphs[k]) == content(graph_for(k, int(k.split("-")[1]))) for k in own)
        vectors = store.get_embeddings(own)
        assert all(np.array_equal(vectors[k], embedding_for(k, int(k.split("-")[1]))) for k in own)
        shared = store.get_many([shared_key(j) for j in range(SHARED_KEYS)])
        assert len(shared) == SHARED_KEYS  # each holds one writer's value, whole
        assert all(
            any(content(g) == content(graph_for(k, w)) for w in range(WRITERS))
            for k, g in shared.items()
        )
        assert len(store) == len(own) + SHARED_KEYS
    with sqlite3.connect(store_path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    for path in (store_path, Path(f"{store_path}-wal"), Path(f"{store_path}-shm")):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(store_path.parent.stat().st_mode) == 0o700


def test_a_writer_killed_inside_a_transaction_leaves_a_store_that_works(tmp_path):
    store_path = tmp_path / "graphs.sqlite"
    committed = [f"committed-{i}" for i in range(50)]
    pending = [f"pending-{i}" for i in range(200)]  # one transaction (WRITE_BATCH_ROWS ≥ 200)
    in_transaction = tmp_path / "in-transaction"
    workers = Workers(tmp_path, store_path, WORKER)
    try:
        workers.start(
            "killable",
            "killable",
            committed_keys=committed,
            pending_keys=pending,
            pending=len(pending),
            nodes=30,
            in_transaction=str(in_transaction),
        )
        workers.release()
        wait_for(in_transaction)
        workers.procs["killable"].send_signal(signal.SIGKILL)
        assert workers.procs["killable"].wait(timeout=PROCESS_TIMEOUT_S) == -signal.SIGKILL
    finally:
        workers.kill_all()
    wal_before, wal_during = json.loads(in_transaction.read_text())
    assert wal_during > wal_before  # the open transaction had written pages to disk

    with GraphStore(store_path) as store:
        found = store.get_many(committed + pending)
        assert sorted(found) == sorted(committed)  # committed all there; killed one all absent
        assert all(content(found[k]) == content(graph_for(k, 0, nodes=30)) for k in committed)
        store.put("after", graph_for("after", 1))
        assert content(store.get("after")) == content(graph_for("after", 1))
        assert len(store) == len(committed) + 1
    with sqlite3.connect(store_path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_forked_child_uses_its_own_connection_and_the_parent_keeps_working(tmp_path):
    store = GraphStore(tmp_path / "graphs.sqlite")
    store.put("parent", graph_for("parent", 0))
    parent_connection = store._file.db._conn
    pid = os.fork()
    if pid == 0:  # child: exit with a status, never return into pytest
        code = 1
        try:
            seen = store.get("parent") is not None
            store.put("child", graph_for("child", 1))
            code = 0 if seen and store._file.db._conn is not parent_connection else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert content(store.get("child")) == content(graph_for("child", 1))
    store.put("parent again", graph_for("parent again", 0))
    assert len(store) == 3
    store.close()
