"""Issue 46, the fault trial's high defect: a crafted link-store row reached as a seed's
neighbouring chunk (the adjacent-chunk read of ``document_entries``, the chunk list of
``chunks_of``) is refused as cheaply as the seed's own row: its size is checked before
anything stored after it in the row is read.

Cost is measured as the bytes this process reads (Linux ``/proc/self/io``, ``rchar``: every
``read``/``pread`` of SQLite's, whatever the page cache holds), not as time: reading a row's
``position`` past a value of N MB walks N MB of overflow pages."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from cage_core.expansion.index import LinkEntry, LinkIndex

IO = Path("/proc/self/io")
pytestmark = pytest.mark.skipif(not IO.exists(), reason="needs Linux /proc/self/io")

CRAFTED_BYTES = 16_000_000
"""The crafted row's ``data``: 16 MB, past the store's ``MAX_VALUE_BYTES`` (about 1 MB)."""
QUERY = "Who knew person 3?"


def _bytes_read() -> int:
    for line in IO.read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


def _entries() -> list[LinkEntry]:
    return [
        LinkEntry(
            f"p{i}",
            f"person {i}",
            (f"person {i}",),
            (f"person {(i + 5) % 12}",),
            doc_id="report",
            position=i,
        )
        for i in range(12)
    ]


@pytest.fixture(params=["text", "blob"])
def crafted(tmp_path, request) -> Path:
    """A store of one document of 12 chunks whose chunk at position 4 (the neighbour of the
    seed p3) holds a 16 MB ``data`` value, as text or as a blob."""
    path = tmp_path / "links.sqlite"
    with LinkIndex.open(path, create=True) as index:
        index.add_entries(_entries())
    big = "x" * CRAFTED_BYTES
    with sqlite3.connect(path) as conn:
        value = big if request.param == "text" else big.encode()
        assert conn.execute("UPDATE entries SET data = ? WHERE id = 'p4'", (value,)).rowcount == 1
    return path


CALLS = {
    "expand (the seed's adjacent chunks)": lambda index: [
        (e.id, e.kind) for e in index.expand(QUERY, ["p3"])
    ],
    "document_entries at the neighbours' positions": lambda index: [
        e.id for e in index.storage.document_entries("report", [2, 4])
    ],
    "chunks_of": lambda index: index.chunks_of("report"),
}


def _without_the_crafted_row() -> LinkIndex:
    """What the store reads as: its entries less the crafted one, in memory."""
    index = LinkIndex()
    index.add_entries(e for e in _entries() if e.id != "p4")
    return index


@pytest.mark.parametrize("call", sorted(CALLS))
def test_a_huge_neighbour_row_is_refused_without_reading_past_its_value(crafted, call, caplog):
    with LinkIndex.open(crafted) as index:
        before = _bytes_read()
        got = CALLS[call](index)
        read = _bytes_read() - before
    assert read < CRAFTED_BYTES / 16, f"read {read:,} bytes"  # not the 16 MB row's pages
    assert got == CALLS[call](_without_the_crafted_row())  # the crafted chunk left out
    assert "p2" in str(got)  # the seed's other neighbour kept


def test_the_seeds_own_huge_row_costs_as_little(crafted):
    with LinkIndex.open(crafted) as index:
        before = _bytes_read()
        assert index.entry("p4") is None
        assert index.expand(QUERY, ["p4"]) == []  # an unreadable seed seeds nothing
        assert _bytes_read() - before < CRAFTED_BYTES / 16
