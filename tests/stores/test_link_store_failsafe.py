"""Issue 40 for the SQLite link store: a store is one file at one path (row 3: replaced, row 6:
deleted, under real processes), read-only media (row 4), crafted files (row 5), entries a
reader would reject (row 8) and errors that name their cause (row 12)."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from link_swap_worker import batch
from store_mounts import remount_read_only, tmpfs

from cage_core.expansion.index import MAX_LINE_CHARS, LinkEntry, LinkIndex, LinkIndexFormatError
from cage_core.expansion.store import MAX_VALUE_BYTES, STORE_VERSION
from cage_core.expansion.store_import import import_jsonl
from cage_core.stores.database import OperationBudget
from cage_core.stores.files import StoreFileChanged

WORKER = Path(__file__).with_name("link_swap_worker.py")
QUERY = "Who knew old person 3?"


def _store(path: Path, entries: list[LinkEntry]) -> Path:
    with LinkIndex.open(path, create=True) as index:
        index.add_entries(entries)
    return path


class _Writer:
    """A link_swap_worker process: it writes, then waits until :meth:`go`."""

    def __init__(self, tmp_path: Path, store: Path, prefix: str, first: int, second: int):
        self.go_file, ready = tmp_path / f"{prefix}.go", tmp_path / f"{prefix}.ready"
        options = {
            "prefix": prefix,
            "first": first,
            "second": second,
            "ready": str(ready),
            "go": str(self.go_file),
        }
        self.proc = subprocess.Popen(
            [sys.executable, str(WORKER), str(store), json.dumps(options)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 60
        while not ready.exists():
            assert self.proc.poll() is None, self.proc.communicate()
            assert time.monotonic() < deadline, "the worker never got ready"
            time.sleep(0.01)

    def go(self) -> dict[str, str]:
        self.go_file.touch()
        out, err = self.proc.communicate(timeout=60)
        assert self.proc.returncode == 0, err
        return json.loads(out)


# -- row 3: a store replaced under open processes ------------------------------------------------
def test_a_replaced_store_is_a_clear_error_in_every_process_that_had_it_open(tmp_path):
    live = tmp_path / "links.sqlite"
    writer = _Writer(tmp_path, live, "old", first=50, second=10)
    reader = LinkIndex.open(live)
    before = reader.expand(QUERY, ["old3", "old10"])
    assert before
    rebuilt = _store(tmp_path / "rebuilt.sqlite", batch("new", 30))
    os.replace(rebuilt, live)
    for _ in range(3):  # this call and every later one: never the old file, never a mix
        with pytest.raises(StoreFileChanged, match="replaced by another file"):
            reader.expand(QUERY, ["old3", "old10"])
    outcome = writer.go()  # the old writer writes again, as in the issue
    assert outcome["put"].startswith("StoreFileChanged") and "replaced" in outcome["put"]
    assert outcome["read"].startswith("StoreFileChanged")
    reader.close()
    with LinkIndex.open(live) as fresh:  # opened anew once no process holds the old file
        assert sorted(entry.id for entry in fresh.entries()) == sorted(
            entry.id for entry in batch("new", 30)
        )
        assert fresh.expand("Who knew new person 3?", ["new3"])


# -- row 6: a store deleted under an open writer -------------------------------------------------
def test_a_store_deleted_under_a_writer_is_a_clear_error_and_never_created_again(tmp_path):
    live = tmp_path / "links.sqlite"
    writer = _Writer(tmp_path, live, "w", first=20, second=5)
    live.unlink()
    outcome = writer.go()
    assert outcome["put"].startswith("StoreFileChanged") and "deleted" in outcome["put"]
    assert outcome["read"].startswith("StoreFileChanged")
    assert not live.exists()  # neither the writer nor a checkpoint made a new file


def test_the_wal_checkpoint_never_creates_a_store_file(tmp_path):
    path = tmp_path / "links.sqlite"
    writer = LinkIndex.open(path, create=True)
    writer.add_entries(batch("old", 20))
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    with pytest.raises(StoreFileChanged, match="deleted"):
        writer.add_entries(batch("more", 5))
    writer.close()  # its close checkpoints nothing into a file at the path
    assert not path.exists()


# -- row 4: read-only media ----------------------------------------------------------------------
def test_a_store_on_a_read_only_volume_is_read_and_a_write_names_the_cause(tmp_path):
    with tmpfs(tmp_path / "ro") as volume:
        path = _store(volume / "links.sqlite", batch("old", 40))
        memory = LinkIndex()
        memory.add_entries(batch("old", 40))
        remount_read_only(volume)
        with LinkIndex.open(path) as index:
            assert len(index) == 40
            assert index.expand(QUERY, ["old3"]) == memory.expand(QUERY, ["old3"])
            with pytest.raises(sqlite3.OperationalError, match="read-only"):
                index.add_entries(batch("more", 1))


def test_a_full_disk_is_a_clear_error_and_the_committed_batches_stay_readable(tmp_path):
    with tmpfs(tmp_path / "disk", size="1m") as disk:
        path = _store(disk / "links.sqlite", batch("old", 50))
        with LinkIndex.open(path) as index:
            with pytest.raises(sqlite3.OperationalError, match="disk is full|I/O error"):
                for start in range(0, 20_000, 1000):
                    index.add_entries(batch(f"more{start}x", 1000))
            assert index.entry("old3") is not None
            assert index.expand(QUERY, ["old3"])


# -- row 5: crafted stores -----------------------------------------------------------------------
CRAFTED = {
    "a view for entries": "ALTER TABLE entries RENAME TO e2; "
    "CREATE VIEW entries AS SELECT * FROM e2",
    "an endless view": "CREATE VIEW endless AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL "
    "SELECT x + 1 FROM c) SELECT x FROM c",
    "a trigger": "CREATE TRIGGER evil AFTER INSERT ON entries BEGIN "
    "UPDATE entries SET id = 'hijacked' WHERE pid = new.pid; END",
    "another table": "CREATE TABLE extra (x)",
    "an altered table": "ALTER TABLE names ADD COLUMN note TEXT",
}


@pytest.mark.parametrize("case", sorted(CRAFTED))
def test_a_store_whose_schema_is_not_the_stores_is_refused_at_open(tmp_path, case):
    path = _store(tmp_path / "links.sqlite", batch("old", 10))
    with sqlite3.connect(path) as conn:
        conn.executescript(CRAFTED[case])
    read: list[str] = []
    with _traced(read), pytest.raises(LinkIndexFormatError, match="not a cage link store"):
        LinkIndex.open(path)
    assert read and not [sql for sql in read if _reads_a_table(sql)]  # refused before a read


def test_a_value_larger_than_any_store_writes_is_skipped_unread(tmp_path, caplog):
    path = _store(tmp_path / "links.sqlite", batch("old", 20))
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE entries SET data = ? WHERE id = 'old4'", ("x" * 20_000_000,))
    with LinkIndex.open(path) as index:
        conn = index.storage._file.db.connection()
        assert conn.getlimit(sqlite3.SQLITE_LIMIT_LENGTH) == MAX_VALUE_BYTES  # refused unread
        assert index.entry("old4") is None
        got = index.expand(QUERY, ["old3", "old4", "old5"])
        assert [entry.id for entry in index.entries()] == [f"old{i}" for i in range(20) if i != 4]
    assert got and "larger than" in caplog.text


def test_postings_beyond_a_names_count_are_never_read(tmp_path):
    path = _store(tmp_path / "links.sqlite", batch("old", 20))
    with LinkIndex.open(path) as clean:
        expected, clean_steps = _steps(clean, lambda: _reads(clean))
    with sqlite3.connect(path) as conn:  # 200k postings under a count of 1
        (nid,) = conn.execute("SELECT nid FROM names WHERE name = 'old person 4'").fetchone()
        conn.executemany(
            "INSERT INTO postings VALUES (?, 0, ?)", ((nid, 10**6 + i) for i in range(200_000))
        )
    with LinkIndex.open(path) as index:
        got, steps = _steps(index, lambda: _reads(index))
    assert got == expected
    assert steps <= clean_steps + 10  # reading the 200k postings would take ~6,000 more


def _reads(index: LinkIndex) -> tuple:
    return index.expand(QUERY, ["old3"]), index.about("old person 4")


def _steps(index: LinkIndex, reads) -> tuple:
    """What ``reads()`` returns, and how many hundreds of SQLite instructions it ran."""
    steps = [0]

    def count() -> int:
        steps[0] += 1
        return 0

    conn = index.storage._file.db.connection()
    conn.set_progress_handler(count, 100)
    return reads(), steps[0]


@contextmanager
def _traced(statements: list[str]):
    """Every statement run on a connection opened inside the block goes to ``statements``."""
    connect = sqlite3.connect

    def traced(*args, **kwargs):
        conn = connect(*args, **kwargs)
        conn.set_trace_callback(statements.append)
        return conn

    sqlite3.connect = traced
    try:
        yield
    finally:
        sqlite3.connect = connect


def _reads_a_table(sql: str) -> bool:
    """Whether ``sql`` reads a table or view of the store (not its schema, meta or pragmas)."""
    words = sql.replace("(", " ").replace(",", " ").split()
    tables = {words[i + 1] for i, word in enumerate(words[:-1]) if word.upper() in ("FROM", "JOIN")}
    return bool(tables - {"sqlite_master", "meta", "pragma_table_info"})


def test_connections_distrust_the_schema_and_stop_overlong_statements(tmp_path):
    path = _store(tmp_path / "links.sqlite", batch("old", 3))
    with LinkIndex.open(path) as index:
        conn = index.storage._file.db.connection()  # the store's own connection
        assert conn.execute("PRAGMA trusted_schema").fetchone() == (0,)
    conn = sqlite3.connect(":memory:")
    budget = OperationBudget(limit_s=0.05)
    budget.install(conn)
    budget.start()
    endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) FROM c"
    with pytest.raises(sqlite3.OperationalError, match="interrupted"):
        conn.execute(endless).fetchone()


# -- row 8: entries a reader would reject --------------------------------------------------------
UNREADABLE = {
    "empty id": LinkEntry("", "", ("ada kovacs",), ()),
    "5,000-character id": LinkEntry("x" * 5000, "", ("ada kovacs",), ()),
    "a name not in link_name form": LinkEntry("p", "Ada", ("Ada Kovacs",), ()),
    "a surrogate id": LinkEntry("p\ud800", "", ("ada kovacs",), ()),
    "a surrogate name": LinkEntry("p", "", ("ada \ud800",), ()),
}


@pytest.mark.parametrize("case", sorted(UNREADABLE))
def test_add_entries_refuses_what_a_reader_would_reject_and_writes_nothing(tmp_path, case):
    path = _store(tmp_path / "links.sqlite", batch("old", 3))
    with LinkIndex.open(path) as index:
        with pytest.raises(ValueError, match="would not be readable back"):
            index.add_entries([batch("new", 1)[0], UNREADABLE[case]])
        assert len(index) == 3 and "new0" not in index


# -- row 12: errors that name their cause --------------------------------------------------------
def test_a_truncated_store_says_it_is_truncated(tmp_path):
    path = _store(tmp_path / "links.sqlite", batch("old", 2000))
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 3])
    with pytest.raises((LinkIndexFormatError, sqlite3.DatabaseError), match="truncated"):
        with LinkIndex.open(path) as index:
            for entry in index.entries():
                index.expand(QUERY, [entry.id])


def test_a_store_of_a_newer_version_asks_for_a_newer_cage_rag(tmp_path):
    path = _store(tmp_path / "links.sqlite", batch("old", 2))
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'version'", (STORE_VERSION + 1,))
    with pytest.raises(LinkIndexFormatError, match="newer cage-rag"):
        LinkIndex.open(path)


def test_an_empty_file_is_no_store_to_a_reader_and_a_logged_new_one_to_a_writer(tmp_path, caplog):
    path = tmp_path / "links.sqlite"
    path.touch(mode=0o600)
    with pytest.raises(LinkIndexFormatError, match=r"empty \(0 bytes\)"):
        LinkIndex.open(path)
    old = time.time() - 3600
    os.utime(path, (old, old))  # emptied an hour ago, not by a writer creating it now
    with caplog.at_level(logging.WARNING):
        LinkIndex.open(path, create=True).close()
    assert "empty (0 bytes); initialising a new link store" in caplog.text


def test_a_json_lines_header_past_the_line_bound_is_named_not_called_empty(tmp_path):
    path = tmp_path / "links.jsonl"
    path.write_bytes(b"x" * (MAX_LINE_CHARS + 10) + b"\n")
    for read in (LinkIndex.load, lambda p: import_jsonl(p, tmp_path / "links.sqlite")):
        with pytest.raises(LinkIndexFormatError, match="longer than"):
            read(path)


def test_the_documented_swap_copies_a_rebuilt_store_into_the_live_one_for_open_readers(tmp_path):
    live = _store(tmp_path / "links.sqlite", batch("old", 50))
    reader = LinkIndex.open(live)
    assert reader.expand(QUERY, ["old3"])
    rebuilt = _store(tmp_path / "rebuilt.sqlite", batch("new", 30))
    source, target = sqlite3.connect(rebuilt), sqlite3.connect(live)
    (stamp,) = target.execute("PRAGMA user_version").fetchone()
    source.execute(f"PRAGMA user_version = {stamp}")  # the live store keeps its stamp
    source.backup(target)  # docs/reliability.md: the backup API, not a file swap
    source.close()
    target.close()
    assert sorted(entry.id for entry in reader.entries()) == sorted(
        entry.id for entry in batch("new", 30)
    )
    assert reader.expand("Who knew new person 3?", ["new3"])
    reader.close()


def test_a_store_copied_in_without_its_stamp_is_refused_until_checkpointed(tmp_path):
    live = _store(tmp_path / "links.sqlite", batch("old", 50))
    reader = LinkIndex.open(live)
    source = sqlite3.connect(_store(tmp_path / "rebuilt.sqlite", batch("new", 30)))
    target = sqlite3.connect(live)
    source.backup(target)  # its WAL now holds another stamp than the file: as a swap's would
    source.close()
    target.close()
    with pytest.raises(StoreFileChanged, match="without this store's stamp"):
        len(reader)
    reader.close()  # the last process: docs/reliability.md, checkpoint it then
    conn = sqlite3.connect(live)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    with LinkIndex.open(live) as index:
        assert sorted(entry.id for entry in index.entries()) == sorted(
            entry.id for entry in batch("new", 30)
        )
