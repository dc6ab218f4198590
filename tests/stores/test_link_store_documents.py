"""Document records in the SQLite link store: kept as in memory, read in indexed lookups,
untrusted on read, absent from stores written before them."""

from __future__ import annotations

import logging
import sqlite3

import pytest

from cage_core.expansion.documents import DocumentRecord, document_record
from cage_core.expansion.index import LinkEntry, LinkIndex, LinkIndexFormatError
from cage_core.expansion.link_store_file import MAX_VALUE_BYTES
from cage_core.expansion.routing import RoutingSettings, route_question
from cage_core.expansion.store import SqliteLinkStorage
from cage_core.expansion.store_import import import_jsonl

OPENINGS = {
    "birch": "MARKETING AFFILIATE AGREEMENT Between: Birch First Global Investments Inc. "
    "And Mount Knowledge Holdings Inc.",
    "convergtv": "CONTENT DISTRIBUTION AND LICENSE AGREEMENT between ConvergTV, Inc. and "
    "Fulucai Productions Ltd.",
    "acme": "SUPPLY AGREEMENT between Acme Widgets Corp. and Globex Industrial Ltd.",
    "initech": "LICENSE AGREEMENT between Initech Software LLC and Umbrella Health Inc.",
    "hooli": "SERVICES AGREEMENT between Hooli Cloud Inc. and Pied Piper Compression Inc.",
}
RECORDS = [document_record(doc_id, opening=text) for doc_id, text in OPENINGS.items()]
ENTRIES = [
    LinkEntry(f"{doc_id}-{n}", "", (), (), doc_id=doc_id, position=n)
    for doc_id in OPENINGS
    for n in range(2)
]
QUESTION = "Is consent required to assign the agreement Fulucai Productions signed with ConvergTV?"
LOW = RoutingSettings(min_score=3.0)
KEY = b"a secret only the writers and readers hold"


def fill(index: LinkIndex) -> LinkIndex:
    index.add_entries(ENTRIES)
    index.add_documents(RECORDS)
    return index


@pytest.fixture
def store(tmp_path):
    with fill(LinkIndex.open(tmp_path / "links.sqlite", create=True)):
        pass
    return tmp_path / "links.sqlite"


def names_of(index: LinkIndex, words: list[str]) -> tuple:
    names = index.documents()
    return (
        names.document_count(),
        names.document_frequencies(words),
        {w: sorted(ids) for w, ids in names.documents_with(words).items()},
        [names.document(d) for d in sorted(OPENINGS)],
        names.documents(["hooli", "nowhere", "birch", "", "hooli"]),
    )


WORDS = ["agreement", "license", "birch", "fulucai", "nowhere", "UPPER", ""]


def test_a_store_reads_back_the_records_as_the_memory_index(store):
    memory = fill(LinkIndex())
    with LinkIndex.open(store) as index:
        assert names_of(index, WORDS) == names_of(memory, WORDS)
        assert sorted(index.storage.document_records(), key=lambda r: r.doc_id) == list(
            memory.storage.document_records()
        )
        assert route_question(QUESTION, index.documents(), LOW) == route_question(
            QUESTION, memory.documents(), LOW
        )
        assert route_question(QUESTION, index.documents(), LOW).doc_ids == ("convergtv",)
        asked = ["license", "fulucai", "agreement", "birch"]  # the router sums in this order
        assert list(index.documents().document_frequencies(asked)) == asked
        assert list(index.documents().documents_with(asked)) == asked


def test_records_are_replaced_and_go_with_the_last_chunk_as_in_memory(store):
    memory = fill(LinkIndex())
    with LinkIndex.open(store) as index:
        for each in (index, memory):
            each.add_documents([document_record("birch", opening="Birch Supply Schedule")])
            each.remove_many(["hooli-0", "hooli-1", "acme-0"])
            each.add_entries([LinkEntry("initech-0", "", (), (), doc_id="birch", position=5)])
            each.add_entries([LinkEntry("initech-1", "", (), (), doc_id="birch", position=6)])
        assert names_of(index, WORDS + ["supply", "hooli"]) == names_of(
            memory, WORDS + ["supply", "hooli"]
        )
        assert index.documents().document_count() == 3  # birch, convergtv, acme
        assert index.documents().document("hooli") is None


