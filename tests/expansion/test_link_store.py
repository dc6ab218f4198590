"""The SQLite link store: the in-memory index's entries and expansions, stored for random access.

Entries come from :func:`entry_for` on generated passages (a title, and a light graph of
person, place and organisation names drawn with Zipf frequencies, with honorifics and middle
names so that sub-spans and short forms link too).
"""

from __future__ import annotations

import gc
import json
import logging
import pickle
import random
import sqlite3
import stat
import threading

import pytest
from link_corpus import (
    QUERIES,
    both,
    candidate_lists,
    corpus,
    entries,
    recount,
    stored_counts,
)

from cage_core.expansion import link_store_file
from cage_core.expansion.contract import load_link_index
from cage_core.expansion.index import (
    LinkEntry,
    LinkIndex,
    LinkIndexFormatError,
    is_store_path,
    link_store_path,
)
from cage_core.expansion.ingest import (
    extend_saved,
    index_documents,
    link_entries,
    write_link_partition,
)
from cage_core.expansion.store import (
    PAGE_SIZE,
    STORE_VERSION,
    WAL_CHECKPOINT_PAGES,
    SqliteLinkStorage,
)
from cage_core.expansion.store_import import import_jsonl
from cage_core.graphs.store import GraphStore

# -- the same index ------------------------------------------------------------------------------


@pytest.mark.parametrize("weights", [{}, {"max_shared_df": 3, "max_link_df": 6, "seed_decay": 1.0}])
def test_the_store_expands_exactly_as_the_in_memory_index(tmp_path, weights):
    batch = entries()
    memory, store = both(tmp_path, batch, **weights)
    ids = [e.id for e in batch]
    checked = 0
    for query in QUERIES:
        for candidates in candidate_lists(ids, 50):
            for seeds, limit in ((3, 8), (1, 50), (10, 1000)):
                expected = memory.expand(query, candidates, seeds=seeds, limit=limit)
                assert store.expand(query, candidates, seeds=seeds, limit=limit) == expected
                checked += bool(expected)
    assert checked > 300  # most calls really expand: the equality is not of empty lists
    kinds = {
        e.kind for c in candidate_lists(ids, 50) for e in memory.expand(QUERIES[0], c, limit=50)
    }
    assert kinds == {"forward", "backward", "shared", "document"}


def test_the_store_answers_every_other_question_as_the_in_memory_index(tmp_path):
    batch = entries()
    memory, store = both(tmp_path, batch)
    assert len(store) == len(memory) == len(batch)
    assert list(store.entries()) == list(memory.entries()) == batch
    assert store.entry("p7") == memory.entry("p7") and store.entry("nope") is None
    assert "p7" in store and "nope" not in store and 7 not in store
    names = {n for e in batch for n in (*e.keys, *e.mentions)}
    assert all(store.specificity(n) == memory.specificity(n) for n in names)
    assert all(store.about(n) == memory.about(n) for n in list(names)[:200])
    assert store.chunks_of("doc3") == memory.chunks_of("doc3") == [f"p{i}" for i in range(15, 20)]
    assert store.chunks_of("no such doc") == []


def test_chunks_are_ordered_by_position_then_id_and_those_without_one_come_last(tmp_path):
    made = [
        LinkEntry("c", "", ("cat",), (), "d", 1),
        LinkEntry("a", "", ("ant",), (), "d", None),
        LinkEntry("b", "", ("bee",), (), "d", 1),
        LinkEntry("z", "", ("zebra",), (), "d", 0),
        LinkEntry("x", "", ("fox",), (), "other", 0),
    ]
    memory, store = both(tmp_path, made)
    assert store.chunks_of("d") == memory.chunks_of("d") == ["z", "b", "c", "a"]


def test_a_chunk_whose_names_do_not_decode_is_still_a_chunk_of_its_document(tmp_path):
    made = [
        LinkEntry(i, "", (name,), (), "d", p)
        for p, (i, name) in enumerate([("a", "ant"), ("b", "bee"), ("c", "cat")])
    ]
    _, store = both(tmp_path, made)
    store.close()
    with sqlite3.connect(tmp_path / "links.sqlite") as conn:
        conn.execute("UPDATE entries SET data = 'not json' WHERE id = 'b'")
    with LinkIndex.open(tmp_path / "links.sqlite") as index:
        assert index.entry("b") is None  # its names are unreadable
        assert index.chunks_of("d") == ["a", "b", "c"]  # its place is not


