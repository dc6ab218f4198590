"""Row 1 of issue 40: every stored-JSON reader treats a value it cannot decode — a number of
more digits than Python's int-string limit, text that is not UTF-8, nesting past the
recursion limit — as one invalid row: skipped with one warning, never an exception."""

from __future__ import annotations

import sqlite3

import pytest
from graphs import entity_graph
from link_corpus import entries
from store_worker import graph_for

from cage_core import Passage
from cage_core.expansion.index import LinkIndex
from cage_core.graphs.passage_graph import GraphFormatError, PassageGraph
from cage_core.graphs.service import PassageGraphs
from cage_core.graphs.store import GraphStore
from cage_core.jsonl import StoredJsonError, decode_json

HUGE = "1" * 5000
"""A JSON number past Python's default int-string limit (4,300 digits)."""


@pytest.mark.parametrize(
    "text",
    [f'{{"n": {HUGE}}}', b'{"n": "\xff"}', "[" * 100_000, "{", ""],
    ids=["huge number", "not UTF-8", "too deep", "truncated", "empty"],
)
def test_every_decoding_failure_is_one_stored_json_error(text):
    with pytest.raises(StoredJsonError):
        decode_json(text)


def test_a_huge_number_in_one_jsonl_line_skips_that_line_only(tmp_path, caplog):
    batch = entries(20)
    path = tmp_path / "links.jsonl"
    index = LinkIndex()
    index.add_entries(batch)
    index.save(path)
    lines = path.read_text().splitlines()
    lines[3] = lines[3][:-1] + f', "n": {HUGE}}}'  # the entry of batch[2]
    path.write_text("\n".join(lines) + "\n")
    loaded = LinkIndex.load(path)
    assert len(loaded) == len(batch) - 1 and batch[2].id not in loaded
    assert caplog.text.count("skipped 1 invalid entries") == 1


def test_a_huge_number_in_a_link_store_row_is_an_invalid_row(tmp_path, caplog):
    batch = entries(20)
    path = tmp_path / "links.sqlite"
    with LinkIndex.open(path, create=True) as index:
        index.add_entries(batch)
    with sqlite3.connect(path) as conn:
        data = f'{{"subject": "", "keys": [], "mentions": [], "n": {HUGE}}}'
        conn.execute("UPDATE entries SET data = ? WHERE id = 'p5'", (data,))
    without = LinkIndex()
    without.add_entries([entry for entry in batch if entry.id != "p5"])
    query, candidates = "Who met John Smith?", ["p5", "p0", "p1"]
    with LinkIndex.open(path) as index:
        assert index.entry("p5") is None
        got = index.expand(query, candidates, limit=20)
    expected = without.expand(query, candidates, limit=20)  # counts differ by p5: same links
    assert {(x.id, x.seed) for x in got} == {(x.id, x.seed) for x in expected} != set()
    assert caplog.text.count("skipped 1 invalid entries") == 1


def test_a_huge_number_in_a_graph_store_row_is_a_miss(tmp_path, caplog):
    store = GraphStore(tmp_path / "graphs.sqlite")
    store.put_many([("good", graph_for("good", 0))])
    with sqlite3.connect(store.path) as conn:
        conn.execute("INSERT INTO graphs VALUES ('bad', ?)", (f'{{"format": {HUGE}}}',))
    found = store.get_many(["good", "bad"])
    assert list(found) == ["good"]
    assert "entry bad is invalid" in caplog.text
    assert len(store) == 1  # the invalid row was deleted
    store.close()


def test_a_huge_number_in_vector_store_metadata_is_an_ignored_graph(caplog):
    passage = Passage("Marie Curie was born in Warsaw.")
    graph = entity_graph([("Marie Curie", "PERSON")])
    text = graph.to_text()[:-1] + f',"n":{HUGE}}}'
    with pytest.raises(GraphFormatError, match="must be JSON"):
        PassageGraph.from_stored(text)
    assert PassageGraphs().stored([text], [passage]) == [None]  # what the wrappers call
    assert "ignoring 1 of 1 stored passage graphs" in caplog.text
