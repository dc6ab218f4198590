"""One link store shared by real processes: concurrent partition writers and a reader, a
writer killed inside its transaction and the run resumed, fork.

Workers are separate Python processes (tests/link_store_worker.py) started together on a
store path that does not exist yet, so they also race to create it. Each writes partitions
of enriched rows with ``write_link_partition``, as ``cage enrich`` does per batch.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import stat
from pathlib import Path

from link_store_worker import partition_rows
from process_workers import PROCESS_TIMEOUT_S, Workers, wait_for

from cage_core.expansion.index import LinkIndex
from cage_core.expansion.ingest import link_entries, write_link_partition

WORKER = Path(__file__).resolve().parents[1] / "link_store_worker.py"
WRITERS = 3
PARTITIONS = 4
SIZE = 40
"""Each writer writes PARTITIONS partitions of SIZE rows; partition numbers are disjoint."""


def in_memory(partitions) -> LinkIndex:
    index = LinkIndex()
    for p in partitions:
        index.add_entries(link_entries(partition_rows(p, SIZE)))
    return index


def stored_counts(path: Path) -> dict[str, tuple[int, int]]:
    with sqlite3.connect(path) as conn:
        return {n: (k, m) for n, k, m in conn.execute("SELECT name, keyed, mentioned FROM names")}


def recount(index: LinkIndex) -> dict[str, tuple[int, int]]:
    counts: dict[str, list[int]] = {}
    for entry in index.entries():
        for role, names in enumerate((entry.keys, entry.mentions)):
            for name in names:
                counts.setdefault(name, [0, 0])[role] += 1
    return {n: (k, m) for n, (k, m) in counts.items()}


def assert_same(store_path: Path, memory: LinkIndex) -> None:
    """The store holds exactly the in-memory index: entries, counts, N, expansions."""
    with LinkIndex.open(store_path) as store:

        def by_id(index):
            return sorted(index.entries(), key=lambda e: e.id)

        assert by_id(store) == by_id(memory)
        assert len(store) == len(memory)
        assert stored_counts(store_path) == recount(memory)
        ids = sorted(e.id for e in memory.entries())
        for start in range(0, len(ids), 7):
            candidates = ids[start : start + 5]
            assert store.expand("Who knew Ada Kovacs?", candidates, limit=20) == memory.expand(
                "Who knew Ada Kovacs?", candidates, limit=20
            )
    with sqlite3.connect(store_path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_partition_writers_and_a_reader_share_one_store_without_errors_or_lost_entries(tmp_path):
    store_path = tmp_path / "cache" / "links.sqlite"  # neither the folder nor the file exists
    workers = Workers(tmp_path, store_path, WORKER)
    try:
        for w in range(WRITERS):
            workers.start(
                f"writer{w}",
                "writer",
                size=SIZE,
                partitions=list(range(w * PARTITIONS, (w + 1) * PARTITIONS)),
            )
        workers.start(
            "reader",
            "reader",
            size=SIZE,
            partitions=WRITERS * PARTITIONS,
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
    assert results[-1][1]["reads"] > 0
    assert_same(store_path, in_memory(range(WRITERS * PARTITIONS)))
    for path in (store_path, Path(f"{store_path}-wal"), Path(f"{store_path}-shm")):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_writer_killed_inside_a_partition_loses_it_whole_and_a_rerun_resumes_exactly(tmp_path):
    store_path = tmp_path / "links.sqlite"
    in_transaction = tmp_path / "in-transaction"
    workers = Workers(tmp_path, store_path, WORKER)
    try:
        workers.start(
            "killable", "killable", size=SIZE, pending=SIZE * 5, in_transaction=str(in_transaction)
        )
        workers.release()
        wait_for(in_transaction)
        workers.procs["killable"].send_signal(signal.SIGKILL)
        assert workers.procs["killable"].wait(timeout=PROCESS_TIMEOUT_S) == -signal.SIGKILL
    finally:
        workers.kill_all()
    wal_before, wal_during = json.loads(in_transaction.read_text())
    assert wal_during > wal_before  # the open transaction had written pages to disk
    assert_same(store_path, in_memory([0]))  # partition 0 whole, partition 1 not at all
    for p in (0, 1):  # the resumed run writes every partition again
        write_link_partition(store_path, partition_rows(p, SIZE))
    assert_same(store_path, in_memory([0, 1]))  # nothing lost, nothing twice


def test_a_forked_child_uses_its_own_connection_and_the_parent_keeps_working(tmp_path):
    store = LinkIndex.open(tmp_path / "links.sqlite", create=True)
    store.add_entries(link_entries(partition_rows(0, 5)))
    parent_connection = store.storage._file.db._conn
    pid = os.fork()
    if pid == 0:  # child: exit with a status, never return into pytest
        code = 1
        try:
            seen = len(store) == 5
            store.add_entries(link_entries(partition_rows(1, 5)))
            code = 0 if seen and store.storage._file.db._conn is not parent_connection else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert len(store) == 10
    store.add_entries(link_entries(partition_rows(2, 5)))
    assert len(store) == 15
    store.close()