def test_the_json_lines_form_round_trips_doc_id_and_position_and_omits_them_when_unset(tmp_path):
    made = [LinkEntry("a", "A", ("ant",), ("bee",), "doc", 2), LinkEntry("b", "B", ("bee",), ())]
    index = LinkIndex()
    index.add_entries(made)
    index.save(tmp_path / "l.jsonl")
    lines = (tmp_path / "l.jsonl").read_text().splitlines()
    assert json.loads(lines[1]) == {
        "id": "a",
        "subject": "A",
        "keys": ["ant"],
        "mentions": ["bee"],
        "doc_id": "doc",
        "position": 2,
    }
    assert set(json.loads(lines[2])) == {"id", "subject", "keys", "mentions"}
    assert list(LinkIndex.load(tmp_path / "l.jsonl").entries()) == made


# -- incremental writes ----------------------------------------------------------------------------


def test_adding_replacing_and_removing_in_batches_keeps_every_count_right(tmp_path):
    first, second = entries(300, seed=0), entries(300, seed=5)  # same ids p0..p299, other names
    memory, store = both(tmp_path, first[:200])
    rng = random.Random(3)
    for step in range(6):
        renamed = rng.sample(second, 40)  # ids already held: their old postings are taken back
        add = first[200 + 15 * step : 215 + 15 * step]
        drop = [f"p{i}" for i in rng.sample(range(300), 25)]
        held = len(
            {pid for pid in drop if pid in memory} | {e.id for e in renamed + add if e.id in drop}
        )
        for index in (memory, store):
            index.add_entries(renamed + add)
            assert index.remove_many(drop + ["never held"]) == held
        assert len(store) == len(memory)
        assert stored_counts(store.storage.path) == recount(memory)  # no stale or zero names left
    ids = [e.id for e in memory.entries()]
    for candidates in candidate_lists(ids, 60):
        expected = memory.expand(QUERIES[1], candidates, limit=20)
        assert store.expand(QUERIES[1], candidates, limit=20) == expected
    assert list(store.entries()) == list(memory.entries())  # a replaced entry moves to the end


def test_remove_reports_what_was_held_and_a_repeated_id_in_one_batch_keeps_the_last(tmp_path):
    a1, a2 = LinkEntry("a", "", ("ant",), ("bee",)), LinkEntry("a", "", ("asp",), ())
    memory, store = both(tmp_path, [a1, LinkEntry("b", "", ("bee",), ()), a2])
    assert [e.id for e in store.entries()] == [e.id for e in memory.entries()] == ["b", "a"]
    assert store.entry("a") == a2 and stored_counts(store.storage.path) == recount(memory)
    assert store.remove("a") and not store.remove("a") and len(store) == 1
    assert store.remove_many(["b", "b", "x"]) == 1 and len(store) == 0
    assert stored_counts(store.storage.path) == {}


def test_writing_the_same_partition_twice_leaves_the_store_as_once(tmp_path):
    rows = [
        {"id": pid, "text": p.text, "title": p.title, "cage_graph": g.to_text()}
        for pid, (p, g) in list(corpus(60).items())
    ]
    path = tmp_path / "links.sqlite"
    assert write_link_partition(path, rows[:30], 0) == 30
    write_link_partition(path, rows[30:], 30)
    once = (sorted(LinkIndex.open(path).entries(), key=lambda e: e.id), stored_counts(path))
    write_link_partition(path, rows[10:40], 10)  # a retried or resumed partition
    again = LinkIndex.open(path)
    assert len(again) == 60
    assert (sorted(again.entries(), key=lambda e: e.id), stored_counts(path)) == once
    assert once[1] == recount(again)
    memory = LinkIndex()
    memory.add_entries(link_entries(rows))
    assert sorted(again.entries(), key=lambda e: e.id) == sorted(
        memory.entries(), key=lambda e: e.id
    )


# -- opening, formats, untrusted rows -------------------------------------------------------------


def test_open_picks_the_store_by_suffix_and_never_creates_one_for_a_reader(tmp_path):
    assert (
        is_store_path("a/links.sqlite") and is_store_path("x.DB") and not is_store_path("l.jsonl")
    )
    assert link_store_path("cache/graphs.sqlite").name == "graphs.links.sqlite"
    with pytest.raises(FileNotFoundError, match="no link store"):
        LinkIndex.open(tmp_path / "typo.sqlite")
    with pytest.raises(FileNotFoundError):
        load_link_index(tmp_path / "typo.sqlite")
    path = tmp_path / "new" / "links.sqlite"
    with LinkIndex.open(path, create=True) as index:
        index.add_entries(entries(20))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    opened = load_link_index(str(path))  # the retrievers' and ingest components' path argument
    assert isinstance(opened.storage, SqliteLinkStorage) and len(opened) == 20
    assert isinstance(LinkIndex.load(path).storage, SqliteLinkStorage)  # old callers of load