def test_a_store_written_before_records_opens_and_routes_nothing(tmp_path, caplog):
    path = tmp_path / "links.sqlite"
    with LinkIndex.open(path, create=True) as index:
        index.add_entries(ENTRIES)
    with sqlite3.connect(path) as conn:  # the layout of a store written before records
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        assert not tables & {"documents", "document_words", "document_counts"}
    with caplog.at_level(logging.INFO, logger="cage_core.expansion.store"):
        with LinkIndex.open(path) as reader:
            assert not route_question(QUESTION, reader.documents(), LOW)
            assert not route_question(QUESTION, reader.documents(), LOW)
            assert reader.documents().document_frequencies(["birch"]) == {}
            assert reader.documents().documents_with(["birch"]) == {}
            assert reader.documents().document("birch") is None
            with LinkIndex.open(path) as writer:  # a writer adds the tables while it reads
                writer.add_documents(RECORDS)
            assert reader.documents().document_count() == len(RECORDS)
    notes = [r.getMessage() for r in caplog.records if "holds no document records" in r.message]
    assert len(notes) == 1 and caplog.records[0].levelno == logging.INFO
    with LinkIndex.open(path) as index:
        assert route_question(QUESTION, index.documents(), LOW).doc_ids == ("convergtv",)


def test_a_store_with_only_some_document_tables_is_refused(store):
    with sqlite3.connect(store) as conn:
        conn.execute("DROP TABLE document_counts")
    with pytest.raises(LinkIndexFormatError, match="it lacks document_counts"):
        LinkIndex.open(store)


def test_a_document_table_defined_otherwise_is_refused(store):
    with sqlite3.connect(store) as conn:
        conn.execute("DROP TABLE document_counts")
        conn.execute("CREATE TABLE document_counts (word TEXT, documents)")
    with pytest.raises(LinkIndexFormatError, match="not defined as this store's"):
        LinkIndex.open(store)


CRAFTED = {
    "words not sorted": "UPDATE documents SET words = '[\"zeta\",\"alpha\"]' WHERE doc_id = 'acme'",
    "words not JSON": "UPDATE documents SET words = '[alpha' WHERE doc_id = 'acme'",
    "an upper-case word": "UPDATE documents SET words = '[\"ACME\"]' WHERE doc_id = 'acme'",
    "a long name": "UPDATE documents SET name = printf('%.300c', 'x') WHERE doc_id = 'acme'",
    "a name of the wrong type": "UPDATE documents SET name = x'4142' WHERE doc_id = 'acme'",
    "words past the value bound": (
        f"UPDATE documents SET words = zeroblob({MAX_VALUE_BYTES + 10}) WHERE doc_id = 'acme'"
    ),
}


@pytest.mark.parametrize("edit", sorted(CRAFTED))
def test_a_crafted_record_row_is_skipped_with_one_warning(store, caplog, edit):
    with sqlite3.connect(store) as conn:
        assert conn.execute(CRAFTED[edit]).rowcount == 1
    with caplog.at_level(logging.WARNING), LinkIndex.open(store) as index:
        assert index.documents().document("acme") is None
        assert index.documents().document("acme") is None
        assert index.documents().document("birch") == RECORDS[0]
        assert index.documents().documents(["acme", "birch"]) == {"birch": RECORDS[0]}
        assert [r.doc_id for r in index.storage.document_records()] == [
            "birch",
            "convergtv",
            "initech",
            "hooli",
        ]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "skipped 1 invalid document records" in warnings[0]


def test_counts_and_postings_of_the_wrong_type_are_ignored(store, caplog):
    with sqlite3.connect(store) as conn:
        conn.execute("UPDATE document_counts SET documents = 'many' WHERE word = 'birch'")
        conn.execute("INSERT INTO document_words VALUES ('fulucai', x'ff')")
        conn.execute("UPDATE meta SET value = 'lots' WHERE key = 'documents'")
    with caplog.at_level(logging.WARNING), LinkIndex.open(store) as index:
        names = index.documents()
        assert names.document_count() == len(RECORDS)  # counted instead
        assert names.document_frequencies(["birch", "mount"]) == {"mount": 1}
        assert {w: set(ids) for w, ids in names.documents_with(["fulucai"]).items()} == {
            "fulucai": {"convergtv"}
        }
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 3


