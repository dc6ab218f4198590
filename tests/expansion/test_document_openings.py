"""Which chunk a document's record is read from at ingest, through every ingest path that
needs no model: LinkIndex.build and add, index_documents into memory, JSON Lines and SQLite,
and cage enrich's partitions."""

from __future__ import annotations

import numpy as np
import pytest
from rfc_opening import HEADER, RFC_9110

from cage_core import Passage
from cage_core.expansion.documents import document_record
from cage_core.expansion.index import LinkIndex
from cage_core.expansion.ingest import index_documents, link_chunks, write_link_partition
from cage_core.expansion.openings import document_name_fields
from cage_core.graphs.passage_graph import PassageGraph, content_hash

REPORT = [
    "Orbital Dynamics annual report 2023. Orbital Dynamics builds small satellites.",
    "The company reported revenue of 40 million dollars.",
    "The company appointed a new chief executive officer.",
]
MEMO = ["Memo on the Kestrel launch window.", "The window opens in March."]
RFC_PARTS = [RFC_9110, "   The request method token is the primary source of semantics."]


def passages() -> list[tuple[str, Passage]]:
    out = [
        (f"report-{n}", Passage(text, doc_id="orbital", position=n))
        for n, text in enumerate(REPORT)
    ]
    out += [
        (f"memo-{n}", Passage(text, doc_id="memo", title="Kestrel memo"))
        for n, text in enumerate(MEMO)
    ]
    return out


ORBITAL = document_record("orbital", opening=REPORT[0])
KESTREL = document_record("memo", opening=MEMO[0], title="Kestrel memo")


def test_build_keeps_one_record_per_document_from_its_first_passage() -> None:
    items = passages()
    index = LinkIndex.build([(pid, p, None) for pid, p in [*items[1:3], items[0], *items[3:]]])
    assert list(index.storage.document_records()) == [KESTREL, ORBITAL]
    assert ORBITAL.name == "orbital"  # its doc_id, a meaningful file name
    assert KESTREL.name == "Kestrel memo"


def test_passages_added_one_by_one_in_any_order_end_with_the_first_ones_record() -> None:
    index = LinkIndex()
    for pid, passage in reversed(passages()[:3]):
        index.add(pid, passage, None)
    assert list(index.storage.document_records()) == [ORBITAL]
    index.add("memo-1", passages()[4][1], None)  # positions unknown: the first seen ...
    index.add("memo-0", passages()[3][1], None)  # ... keeps its record
    assert index.documents().document("memo") == document_record(
        "memo", opening=MEMO[1], title="Kestrel memo"
    )


def test_a_passage_without_a_document_gives_no_record() -> None:
    index = LinkIndex.build([("loose", Passage("Orbital Dynamics builds satellites."), None)])
    assert index.documents().document_count() == 0


@pytest.mark.parametrize("target", ["memory", "links.jsonl", "links.sqlite"])
def test_index_documents_writes_the_records_with_the_metadata_file(target, tmp_path) -> None:
    source = {"source": "filings/orbital_dynamics_10k.txt"}
    items = [(pid, p, None, source if pid.startswith("report") else {}) for pid, p in passages()]
    index = LinkIndex() if target == "memory" else tmp_path / target
    assert index_documents(index, items[:2]) == 2
    assert index_documents(index, items[2:]) == 3
    with index if isinstance(index, LinkIndex) else LinkIndex.open(index) as read:
        records = sorted(read.storage.document_records(), key=lambda r: r.doc_id)
    orbital = document_record("orbital", opening=REPORT[0], source=source["source"])
    assert orbital.name == "orbital dynamics 10k"
    assert records == [KESTREL, orbital]


def test_a_later_partition_of_a_document_keeps_the_record_of_its_first_chunk(tmp_path) -> None:
    rows = [
        {
            "id": f"r{n}",
            "text": t,
            "source": "filings/orbital.txt",
            "start_index": 100 * n,
            "cage_graph": _no_entities(t),
        }
        for n, t in enumerate(REPORT)
    ]
    path = tmp_path / "links.sqlite"
    write_link_partition(path, rows[:1], 0)
    write_link_partition(path, rows[1:], 1)  # ranked over its batch: "r1" is numbered 0 here
    assert [c.entry.position for c in link_chunks(rows[1:], 1)] == [0, 1]
    with LinkIndex.open(path) as index:
        assert list(index.storage.document_records()) == [
            document_record("filings/orbital.txt", opening=REPORT[0])
        ]
    write_link_partition(path, rows, 0)  # the whole document again: the same record
    with LinkIndex.open(path) as index:
        assert index.documents().document_count() == 1
        index.remove_many(["r0", "r1", "r2"])
        assert index.documents().document_count() == 0