def test_files_that_are_no_link_store_are_clear_errors(tmp_path):
    text = tmp_path / "text.sqlite"
    text.write_text("not a database at all" * 100)
    with pytest.raises(LinkIndexFormatError, match="not a cage link store"):
        LinkIndex.open(text)
    graphs = tmp_path / "graphs.sqlite"
    GraphStore(graphs).close()  # a SQLite file, but the graph store's
    with pytest.raises(LinkIndexFormatError, match="no meta table"):
        LinkIndex.open(graphs)
    other = tmp_path / "other.sqlite"
    LinkIndex.open(other, create=True).close()
    with sqlite3.connect(other) as conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'version'", (STORE_VERSION + 1,))
    with pytest.raises(LinkIndexFormatError, match="rebuild it"):
        LinkIndex.open(other)


def test_corrupted_rows_are_skipped_and_reported_once_in_one_warning(tmp_path, caplog):
    batch = entries(50)
    memory, store = both(tmp_path, batch)
    store.close()
    path = tmp_path / "links.sqlite"
    bad = {
        "p1": ("data", "not json"),
        "p2": ("data", json.dumps({"subject": "", "keys": ["Not Normal"], "mentions": []})),
        "p3": ("data", 42),
        "p4": ("doc_id", b"\x00"),
        "p5": ("position", -1),
        "p6": ("data", json.dumps({"subject": "", "keys": [], "mentions": [], "id": "x"})),
    }
    with sqlite3.connect(path) as conn:
        for pid, (column, value) in bad.items():
            conn.execute(f"UPDATE entries SET {column} = ? WHERE id = ?", (value, pid))
        conn.execute("UPDATE entries SET id = CAST(? AS TEXT) WHERE id = 'p7'", (b"p\xff7",))
    reopened = LinkIndex.open(path)
    with caplog.at_level(logging.WARNING, logger="cage_core.expansion.store"):
        held = list(reopened.entries())
    assert [e.id for e in held] == [e.id for e in batch if e.id not in {*bad, "p7"}]
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1 and "skipped 7 invalid entries" in warnings[0]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="cage_core.expansion.store"):
        assert list(reopened.entries()) == held  # reported once per process
        expanded = reopened.expand(QUERIES[0], ["p1", "p8"], seeds=1)
        assert expanded == reopened.expand(QUERIES[0], ["p8"], seeds=1)  # a corrupted seed is
        assert expanded and not {e.id for e in expanded} & {*bad, "p7"}  # skipped like an
        # unknown id, and a corrupted entry is reached by no link (not even its document's)
    assert caplog.records == []


def test_a_stored_count_of_the_wrong_type_is_ignored_with_a_warning(tmp_path, caplog):
    memory, store = both(tmp_path, entries(50))
    name = memory.entry("p0").mentions[0]
    with sqlite3.connect(tmp_path / "links.sqlite") as conn:
        conn.execute("UPDATE names SET keyed = 'many' WHERE name = ?", (name,))
    with caplog.at_level(logging.WARNING, logger="cage_core.expansion.store"):
        assert store.specificity(name) == 0.0
        assert store.specificity(name) == 0.0
    assert [r.getMessage() for r in caplog.records if "not ints >= 0" in r.getMessage()] == [
        f"link store {tmp_path / 'links.sqlite'}: ignored 1 name counts that are not ints >= 0"
    ]


def test_an_old_json_lines_index_is_imported_once_streaming_and_validated(tmp_path, caplog):
    memory = LinkIndex()
    memory.add_entries(entries(120))
    source = tmp_path / "graphs.links.jsonl"
    memory.save(source)
    with source.open("a") as handle:  # a bad line and a repeated id: skipped, the first one stays
        handle.write(
            "{not json\n" + json.dumps({**memory.entry("p3").to_dict(), "keys": []}) + "\n"
        )
    with caplog.at_level(logging.WARNING):
        assert import_jsonl(source, tmp_path / "graphs.links.sqlite") == 120
    assert "skipped 2 invalid entries (1 × line is not JSON; 1 × repeated id)" in caplog.text
    store = LinkIndex.open(tmp_path / "graphs.links.sqlite")
    assert list(store.entries()) == list(memory.entries())
    ids = [e.id for e in memory.entries()]
    assert all(
        store.expand(q, c) == memory.expand(q, c) for q in QUERIES for c in candidate_lists(ids, 30)
    )
    (tmp_path / "bad.jsonl").write_text('{"format": "something else"}\n')
    with pytest.raises(LinkIndexFormatError, match="missing format tag"):
        import_jsonl(tmp_path / "bad.jsonl", tmp_path / "graphs.links.sqlite")


