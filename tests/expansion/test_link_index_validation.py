"""Issue 40 leftovers: the in-memory link index refuses what a reader would reject, exactly as
the SQLite store does, and ``LinkIndex.open`` takes the SQLite store's integrity key."""

from __future__ import annotations

import logging

import pytest

from cage_core.expansion.index import LinkIndex
from cage_core.expansion.record import LinkEntry
from cage_core.expansion.store import IntegrityKeyMismatch

UNREADABLE = {
    "empty id": LinkEntry("", "", ("ada kovacs",), ()),
    "5,000-character id": LinkEntry("x" * 5000, "", ("ada kovacs",), ()),
    "a name not in link_name form": LinkEntry("p", "Ada", ("Ada Kovacs",), ()),
    "a surrogate id": LinkEntry("p\ud800", "", ("ada kovacs",), ()),
    "a surrogate name": LinkEntry("p", "", ("ada \ud800",), ()),
}
KEY = b"a secret only the writers and readers hold"


def batch(prefix: str, count: int) -> list[LinkEntry]:
    """``count`` valid entries ``{prefix}0..``, each about ``"{prefix} person {i}"``."""
    return [
        LinkEntry(f"{prefix}{i}", f"{prefix} person {i}", (f"{prefix} person {i}",), ())
        for i in range(count)
    ]


def _refusal(index: LinkIndex, entries: list[LinkEntry]) -> str:
    with pytest.raises(ValueError, match="would not be readable back") as caught:
        index.add_entries(entries)
    return str(caught.value)


@pytest.mark.parametrize("case", sorted(UNREADABLE))
def test_the_memory_index_refuses_what_the_sqlite_store_refuses_with_its_error(tmp_path, case):
    entries = [batch("new", 1)[0], UNREADABLE[case]]
    memory = LinkIndex()
    memory.add_entries(batch("old", 3))
    with LinkIndex.open(tmp_path / "links.sqlite", create=True) as stored:
        assert _refusal(memory, entries) == _refusal(stored, entries)
    assert len(memory) == 3 and "new0" not in memory


def test_an_index_loaded_from_lines_keeps_every_valid_entry(tmp_path):
    index = LinkIndex()
    index.add_entries(batch("old", 5))
    loaded = LinkIndex.from_lines(index.to_lines())
    assert sorted(e.id for e in loaded.entries()) == [f"old{i}" for i in range(5)]
    assert [loaded.entry(f"old{i}") for i in range(5)] == [index.entry(f"old{i}") for i in range(5)]


def test_open_passes_the_integrity_key_to_the_sqlite_store(tmp_path):
    path = tmp_path / "links.sqlite"
    entry = batch("old", 1)[0]
    with LinkIndex.open(path, create=True, integrity_key=KEY) as index:
        index.add_entries([entry])
    with LinkIndex.open(path, integrity_key=KEY) as index:
        assert index.entry("old0") == entry
    with pytest.raises(IntegrityKeyMismatch):  # its MACs are not under this key (issue 46)
        LinkIndex.open(path, integrity_key=b"another secret")


def test_open_says_that_a_key_has_no_effect_on_a_json_lines_index(tmp_path, caplog):
    path = tmp_path / "links.jsonl"
    index = LinkIndex()
    index.add_entries(batch("old", 2))
    index.save(path)
    with caplog.at_level(logging.WARNING, logger="cage_core.expansion.index"):
        loaded = LinkIndex.open(path, integrity_key=KEY)
    assert len(loaded) == 2
    assert "integrity_key has no effect" in caplog.text
