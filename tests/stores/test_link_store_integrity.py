"""Row 9 of issue 40: an optional keyed integrity for the link store. With a key, a flipped
bit or an edit by whoever lacks the key changes no expansion silently: the altered row is
skipped with a warning (or the file is refused), never used."""

from __future__ import annotations

import logging
import random
import sqlite3

import pytest
from link_swap_worker import batch

from cage_core.expansion.documents import DocumentRecord
from cage_core.expansion.index import LinkIndex
from cage_core.expansion.store import IntegrityKeyMismatch, SqliteLinkStorage

KEY = b"a secret only the writers and readers hold"
QUERIES = [
    (f"Who knew old person {i}?", [f"old{i}", f"old{(i * 7) % 300}"]) for i in range(0, 300, 10)
]


def _keyed(path, *, create=False, key=KEY) -> LinkIndex:
    return LinkIndex(storage=SqliteLinkStorage(path, create=create, integrity_key=key))


def _expansions(path, key=KEY):
    with _keyed(path, key=key) as index:
        return [index.expand(query, candidates, limit=20) for query, candidates in QUERIES]


@pytest.fixture
def keyed_store(tmp_path):
    path = tmp_path / "links.sqlite"
    with _keyed(path, create=True) as index:
        index.add_entries(batch("old", 300))
    return path


def test_a_keyed_store_expands_as_the_memory_index_with_or_without_the_key(keyed_store):
    memory = LinkIndex()
    memory.add_entries(batch("old", 300))
    expected = [memory.expand(query, candidates, limit=20) for query, candidates in QUERIES]
    assert _expansions(keyed_store) == expected
    assert _expansions(keyed_store, key=None) == expected  # a reader without a key ignores MACs


def test_a_keyed_reader_uses_nothing_written_without_the_key(tmp_path, caplog):
    path = tmp_path / "links.sqlite"
    with LinkIndex.open(path, create=True) as index:
        index.add_entries(batch("old", 20))
    with _keyed(path) as index:
        assert index.entry("old3") is None and index.expand(QUERIES[0][0], ["old3"]) == []
    assert "no valid MAC under the integrity key" in caplog.text


EDITS = {
    "an entry's keys": "UPDATE entries SET data = replace(data, 'old person 11', 'old person 19') "
    "WHERE id = 'old11'",
    "a name's count": "UPDATE names SET keyed = keyed + 1 WHERE name = 'old person 11'",
    "a posting's passage": "UPDATE postings SET pid = (SELECT pid FROM entries WHERE id = 'old19') "
    "WHERE pid = (SELECT pid FROM entries WHERE id = 'old11') AND role = 0",
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_an_edit_without_the_key_is_skipped_with_a_warning(keyed_store, caplog, edit):
    clean = _expansions(keyed_store)
    with sqlite3.connect(keyed_store) as conn:
        assert conn.execute(EDITS[edit]).rowcount == 1
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        got = _expansions(keyed_store)
    assert got != clean  # the edit mattered ...
    assert caplog.records  # ... and was reported, never used silently


def test_forty_single_bit_flips_change_no_expansion_silently(keyed_store, tmp_path, caplog):
    clean, data = _expansions(keyed_store), keyed_store.read_bytes()
    rng = random.Random(0)
    outcomes = {"same": 0, "reported": 0, "silent": 0}
    for trial in range(40):
        flipped = bytearray(data)
        flipped[rng.randrange(100, len(data))] ^= 1 << rng.randrange(8)
        path = tmp_path / f"flipped{trial}.sqlite"
        path.write_bytes(bytes(flipped))
        caplog.clear()
        try:
            with caplog.at_level(logging.WARNING):
                got = _expansions(path)
        except (ValueError, sqlite3.Error):
            outcomes["reported"] += 1  # refused: a clear error
            continue
        if any(r.levelno >= logging.WARNING for r in caplog.records):
            outcomes["reported"] += 1
        else:
            outcomes["same" if got == clean else "silent"] += 1
    assert outcomes["silent"] == 0, outcomes
    assert outcomes["reported"] > 0  # flips did land in what the store reads


def test_check_finds_what_rows_cannot_show_a_damaged_index(keyed_store, tmp_path):
    with _keyed(keyed_store) as index:
        assert index.storage.check() == []
    with sqlite3.connect(keyed_store) as conn:
        try:
            pages = conn.execute(
                "SELECT pageno FROM dbstat WHERE name = 'sqlite_autoindex_entries_1' "
                "AND pagetype = 'leaf'"
            ).fetchall()
        except sqlite3.OperationalError:
            pytest.skip("this SQLite has no dbstat table to find an index page with")
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    data = bytearray(keyed_store.read_bytes())
    data[(pages[0][0] - 1) * page_size + page_size - 20] ^= 0x01  # a key near the page's end
    damaged = tmp_path / "damaged.sqlite"
    damaged.write_bytes(bytes(data))
    with _keyed(damaged) as index:
        assert any("index" in problem for problem in index.storage.check())
    with sqlite3.connect(keyed_store) as conn:
        conn.execute(
            "UPDATE entries SET data = replace(data, 'old person 5', 'old person 6') "
            "WHERE id = 'old5'"
        )
    with _keyed(keyed_store) as index:
        assert index.storage.check() == ["1 entries without a valid MAC under the integrity key"]


RECORDS = [
    DocumentRecord("doc-acme", "Acme Foods annual report", ("acme", "annual", "foods", "report")),
    DocumentRecord("doc-birch", "Birch Agreement", ("agreement", "birch")),
]
DOCUMENT_EDITS = {
    "a record's words": (
        """UPDATE documents SET words = '["acme","birch"]' WHERE doc_id = 'doc-acme'""",
        "1 document records without a valid MAC under the integrity key",
    ),
    "the document count": (
        "UPDATE meta SET value = value + 1 WHERE key = 'documents'",
        "the document count has no valid MAC under the integrity key",
    ),
    "a word's count": (
        "UPDATE document_counts SET documents = 2 WHERE word = 'birch'",
        "1 document word counts disagree with their postings",
    ),
}


@pytest.mark.parametrize("edit", sorted(DOCUMENT_EDITS))
def test_check_covers_the_document_records(keyed_store, edit):
    with _keyed(keyed_store) as index:
        index.add_documents(RECORDS)
        assert index.storage.check() == []
    sql, problem = DOCUMENT_EDITS[edit]
    with sqlite3.connect(keyed_store) as conn:
        assert conn.execute(sql).rowcount == 1
    with _keyed(keyed_store) as index:
        assert index.storage.check() == [problem]


def test_a_wrong_key_is_an_error_at_open_not_empty_expansions(keyed_store):
    for open_store in (
        lambda key: SqliteLinkStorage(keyed_store, integrity_key=key),
        lambda key: LinkIndex.open(keyed_store, integrity_key=key),
        lambda key: LinkIndex.open(keyed_store, integrity_key=key, create=True),  # a writer
    ):
        with pytest.raises(IntegrityKeyMismatch, match="no MAC .* holds under the integrity key"):
            open_store(b"not the writers' key")
    assert issubclass(IntegrityKeyMismatch, ValueError)
    assert _expansions(keyed_store) == _expansions(keyed_store, key=None)  # the right key reads


def test_a_store_with_its_count_altered_still_opens_under_its_key(keyed_store, caplog):
    with sqlite3.connect(keyed_store) as conn:  # one MAC no longer holds; the entries' do
        conn.execute("UPDATE meta SET value = value + 1 WHERE key = 'passages'")
    with _keyed(keyed_store) as index:
        assert len(index) == 300  # recounted, with a warning
    assert "passage count is invalid" in caplog.text