def test_an_index_over_a_store_pickles_by_path_and_the_copy_reads_the_same_file(tmp_path):
    _, store = both(tmp_path, entries(30))
    copy = pickle.loads(pickle.dumps(store))
    assert copy.storage is not store.storage and list(copy.entries()) == list(store.entries())
    copy.add_entry(LinkEntry("new", "", ("newt",), ()))
    assert "new" in store  # one file


def test_ingest_components_write_a_store_path_in_place_of_a_json_lines_file(tmp_path):
    items = [(pid, p, g, {}) for pid, (p, g) in corpus(40).items()]
    path = tmp_path / "links.sqlite"
    assert index_documents(str(path), items[:25]) == 25
    assert index_documents(path, items[20:]) == 20  # upserts: 5 repeated ids replaced
    assert extend_saved(path, [LinkEntry("extra", "", ("extra name",), ())]) == 41
    memory = LinkIndex()
    index_documents(memory, items)
    store = LinkIndex.open(path)
    assert sorted(e.id for e in store.entries()) == sorted(
        [*(e.id for e in memory.entries()), "extra"]
    )


def test_cage_links_imports_an_old_file_once_and_exports_the_store_again(tmp_path):
    import io

    from cage_core.cli.commands import main

    memory = LinkIndex()
    memory.add_entries(entries(60))
    memory.save(tmp_path / "old.links.jsonl")
    out = io.StringIO()
    assert (
        main(["links", str(tmp_path / "old.links.jsonl"), str(tmp_path / "links.sqlite")], out=out)
        == 0
    )
    assert main(["links", str(tmp_path / "links.sqlite"), str(tmp_path / "copy.db")], out=out) == 0
    assert main(["links", str(tmp_path / "copy.db"), str(tmp_path / "export.jsonl")], out=out) == 0
    assert out.getvalue().count("copied 60 link entries") == 3
    assert (tmp_path / "export.jsonl").read_bytes() == (tmp_path / "old.links.jsonl").read_bytes()
    assert main(["links", str(tmp_path / "links.sqlite"), str(tmp_path / "links.sqlite")]) == 2


def test_threads_sharing_one_store_get_the_in_memory_expansions(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    batch = entries(200)
    memory, store = both(tmp_path, batch)
    lists = candidate_lists([e.id for e in batch], 80)
    with ThreadPoolExecutor(4) as pool:
        found = list(pool.map(lambda c: store.expand(QUERIES[2], c, limit=20), lists))
    assert found == [memory.expand(QUERIES[2], c, limit=20) for c in lists]


def test_a_writer_checkpoints_its_wal_past_the_bound_and_starts_no_thread(tmp_path, monkeypatch):
    threads = threading.active_count()
    store = LinkIndex.open(tmp_path / "links.sqlite", create=True)
    traced: list[str] = []
    conn = store.storage._file.db.connection()
    conn.set_trace_callback(traced.append)
    store.add_entries(entries(50))
    assert threading.active_count() == threads  # no checkpoint thread
    assert not any("wal_checkpoint" in sql for sql in traced)  # far below the bound
    assert conn.execute("PRAGMA wal_autocheckpoint").fetchone() == (0,)  # SQLite's is off
    assert conn.execute("PRAGMA journal_size_limit").fetchone() == (
        WAL_CHECKPOINT_PAGES * PAGE_SIZE,
    )
    monkeypatch.setattr(link_store_file, "WAL_CHECKPOINT_PAGES", 0)  # every WAL is past it
    store.add_entries(entries(60)[50:])
    assert traced[-1] == "PRAGMA wal_checkpoint(PASSIVE)"  # by the writer, after its commit
    store.close()  # the last connection's close checkpoints every page into the file
    assert not (tmp_path / "links.sqlite-wal").exists()
    with sqlite3.connect(tmp_path / "links.sqlite") as plain:
        assert plain.execute("SELECT count(*) FROM entries").fetchone() == (60,)


def test_a_writer_dropped_without_close_leaves_its_commits_in_the_file(tmp_path):
    store = LinkIndex.open(tmp_path / "links.sqlite", create=True)
    store.add_entries(entries(10))
    del store
    gc.collect()
    assert len(LinkIndex.open(tmp_path / "links.sqlite")) == 10
