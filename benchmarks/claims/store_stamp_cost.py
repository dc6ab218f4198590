"""What the stores' identity stamp costs (issue 40, row 3; ``cage_core/stores/stamp.py``).

    python benchmarks/claims/store_stamp_cost.py [--transactions 4000]

Builds a link store of 2,000 entries. Then, on one plain connection to it
(``synchronous=NORMAL``, as the stores' own), times interleaved (main-thread CPU time, so a
busy machine blurs it little; median of ``--transactions`` each) a write transaction of one
``UPDATE`` without and with what every cage-rag write adds (the check of the stamp SQLite
reads against the one in the file header, the stamp written again), and a read transaction
of one ``SELECT`` without and with the check. Last it reads the ``-wal`` file itself (a
reader holds a snapshot, so the WAL keeps every commit) after 20 one-entry ``add_entries``
and 20 one-vector ``put_embeddings`` of the graph store: the pages per commit, and how many
commits hold page 1 (every one must).
"""

from __future__ import annotations

import argparse
import functools
import sqlite3
import statistics
import struct
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from cage_core.expansion.index import LinkEntry, LinkIndex
from cage_core.graphs.store import GraphStore
from cage_core.stores.files import file_identity
from cage_core.stores.stamp import foreign_wal, hold_file, read_stamp, release_file


def entries(prefix: str, count: int) -> list[LinkEntry]:
    return [
        LinkEntry(f"{prefix}{i}", f"{prefix} person {i}", (f"{prefix} person {i}",), ())
        for i in range(count)
    ]


def interleaved_us(plain: Callable[[], None], stamped: Callable[[], None], n: int) -> tuple:
    """Median main-thread CPU µs of each, run alternately ``n`` times."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(n):
        for call, out in ((plain, times[0]), (stamped, times[1])):
            start = time.thread_time()
            call()
            out.append(time.thread_time() - start)
    return tuple(statistics.median(t) * 1e6 for t in times)


def wal_commits(path: Path) -> list[set[int]]:
    """The page numbers of each commit in the ``-wal`` beside ``path``."""
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


def transaction_costs(path: Path, n: int) -> None:
    opened = file_identity(path)
    hold_file(path, opened)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA synchronous=NORMAL")  # as the stores run

    def write(stamped: bool) -> None:
        conn.execute("BEGIN IMMEDIATE")
        if stamped:
            assert foreign_wal("link store", path, conn, opened) is None
            conn.execute(f"PRAGMA user_version = {read_stamp(conn)}")
        conn.execute("UPDATE entries SET position = position WHERE pid = 7")
        conn.execute("COMMIT")

    def read(checked: bool) -> None:
        conn.execute("BEGIN")
        if checked:
            assert foreign_wal("link store", path, conn, opened) is None
        conn.execute("SELECT data FROM entries WHERE pid = 7").fetchone()
        conn.execute("COMMIT")

    for name, call in (("write", write), ("read", read)):
        plain, stamped = interleaved_us(
            functools.partial(call, False), functools.partial(call, True), n
        )
        print(
            f"{name} transaction: {plain:.1f} us, with the stamp {stamped:.1f} us "
            f"(+{stamped - plain:.1f} us)"
        )
    conn.close()
    release_file(opened)


def pages_per_commit(folder: Path) -> None:
    for kind in ("link", "graph"):
        path = folder / f"{kind}.sqlite"
        store = LinkIndex.open(path, create=True) if kind == "link" else GraphStore(path)
        pin = sqlite3.connect(path)
        pin.execute("BEGIN")
        pin.execute("SELECT count(*) FROM sqlite_master").fetchone()
        for i in range(20):
            if kind == "link":
                store.add_entries(entries(f"w{i}x", 1))
            else:
                store.put_embeddings([(f"w{i}", np.ones(16, dtype=np.float32))])
        commits = wal_commits(path)
        with_one = sum(1 in pages for pages in commits)
        mean = statistics.mean(len(pages) for pages in commits)
        print(f"{kind} store: {len(commits)} commits, {mean:.1f} pages each, page 1 in {with_one}")
        pin.close()
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--transactions", type=int, default=4000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        with LinkIndex.open(folder / "links.sqlite", create=True) as index:
            index.add_entries(entries("base", 2000))
        transaction_costs(folder / "links.sqlite", args.transactions)
        pages_per_commit(folder)


if __name__ == "__main__":
    main()
