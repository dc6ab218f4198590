"""Issue 40, row 3, the last window: a process that opens a store's path after a rebuilt store
was moved over the live one, while a process that had the live one open still holds its
``-wal`` there, never reads that WAL (nor lets SQLite copy it into the new file): each store
file carries a stamp in its header (:mod:`cage_core.stores.stamp`), and every write puts it
in the WAL too.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest
from link_swap_worker import batch
from store_worker import content, graph_for

from cage_core.expansion.index import LinkIndex
from cage_core.graphs.store import GraphStore
from cage_core.stores.files import StoreFileChanged

WORKER = Path(__file__).with_name("stale_wal_worker.py")
OLD, NEW = 50, 30
NEW_KEYS = [f"new{i}" for i in range(NEW)]


def _header_stamp(path: Path) -> int:
    with open(path, "rb") as file:
        return int.from_bytes(file.read(64)[60:64], "big")


def _wal_commits(path: Path) -> list[set[int]]:
    """The page numbers of each commit in the ``-wal`` of ``path`` (its valid frames)."""
    data = Path(str(path) + "-wal").read_bytes()
    page_size, salts = struct.unpack(">I", data[8:12])[0], data[16:24]
    commits, pages, offset = [], set(), 32
    while offset + 24 + page_size <= len(data) and data[offset + 8 : offset + 16] == salts:
        page, commit = struct.unpack(">II", data[offset : offset + 8])
        pages.add(page)
        if commit:
            commits.append(pages)
            pages = set()
        offset += 24 + page_size
    return commits


def _link_store(path: Path, prefix: str, count: int) -> Path:
    with LinkIndex.open(path, create=True) as index:
        index.add_entries(batch(prefix, count))
    return path


def _graph_store(path: Path, keys: list[str]) -> Path:
    with GraphStore(path) as store:
        store.put_many((key, graph_for(key, 0)) for key in keys)
    return path


def _file_ids(path: Path, kind: str) -> list[str]:
    """The ids (link store) or keys (graph store) in the file itself, WAL or not."""
    conn = sqlite3.connect(f"{path.absolute().as_uri()}?immutable=1", uri=True)
    try:
        column, table = ("id", "entries") if kind == "link" else ("key", "graphs")
        return sorted(row[0] for row in conn.execute(f"SELECT {column} FROM {table}"))
    finally:
        conn.close()


class _OldProcess:
    """A stale_wal_worker process holding the live store at ``path`` (its docstring)."""

    def __init__(self, tmp_path: Path, kind: str, path: Path, **options: object) -> None:
        self.signals = {name: str(tmp_path / name) for name in ("ready", "go", "late", "late_done")}
        options.update(entries=OLD, ready=self.signals["ready"], go=self.signals["go"])
        if options.pop("late_commit", False):
            options.update(late=self.signals["late"], late_done=self.signals["late_done"])
        self.proc = subprocess.Popen(
            [sys.executable, str(WORKER), kind, str(path), json.dumps(options)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._wait("ready")

    def _wait(self, signal: str) -> None:
        deadline = time.monotonic() + 60
        while not os.path.exists(self.signals[signal]):
            assert self.proc.poll() is None, self.proc.communicate()
            assert time.monotonic() < deadline, f"the worker never signalled {signal}"
            time.sleep(0.01)

    def commit_late(self) -> None:
        Path(self.signals["late"]).touch()
        self._wait("late_done")

    def go(self) -> str:
        Path(self.signals["go"]).touch()
        out, err = self.proc.communicate(timeout=60)
        assert self.proc.returncode == 0, err
        return json.loads(out)["outcome"]


# -- the stamp -----------------------------------------------------------------------------------
def test_a_new_store_has_a_random_stamp_in_its_file_header(tmp_path):
    links = [_link_store(tmp_path / f"{i}.links.sqlite", "a", 3) for i in range(2)]
    graphs = [_graph_store(tmp_path / f"{i}.graphs.sqlite", ["k"]) for i in range(2)]
    stamps = [_header_stamp(path) for path in links + graphs]
    assert all(0 < stamp < 2**31 for stamp in stamps) and len(set(stamps)) == 4
    with sqlite3.connect(links[0]) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (stamps[0],)


@pytest.mark.parametrize("kind", ["link", "graph"])
def test_every_write_commits_page_one_with_the_stamp(tmp_path, kind):
    path = tmp_path / "store.sqlite"
    store = LinkIndex.open(path, create=True) if kind == "link" else GraphStore(path)
    pin = sqlite3.connect(path)  # a reader's snapshot: the WAL keeps every commit after it
    pin.execute("BEGIN")
    pin.execute("SELECT count(*) FROM sqlite_master").fetchone()
    for i in range(5):
        if kind == "link":
            store.add_entries(batch(f"w{i}x", 3))
        else:
            store.put_many([(f"w{i}", graph_for(f"w{i}", 0))])
    commits = _wal_commits(path)
    assert len(commits) == 5 and all(1 in pages for pages in commits)
    pin.close()
    store.close()


def test_a_store_made_before_stamps_is_read_and_stamped_by_its_first_write(tmp_path):
    path = _link_store(tmp_path / "links.sqlite", "old", 5)
    conn = sqlite3.connect(path)  # as cage-rag wrote it before stamps
    conn.execute("PRAGMA user_version = 0")
    conn.close()  # the last connection: checkpointed into the file
    assert _header_stamp(path) == 0
    with LinkIndex.open(path) as index:
        assert len(index) == 5
        index.add_entries(batch("new", 1))
    assert _header_stamp(path) > 0 and len(LinkIndex.open(path)) == 6


def _descriptors_of(path: Path) -> int:
    fds = Path("/proc/self/fd")
    if not fds.is_dir():
        pytest.skip("no /proc/self/fd here")
    count = 0
    for fd in fds.iterdir():
        try:
            count += os.readlink(fd) == str(path)
        except OSError:
            continue
    return count


def test_reading_the_header_never_drops_the_locks_of_the_processs_connections(tmp_path):
    path = _link_store(tmp_path / "links.sqlite", "old", 20)
    index = LinkIndex.open(path)
    for i in range(20):  # each reads the header stamp beside SQLite's own descriptor
        assert index.entry(f"old{i}") is not None
    reader = (
        "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
        "c.execute('SELECT 1 FROM meta').fetchone(); c.close()"
    )
    subprocess.run([sys.executable, "-c", reader, str(path)], check=True)
    assert Path(str(path) + "-wal").exists()  # its close knew it was not the last one
    index.close()
    assert _descriptors_of(path) == 0 and not Path(str(path) + "-wal").exists()


@pytest.mark.parametrize("kind", ["link", "graph"])
def test_closed_stores_leave_no_descriptor_of_their_file_open(tmp_path, kind):
    path = tmp_path / "store.sqlite"
    for _ in range(3):
        first = LinkIndex.open(path, create=True) if kind == "link" else GraphStore(path)
        second = LinkIndex.open(path) if kind == "link" else GraphStore(path)
        for store, name in ((first, "a"), (second, "b")):
            if kind == "link":
                store.add_entries(batch(name, 2))
            else:
                store.put_many([(name, graph_for(name, 0))])
        assert _descriptors_of(path) > 0
        first.close()
        second.close()
        assert _descriptors_of(path) == 0


# -- the window: a process opens the path while the old file's WAL is there ----------------------
def test_a_link_store_opened_over_another_files_wal_raises_and_keeps_the_new_file(tmp_path):
    live = tmp_path / "links.sqlite"
    old = _OldProcess(tmp_path, "link", live, pin=True)  # its commits are in the WAL
    rebuilt = _link_store(tmp_path / "rebuilt.sqlite", "new", NEW)
    os.replace(rebuilt, live)
    for _ in range(3):  # no old entry, no mix, no "malformed": a clear error
        with pytest.raises(StoreFileChanged, match="holds another file's commits"):
            LinkIndex.open(live)
    assert _file_ids(live, "link") == sorted(e.id for e in batch("new", NEW))  # not copied in
    outcome = old.go()  # the old process notices, and takes its -wal away
    assert outcome.startswith("StoreFileChanged") and "replaced" in outcome
    with LinkIndex.open(live) as index:
        assert sorted(entry.id for entry in index.entries()) == sorted(
            entry.id for entry in batch("new", NEW)
        )


def test_a_late_commit_of_the_old_file_is_never_read_by_an_open_link_store(tmp_path):
    live = tmp_path / "links.sqlite"
    old = _OldProcess(tmp_path, "link", live, late_commit=True)
    rebuilt = _link_store(tmp_path / "rebuilt.sqlite", "new", NEW)
    os.replace(rebuilt, live)
    index = LinkIndex.open(live)  # the WAL holds nothing yet: the new file is read
    assert len(index) == NEW
    old.commit_late()  # into the -wal at the path, which this process reads too
    for _ in range(2):
        with pytest.raises(StoreFileChanged, match="holds another file's commits"):
            index.entry("new3")
    assert _file_ids(live, "link") == sorted(e.id for e in batch("new", NEW))
    assert old.go().startswith("StoreFileChanged")
    assert index.entry("new3") is not None and len(index) == NEW  # reopened, the new file
    index.close()


def test_a_graph_store_opened_over_another_files_wal_misses_and_logs_once(tmp_path, caplog):
    live = tmp_path / "graphs.sqlite"
    old = _OldProcess(tmp_path, "graph", live, pin=True)
    rebuilt = _graph_store(tmp_path / "rebuilt.sqlite", NEW_KEYS)
    os.replace(rebuilt, live)
    store = GraphStore(live)
    for _ in range(3):
        assert store.get_many(["old0", "old1", *NEW_KEYS]) == {}  # misses, never old entries
    store.put_many([("dropped", graph_for("dropped", 0))])
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "holds another file's commits" in warnings[0]
    assert _file_ids(live, "graph") == sorted(NEW_KEYS)
    assert old.go() == "ok"  # the old process opens the new file (graph store policy)
    found = store.get_many(["old0", *NEW_KEYS])
    assert {key: content(graph) for key, graph in found.items()} == {
        key: content(graph_for(key, 0)) for key in NEW_KEYS
    }
    store.close()


def test_a_late_commit_of_the_old_file_is_never_read_by_an_open_graph_store(tmp_path):
    live = tmp_path / "graphs.sqlite"
    old = _OldProcess(tmp_path, "graph", live, late_commit=True)
    rebuilt = _graph_store(tmp_path / "rebuilt.sqlite", NEW_KEYS)
    os.replace(rebuilt, live)
    store = GraphStore(live)
    assert len(store.get_many(NEW_KEYS)) == NEW
    old.commit_late()
    assert store.get_many(["late", *NEW_KEYS]) == {}
    failures = store.failures
    assert failures >= 1 and _file_ids(live, "graph") == sorted(NEW_KEYS)
    assert old.go() == "ok"
    assert sorted(store.get_many(["late", *NEW_KEYS])) == sorted(NEW_KEYS)
    store.close()
