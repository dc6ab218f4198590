"""Row 2 of issue 40: the graph store is a cache and fails as one. A full disk, a read-only
volume, a truncated or foreign file, a row that is not UTF-8 (even one that quotes the word
"locked") is logged once and counted; lookups are misses, writes are dropped, nothing raises.
"""

from __future__ import annotations

import logging
import os
import sqlite3

import pytest
from store_mounts import remount_read_only, tmpfs
from store_worker import content, graph_for

from cage_core.graphs.store import GraphStore
from cage_core.stores import database

KEYS = [f"key{i}" for i in range(40)]


def _filled(path, keys=KEYS) -> dict[str, tuple]:
    with GraphStore(path) as store:
        store.put_many((key, graph_for(key, 0)) for key in keys)
    return {key: content(graph_for(key, 0)) for key in keys}


def _contents(found) -> dict[str, tuple]:
    return {key: content(graph) for key, graph in found.items()}


def _warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


def test_a_full_disk_drops_writes_and_keeps_serving_what_is_stored(tmp_path, caplog):
    with tmpfs(tmp_path / "disk", size="1m") as disk:
        stored = _filled(disk / "graphs.sqlite", KEYS[:5])
        store = GraphStore(disk / "graphs.sqlite")
        big = [(f"big{i}", graph_for(f"big{i}" * 40, 0, nodes=2000)) for i in range(40)]
        for item in big:  # ~60 kB each: the disk fills up part way
            store.put_many([item])
        assert store.failures > 0
        assert _contents(store.get_many(KEYS[:5])) == stored
        full = [m for m in _warnings(caplog) if "disk is full" in m or "I/O error" in m]
        assert len(full) == 1, _warnings(caplog)
        store.close()


def test_a_store_on_a_read_only_volume_is_read_and_its_writes_dropped(tmp_path, caplog):
    with tmpfs(tmp_path / "ro") as volume:
        stored = _filled(volume / "graphs.sqlite", KEYS[:10])
        remount_read_only(volume)
        with caplog.at_level(logging.INFO):
            store = GraphStore(volume / "graphs.sqlite")
            assert _contents(store.get_many(KEYS[:10])) == stored
            store.put_many([("new", graph_for("new", 0))])
            store.put_many([("new2", graph_for("new2", 0))])
        assert store.get_many(["new", "new2"]) == {}
        assert store.failures == 2
        assert sum("read-only" in m for m in _warnings(caplog)) == 1, _warnings(caplog)
        store.close()


@pytest.mark.parametrize("damage", ["truncated", "zeroed header", "not a database"])
def test_a_damaged_file_makes_every_lookup_a_miss(tmp_path, caplog, damage):
    path = tmp_path / "graphs.sqlite"
    _filled(path)
    data = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(data[: len(data) // 3])
    elif damage == "zeroed header":
        path.write_bytes(b"\0" * 100 + data[100:])
    else:
        path.write_bytes(b"graphs,key\n" * 1000)
    store = GraphStore(path)
    found = store.get_many(KEYS)
    store.put_many([("new", graph_for("new", 0))])
    assert set(found) <= set(KEYS)  # whatever was readable, never an exception
    assert damage == "truncated" or found == {}
    assert store.failures >= 1
    messages = _warnings(caplog)
    assert messages and all("not a cage" not in m for m in messages)
    assert any(word in " ".join(messages) for word in ("corrupt", "not a SQLite database"))
    store.close()


def test_a_row_of_invalid_utf8_is_one_invalid_row_not_a_lock(tmp_path, caplog, monkeypatch):
    path = tmp_path / "graphs.sqlite"
    stored = _filled(path, KEYS[:3])
    with sqlite3.connect(path) as conn:  # b"\xff locked \xfe": not UTF-8, quotes "locked"
        conn.execute("INSERT INTO graphs VALUES ('bad', CAST(x'ff206c6f636b656420fe' AS TEXT))")
    store = GraphStore(path)
    retries: list[int] = []
    monkeypatch.setattr(database, "backoff_s", lambda attempt: retries.append(attempt) or 0.0)
    found = store.get_many(["bad", *KEYS[:3]])
    assert retries == []  # no lock retries with backoff
    assert _contents(found) == stored
    assert len(store) == 3  # the bad row was deleted
    assert sum("not UTF-8" in m for m in _warnings(caplog)) == 1
    assert store.failures == 0  # a bad row, not a storage error
    store.close()


def test_a_store_that_cannot_be_created_is_a_cache_of_misses(tmp_path, caplog):
    (tmp_path / "file").write_text("a file, not a directory")
    store = GraphStore(tmp_path / "file" / "graphs.sqlite")
    store.put_many([("k", graph_for("k", 0))])
    assert store.get_many(["k"]) == {}
    assert store.failures >= 2
    assert len(_warnings(caplog)) == 1
    store.close()


def test_a_reranker_over_a_damaged_store_serves_the_ranking_it_would_without(nlp, tmp_path):
    from cage_core import CageConfig, CageReranker

    query = "Which country's capital was Marie Curie born in?"
    pool = ["Marie Curie was born in Warsaw.", "Warsaw is the capital of Poland.", "Bananas."]
    sims = [0.5, 0.4, 0.1]
    path = tmp_path / "graphs.sqlite"
    _filled(path)
    path.write_bytes(path.read_bytes()[:3000])  # truncated
    damaged = CageReranker(CageConfig(), nlp=nlp, embedder=lambda t: None, graph_store=str(path))
    plain = CageReranker(CageConfig(), nlp=nlp, embedder=lambda t: None)
    assert damaged.rerank(query, pool, query_similarities=sims) == plain.rerank(
        query, pool, query_similarities=sims
    )


def test_a_replaced_store_file_is_opened_afresh_and_a_deleted_one_is_a_miss(tmp_path, caplog):
    live = tmp_path / "graphs.sqlite"
    _filled(live, KEYS[:5])
    store = GraphStore(live)
    assert len(store.get_many(KEYS[:5])) == 5
    rebuilt = tmp_path / "rebuilt.sqlite"
    stored = _filled(rebuilt, KEYS[5:8])
    os.replace(rebuilt, live)
    assert _contents(store.get_many(KEYS[:8])) == stored  # the new file alone, never a mix
    assert "replaced by another file" in caplog.text
    live.unlink()
    assert store.get_many(KEYS[:8]) == {}
    store.put_many([("new", graph_for("new", 0))])
    assert not live.exists()  # only the constructor creates the file
    store.close()


def test_len_of_a_store_whose_file_was_deleted_is_a_miss_not_an_error(tmp_path, caplog):
    live = tmp_path / "graphs.sqlite"
    _filled(live, KEYS[:5])
    store = GraphStore(live)
    assert len(store) == 5
    live.unlink()
    failures = store.failures
    assert len(store) == 0  # as lookups: a miss, counted and logged, never an OperationalError
    assert len(store) == 0
    assert store.failures == failures + 2
    assert "deleted while open" in caplog.text
    _filled(live, KEYS[:3])  # a store back at the path is counted again
    assert len(store) == 3
    store.close()
