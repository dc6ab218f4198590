"""The titles a passage cites (:func:`~cage_core.expansion.title_parts.titles_cited`): a
passage that writes another document's title, in any case, cites that document; a title of
one word, a title every document's name shares, or one two documents share, cites none."""

from __future__ import annotations

from cage_core.expansion.document_names import MemoryDocumentNames
from cage_core.expansion.documents import document_record
from cage_core.expansion.title_parts import MAX_CITED_WORDS, titles_cited

MINUTES = "# Council meeting {date}\n\nAttendees: Carl, Dora\n"
PAGES = {
    "advanced/proxies.md": "# HTTP Proxies\n\nHTTPX supports setting up HTTP proxies.",
    "advanced/ssl.md": "# SSL Certificates\n\nWhen making a request over HTTPS, HTTPX verifies.",
    "quickstart.md": "# QuickStart\n\nFirst, start by importing HTTPX.",
    "backends/rest.md": "# REST Backend\n\nThe REST backend speaks HTTP.",
    "backends/rest-server.md": "# REST Server\n\nA server for the REST backend.",
    "old/ssl.md": "# SSL Certificates\n\nThe page before the move.",
}


def folder(pages: dict[str, str] = PAGES) -> MemoryDocumentNames:
    minutes = {
        f"minutes/2025-0{m}-01.md": MINUTES.format(date=f"2025-0{m}-01") for m in range(1, 8)
    }
    return MemoryDocumentNames(
        document_record(path, opening=text) for path, text in {**minutes, **pages}.items()
    )


def test_a_passage_writing_a_title_in_lower_case_cites_its_document() -> None:
    text = "If you are behind a firewall, see the http proxies page for the settings."
    assert titles_cited(text, folder()) == [("advanced/proxies.md", "http proxies")]


def test_titles_are_cited_in_the_order_the_passage_writes_them() -> None:
    text = "The REST Server stores what the REST Backend sends; see also HTTP Proxies."
    assert titles_cited(text, folder()) == [
        ("backends/rest-server.md", "rest server"),
        ("backends/rest.md", "rest backend"),
        ("advanced/proxies.md", "http proxies"),
    ]


def test_a_one_word_title_is_not_cited() -> None:
    assert titles_cited("Read the quickstart first.", folder()) == []


def test_a_title_every_document_of_a_series_shares_is_not_cited() -> None:
    assert titles_cited("As the council meeting agreed, the vote stands.", folder()) == []


def test_a_title_two_documents_share_cites_neither() -> None:
    assert titles_cited("Pin the SSL certificates of the server.", folder()) == []


def test_a_title_one_document_alone_holds_is_cited() -> None:
    pages = {k: v for k, v in PAGES.items() if k != "old/ssl.md"}
    text = "Pin the SSL certificates of the server."
    assert titles_cited(text, folder(pages)) == [("advanced/ssl.md", "ssl certificates")]


def test_a_passage_writing_no_title_cites_nothing() -> None:
    assert titles_cited("Nothing here names a page of the folder.", folder()) == []


def test_a_run_of_a_longer_title_is_not_a_citation() -> None:
    pages = {**PAGES, "limits.md": "# Contract code size limit\n\nThe limit is 24576 bytes."}
    assert titles_cited("The code size of a contract is its length.", folder(pages)) == []
    assert titles_cited("See the contract code size limit.", folder(pages)) == [
        ("limits.md", "contract code size limit")
    ]


def test_excluded_documents_are_not_cited() -> None:
    text = "See HTTP Proxies and the REST Backend."
    assert titles_cited(text, folder(), excluded={"advanced/proxies.md"}) == [
        ("backends/rest.md", "rest backend")
    ]


def test_a_title_written_after_the_words_read_is_not_cited() -> None:
    letters = "abcdefghijklmnopqrstuvwxyz"
    filler = " ".join(f"fill{a}{b}" for a in letters for b in letters)  # 676 distinct words
    assert len(set(filler.split())) > MAX_CITED_WORDS
    assert titles_cited(f"See HTTP Proxies. {filler}", folder()) == [
        ("advanced/proxies.md", "http proxies")
    ]
    assert titles_cited(f"{filler} See HTTP Proxies.", folder()) == []


def test_a_title_three_documents_share_cites_none_of_them() -> None:
    pages = {**PAGES, "older/ssl.md": "# SSL Certificates\n\nThe first page of all."}
    assert titles_cited("Pin the SSL certificates of the server.", folder(pages)) == []