def test_a_word_is_read_up_to_its_stored_count_plus_one(store):
    with sqlite3.connect(store) as conn:  # postings that outnumber the count are not all read
        conn.executemany(
            "INSERT INTO document_words VALUES ('birch', ?)", [(f"x{i}",) for i in range(50)]
        )
    with LinkIndex.open(store) as index:
        assert len(index.documents().documents_with(["birch"])["birch"]) == 2


KEYED_EDITS = {  # each: the edit, and what a keyed reader still reads of birch and acme
    "a record's words": (
        "UPDATE documents SET words = '[\"acme\",\"birch\"]' WHERE doc_id = 'acme'",
        {"birch": 1, "acme": 1},  # the counts agree with the postings ...
        {"birch": ["birch"]},  # ... but the posting's record has no valid MAC: dropped
    ),
    "a word's count": (
        "UPDATE document_counts SET documents = 2 WHERE word = 'birch'",
        {"acme": 1},  # the count disagrees with its postings: the word is not read
        {"acme": ["acme"]},
    ),
    "a posting": (
        "INSERT INTO document_words VALUES ('birch', 'acme')",
        {"acme": 1},
        {"acme": ["acme"]},
    ),
    "the document count": (
        "UPDATE meta SET value = 9 WHERE key = 'documents'",  # its MAC fails: counted
        {"birch": 1, "acme": 1},
        {"birch": ["birch"], "acme": ["acme"]},
    ),
}


@pytest.mark.parametrize("edit", sorted(KEYED_EDITS))
def test_a_keyed_reader_uses_no_record_edited_without_the_key(tmp_path, caplog, edit):
    path = tmp_path / "links.sqlite"
    with fill(LinkIndex(storage=SqliteLinkStorage(path, create=True, integrity_key=KEY))):
        pass
    sql, frequencies, holders = KEYED_EDITS[edit]
    with sqlite3.connect(path) as conn:
        assert conn.execute(sql).rowcount == 1
    with caplog.at_level(logging.WARNING):
        with LinkIndex(storage=SqliteLinkStorage(path, integrity_key=KEY)) as index:
            count, got_frequencies, got_holders, records, _ = names_of(index, ["birch", "acme"])
    assert (count, got_frequencies, got_holders) == (len(RECORDS), frequencies, holders)
    acme = next(r for r in RECORDS if r.doc_id == "acme")
    assert (acme in records) == (edit != "a record's words")
    assert [r for r in caplog.records if r.levelno == logging.WARNING]


def test_records_travel_through_the_json_lines_export_and_import(store, tmp_path):
    with LinkIndex.open(store) as index:
        index.save(tmp_path / "export.jsonl")
    loaded = LinkIndex.load(tmp_path / "export.jsonl")
    assert names_of(loaded, WORDS) == names_of(fill(LinkIndex()), WORDS)
    assert import_jsonl(tmp_path / "export.jsonl", tmp_path / "copy.sqlite") == len(ENTRIES)
    with LinkIndex.open(tmp_path / "copy.sqlite") as copy:
        assert names_of(copy, WORDS) == names_of(loaded, WORDS)


def test_a_record_a_reader_would_reject_is_not_written(store):
    crafted = object.__new__(DocumentRecord)
    for field, value in (("doc_id", "x"), ("name", "X"), ("words", ("a b",))):
        object.__setattr__(crafted, field, value)
    with LinkIndex.open(store) as index:
        with pytest.raises(ValueError, match="would not be readable back"):
            index.add_documents([crafted])
        assert index.documents().document_count() == len(RECORDS)


def test_a_record_read_again_is_kept_decoded_and_an_edited_row_is_checked_anew(store):
    with LinkIndex.open(store) as index:
        first = index.documents().document("acme")
        assert first == RECORDS[2]
        assert index.documents().document("acme") is first  # not decoded again
    with sqlite3.connect(store) as conn:
        assert conn.execute(CRAFTED["an upper-case word"]).rowcount == 1
    with LinkIndex.open(store) as index:
        assert index.documents().document("acme") is None  # its new values are checked
