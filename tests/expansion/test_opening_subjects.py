"""Every chunk of a document is indexed under the title its document's opening writes, not its
file name (issue 45): through index_documents and cage enrich's link_chunks."""

from __future__ import annotations

import numpy as np

from cage_core import Passage
from cage_core.expansion.index import LinkIndex
from cage_core.expansion.ingest import index_documents, link_chunks
from cage_core.expansion.openings import titled_metadata
from cage_core.expansion.routing import route_question
from cage_core.graphs.passage_graph import PassageGraph, content_hash

OPENING = "PEP: 634\nTitle: Structural Pattern Matching: Specification\n\nAbstract\n========"
LATER = "The match statement compares a subject value against case patterns."
SOURCE = {"source": "peps/pep-0634.txt"}


def chunks(positions=(0, 1)) -> list[tuple[str, Passage, None, dict]]:
    texts = {0: OPENING, 1: LATER}
    return [
        (f"c{n}", Passage(texts[n], doc_id="pep-0634", position=n), None, dict(SOURCE))
        for n in positions
    ]


def subjects(index: LinkIndex) -> dict[str, str]:
    return {entry.id: entry.subject for entry in index.entries()}


def test_every_chunk_of_a_document_gets_the_title_its_opening_writes() -> None:
    index = LinkIndex()
    index_documents(index, chunks())
    title = "Structural Pattern Matching: Specification"
    assert subjects(index) == {"c0": title, "c1": title}


def test_a_call_without_the_opening_keeps_the_file_name() -> None:
    index = LinkIndex()
    index_documents(index, chunks(positions=(1,)))
    assert subjects(index) == {"c1": "pep 0634"}


def test_a_title_of_the_chunk_or_its_metadata_wins() -> None:
    passages = [Passage(OPENING, doc_id="d", position=0), Passage(LATER, doc_id="d", position=1)]
    given = [{"title": "My own title"}, {}]
    out = titled_metadata(passages, given)
    assert out[0] is given[0]
    assert out[1] == {"document_title": "Structural Pattern Matching: Specification"}
    assert given == [{"title": "My own title"}, {}]  # the caller's metadata is not modified


def stored_graph(text: str) -> str:
    """The stored light graph of an untitled passage that names nothing."""
    empty = np.zeros(0, np.int64)
    return PassageGraph(
        (), (), (), empty, empty, empty, (), level="light", content_sha=content_hash(f"\n\n{text}")
    ).to_text()


def test_enriched_rows_get_their_documents_title() -> None:
    rows = [
        {"text": text, "cage_graph": stored_graph(text), "doc_id": "d", "position": n, **SOURCE}
        for n, text in enumerate((OPENING, LATER))
    ]
    assert [c.entry.subject for c in link_chunks(rows)] == [
        "Structural Pattern Matching: Specification"
    ] * 2


def test_a_title_past_a_short_first_chunk_is_read_from_the_next_ones() -> None:
    head = "---\neip: 1559\nauthor: Vitalik Buterin, Eric Conner, Rick Dudley, Matthew Slipper\n"
    rest = "title: Fee market change for ETH 1.0 chain\nstatus: Final\n---\n\n## Abstract"
    items = [
        (f"e{n}", Passage(text, doc_id="eip-1559", position=n), None, {"source": "eip-1559.md"})
        for n, text in enumerate((head, rest))
    ]
    index = LinkIndex()
    index_documents(index, items)
    assert set(subjects(index).values()) == {"Fee market change for ETH 1.0 chain"}
    assert index.documents().document("eip-1559").name == (
        "EIP 1559: Fee market change for ETH 1.0 chain"
    )


def test_an_html_sample_in_a_markdown_page_is_not_its_title() -> None:
    page = "# QuickStart\n\n```html\n<html><head><title>Example Domain</title></head>\n```"
    passages = [Passage(page, doc_id="quickstart", position=0)]
    assert titled_metadata(passages, [{}]) == [{"document_title": "QuickStart"}]
    html = "<!DOCTYPE html>\n<html><head><title>Thread Safety</title></head>"
    passages = [Passage(html, doc_id="thread", position=0)]
    assert titled_metadata(passages, [{}]) == [{"document_title": "Thread Safety"}]


def test_an_rfcs_chunks_carry_the_centered_title_under_its_header_and_it_routes() -> None:
    head = (
        "Internet Engineering Task Force (IETF)                  R. Fielding, Ed.\n"
        "Request for Comments: 9110                                         Adobe\n"
        "Category: Standards Track                                      June 2022\n"
    )
    rest = "\n\n                             HTTP Semantics\n\nAbstract\n\n   HTTP is stateless."
    items = [
        (f"r{n}", Passage(text, doc_id="rfc9110", position=n), None, {"source": "rfc9110.txt"})
        for n, text in enumerate((head, rest))
    ]
    other = [
        (f"o{n}", Passage(t, doc_id="rfc6265", position=n), None, {"source": "rfc6265.txt"})
        for n, t in enumerate(("Request for Comments: 6265\n\n   HTTP cookies.",))
    ]
    index = LinkIndex()
    index_documents(index, items + other)
    assert set(subjects(index)[f"r{n}"] for n in (0, 1)) == {"HTTP Semantics"}
    assert index.documents().document("rfc9110").name == "RFC 9110: HTTP Semantics"
    route = route_question(
        "Which methods does the http semantics define as safe?", index.documents()
    )
    assert route.doc_ids == ("rfc9110",)
