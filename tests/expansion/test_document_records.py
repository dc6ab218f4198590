"""Document records in the link index: kept beside the chunks, gone with the last one."""

from __future__ import annotations

import json
import logging

import pytest

from cage_core.expansion.documents import DocumentRecord, document_record
from cage_core.expansion.index import LinkEntry, LinkIndex
from cage_core.expansion.routing import route_question

BIRCH = document_record(
    "birch",
    opening="MARKETING AFFILIATE AGREEMENT Between: Birch First Global Investments Inc. "
    "And Mount Knowledge Holdings Inc.",
)
ACME = document_record("acme", opening="SUPPLY AGREEMENT between Acme Widgets Corp.")


def chunk(pid: str, doc_id: str, position: int) -> LinkEntry:
    return LinkEntry(pid, "", (), (), doc_id=doc_id, position=position)


def contracts_index() -> LinkIndex:
    index = LinkIndex()
    index.add_entries(
        [chunk("birch-0", "birch", 0), chunk("birch-1", "birch", 1), chunk("acme-0", "acme", 0)]
    )
    assert index.add_documents([BIRCH, ACME]) == 2
    return index


def test_records_are_read_back_as_routing_reads_them() -> None:
    names = contracts_index().documents()
    assert names.document_count() == 2
    assert names.document("birch") == BIRCH
    assert names.document_frequencies(["agreement", "birch", "nowhere"]) == {
        "agreement": 2,
        "birch": 1,
    }
    assert {w: set(ids) for w, ids in names.documents_with(["mount", "supply"]).items()} == {
        "mount": {"birch"},
        "supply": {"acme"},
    }


def test_an_index_without_records_routes_nothing() -> None:
    index = LinkIndex()
    index.add_entries([chunk("birch-0", "birch", 0)])
    assert index.documents().document_count() == 0
    assert not route_question("Is Birch First Global bound?", index.documents())


def test_a_record_goes_with_the_last_chunk_of_its_document() -> None:
    index = contracts_index()
    assert index.remove("birch-0")
    assert index.documents().document("birch") == BIRCH
    assert index.remove("birch-1")
    assert index.documents().document("birch") is None
    assert index.documents().document_frequencies(["agreement", "birch"]) == {"agreement": 1}
    assert index.documents().document("acme") == ACME


def test_putting_a_chunk_again_keeps_its_documents_record() -> None:
    index = contracts_index()
    index.add_entries([chunk("acme-0", "acme", 0)])
    assert index.documents().document("acme") == ACME


def test_a_chunk_moved_to_another_document_takes_the_old_record_away() -> None:
    index = contracts_index()
    index.add_entries([chunk("acme-0", "birch", 2)])
    assert index.documents().document("acme") is None
    assert index.documents().document("birch") == BIRCH


def test_a_record_replaces_the_one_with_its_doc_id() -> None:
    index = contracts_index()
    index.add_documents([document_record("birch", opening="Birch Supply Schedule")])
    names = index.documents()
    assert names.document("birch") == DocumentRecord(
        "birch", "birch", ("birch", "schedule", "supply", "title:birch")
    )
    assert names.document_frequencies(["mount", "supply"]) == {"supply": 2}


def test_a_record_that_is_no_record_is_refused_and_nothing_is_kept() -> None:
    index = LinkIndex()
    crafted = object.__new__(DocumentRecord)
    object.__setattr__(crafted, "doc_id", "x")
    object.__setattr__(crafted, "name", "X")
    object.__setattr__(crafted, "words", ("UPPER",))
    with pytest.raises(ValueError, match="would not be readable back"):
        index.add_documents([ACME, crafted])
    with pytest.raises(TypeError, match="DocumentRecord"):
        index.add_documents([{"doc_id": "x", "name": "X", "words": []}])  # type: ignore[list-item]
    assert index.documents().document_count() == 0


def test_records_are_saved_after_the_entries_and_loaded_back(tmp_path) -> None:
    index = contracts_index()
    lines = list(index.to_lines())
    assert json.loads(lines[0])["documents"] == 2
    assert lines[-2:] == [
        json.dumps({"document": ACME.to_stored()}, separators=(",", ":")),
        json.dumps({"document": BIRCH.to_stored()}, separators=(",", ":")),
    ]
    index.save(tmp_path / "links.jsonl")
    loaded = LinkIndex.load(tmp_path / "links.jsonl")
    assert list(loaded.storage.document_records()) == [ACME, BIRCH]
    assert list(loaded.entries()) == list(index.entries())


def test_a_file_written_before_records_loads_without_documents(tmp_path, caplog) -> None:
    path = tmp_path / "links.jsonl"
    path.write_text(
        '{"format": "cage-link-index", "version": 1, "passages": 1}\n'
        '{"id":"birch-0","subject":"","keys":[],"mentions":[],"doc_id":"birch","position":0}\n'
    )
    with caplog.at_level(logging.WARNING):
        loaded = LinkIndex.load(path)
    assert len(loaded) == 1 and loaded.documents().document_count() == 0
    assert caplog.records == []


CRAFTED_RECORDS = [
    {"document": {"doc_id": "x", "name": "X", "words": ["UPPER"]}},
    {"document": {"doc_id": "x", "name": "X", "words": ["b", "a"]}},
    {"document": {"doc_id": "x", "name": "X" * 201, "words": []}},
    {"document": {"doc_id": "", "name": "X", "words": []}},
    {"document": {"doc_id": "x", "name": 3, "words": []}},
    {"document": {"doc_id": "x", "name": "X", "words": "ab"}},
    {"document": {"doc_id": "x", "name": "X", "words": [f"w{i:03}" for i in range(257)]}},
    {"document": {"doc_id": "x", "name": "X"}},
    {"document": ["x", "X", []]},
    {"document": {"doc_id": "acme", "name": "again", "words": []}},
]


def test_crafted_record_lines_are_skipped_in_one_warning(tmp_path, caplog) -> None:
    lines = [*contracts_index().to_lines(), *(json.dumps(r) for r in CRAFTED_RECORDS)]
    with caplog.at_level(logging.WARNING):
        loaded = LinkIndex.from_lines(lines)
    assert list(loaded.storage.document_records()) == [ACME, BIRCH]
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1
    assert warnings[0].startswith(
        f"link index: skipped {len(CRAFTED_RECORDS)} invalid document records ("
    )
    assert "1 × repeated document id" in warnings[0]
