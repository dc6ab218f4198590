"""Document records in the link index: kept beside the chunks, gone with the last one."""

from __future__ import annotations

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
        "birch", "birch", ("birch", "schedule", "supply")
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
