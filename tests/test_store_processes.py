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
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from store_worker import SHARED_KEYS, content, embedding_for, graph_for, own_key, shared_key

from cage_core.graphs.store import GraphStore

WORKER = Path(__file__).with_name("store_worker.py")
WRITERS = 4
ROUNDS = 20
BATCH = 20
"""Each writer puts ROUNDS batches of BATCH own graphs (and their embeddings) and ROUNDS
shared graphs."""
PROCESS_TIMEOUT_S = 60.0
SIGNAL_POLL_S = 0.005


class Workers:
    """Worker processes on one store, started at the same moment by a go file."""

    def __init__(self, tmp: Path, store: Path) -> None:
        self.tmp, self.store = tmp, store
        self.go = tmp / "go"
        self.procs: dict[str, subprocess.Popen[str]] = {}

    def start(self, name: str, role: str, **options: object) -> None:
        options.update(ready=str(self.tmp / f"ready-{name}"), go=str(self.go))
        self.procs[name] = subprocess.Popen(
            [sys.executable, str(WORKER), role, str(self.store), json.dumps(options)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def release(self) -> None:
        """Start them all at once, when every worker has imported and is waiting."""
        wait_for(*(self.tmp / f"ready-{name}" for name in self.procs))
        self.go.touch()

    def finish(self, name: str) -> tuple[int, dict, str]:
        """Exit status, JSON result and stderr of one worker."""
        out, err = self.procs[name].communicate(timeout=PROCESS_TIMEOUT_S)
        lines = out.strip().splitlines()
        return self.procs[name].returncode, json.loads(lines[-1]) if lines else {}, err

    def kill_all(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def wait_for(*paths: Path) -> None:
    deadline = time.monotonic() + PROCESS_TIMEOUT_S
    while not all(p.exists() for p in paths):
        assert time.monotonic() < deadline, f"workers never signalled: {paths}"
        time.sleep(SIGNAL_POLL_S)


def test_four_writers_and_a_reader_share_one_store_without_errors_or_lost_entries(tmp_path):
    store_path = tmp_path / "cache" / "graphs.sqlite"  # neither the folder nor the file exists
    workers = Workers(tmp_path, store_path)
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
    workers = Workers(tmp_path, store_path)
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
    parent_connection = store._conn
    pid = os.fork()
    if pid == 0:  # child: exit with a status, never return into pytest
        code = 1
        try:
            seen = store.get("parent") is not None
            store.put("child", graph_for("child", 1))
            code = 0 if seen and store._conn is not parent_connection else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert content(store.get("child")) == content(graph_for("child", 1))
    store.put("parent again", graph_for("parent again", 0))
    assert len(store) == 3
    store.close()