def _no_entities(text: str) -> str:
    """The stored light graph of an untitled passage that names nothing."""
    empty = np.zeros(0, np.int64)
    graph = PassageGraph(
        (), (), (), empty, empty, empty, (), level="light", content_sha=content_hash(f"\n\n{text}")
    )
    return graph.to_text()


def test_a_centred_title_a_splitter_put_at_a_later_chunks_start_is_read_by_the_offsets() -> None:
    # how RecursiveCharacterTextSplitter(chunk_size=500, add_start_index=True) cuts RFC 9110's
    # opening: the header over two chunks, the title starting the third, its margin stripped
    cuts = [RFC_9110.index(HEADER[6]), RFC_9110.index("HTTP Semantics")]
    parts = [RFC_9110[: cuts[0]], RFC_9110[cuts[0] : cuts[1]], RFC_9110[cuts[1] :]]
    starts = [0, *cuts]
    texts = [part.strip() for part in parts]
    items = [
        (f"rfc9110-{n}", Passage(text, doc_id="rfc9110.txt", position=n), None, metadata)
        for n, (text, metadata) in enumerate(
            zip(texts, [{"start_index": s} for s in starts], strict=True)
        )
    ]
    index = LinkIndex()
    index_documents(index, items)
    assert index.documents().document("rfc9110.txt").name == "RFC 9110: HTTP Semantics"
    without_offsets = LinkIndex()
    index_documents(without_offsets, [(i, p, g, {}) for i, p, g, _ in items])
    assert without_offsets.documents().document("rfc9110.txt").name == "RFC 9110"


def test_a_heading_a_later_chunk_starts_is_read_as_it_was() -> None:
    text = "---\nlanguage: en\ntags:\n- sentence-similarity\n---\n\n\n# all-MiniLM-L6-v2\nA model."
    cut = text.index("# all")
    items = [
        (
            f"card-{n}",
            Passage(part.strip(), doc_id="README.md", position=n),
            None,
            {"start_index": s},
        )
        for n, (part, s) in enumerate([(text[:cut], 0), (text[cut:], cut)])
    ]
    index = LinkIndex()
    index_documents(index, items)
    assert index.documents().document("README.md").name == "all-MiniLM-L6-v2"


def test_each_chunk_gets_the_name_of_its_titled_document_from_the_opening_in_the_call() -> None:
    rfc = [Passage(text, doc_id="rfc9110.txt", position=n) for n, text in enumerate(RFC_PARTS)]
    memo = [Passage(text, doc_id="memo", position=n) for n, text in enumerate(MEMO)]
    later = [Passage("The window closes in May.", doc_id="notes.md", position=3)]
    metadatas: list[dict] = [{"source": "rfc9110.txt"}] * 2 + [{}] * 3
    metadatas[1] = {"source": "rfc9110.txt", "cage_document": "Kept as written"}
    fields = document_name_fields(rfc + memo + later, metadatas)
    named = [{**m, **f} for m, f in zip(metadatas, fields)]
    assert [m.get("cage_document") for m in named] == [
        "RFC 9110: HTTP Semantics",  # the record's name: its title, with its identifier
        "Kept as written",  # a name the metadata gives stays
        None,  # a memo whose opening writes no title: its file names it
        None,
        None,  # no opening of notes.md in the call
    ]
    assert metadatas[0] == {"source": "rfc9110.txt"}  # the inputs are not modified


def test_an_untitled_generic_file_gets_the_name_its_folder_gives() -> None:
    readme = [
        Passage(text, doc_id="packages/tmux/README", position=n)
        for n, text in enumerate(["Welcome to tmux!", "tmux depends on libevent."])
    ]
    notes = [Passage("No title here.", doc_id="notes/README", position=0)]  # a generic folder
    metadatas: list[dict] = [{}] * 3
    fields = document_name_fields(readme + notes, metadatas)
    assert [f.get("cage_document") for f in fields] == ["tmux README", "tmux README", None]
