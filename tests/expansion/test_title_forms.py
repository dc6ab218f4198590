"""A question names a document by a form of its title: the acronym for the words it spells
out, those words alone, its main title (:mod:`cage_core.expansion.title_forms`)."""

from __future__ import annotations

import pytest

from cage_core.expansion.document_names import MemoryDocumentNames
from cage_core.expansion.documents import TITLE_CHARS, document_record
from cage_core.expansion.routing import route_question
from cage_core.expansion.title_forms import abbreviated, acronyms, written_acronyms


@pytest.mark.parametrize(
    ("name", "forms"),
    [
        (
            "Uniform Resource Identifier (URI): Generic Syntax",
            ["URI: Generic Syntax", "Uniform Resource Identifier: Generic Syntax"],
        ),
        (
            "The JavaScript Object Notation (JSON) Data Interchange Format",
            [
                "The JSON Data Interchange Format",
                "The JavaScript Object Notation Data Interchange Format",
            ],
        ),
        ("JSON Web Token (JWT)", ["JWT", "JSON Web Token"]),
        (
            "Internationalized Resource Identifiers (IRIs)",
            ["IRIs", "Internationalized Resource Identifiers"],
        ),
        ("Hypertext Transfer Protocol (HTTP/1.1): Caching", []),  # "htp" spells no "HTTP"
        ("Thread Safety (libffi: the portable foreign function interface library)", []),
        ("Meeting observers", []),
    ],
)
def test_an_acronym_stands_for_the_words_whose_initials_it_spells(
    name: str, forms: list[str]
) -> None:
    assert list(abbreviated(name)) == forms


def test_the_acronyms_a_name_defines_are_read_folded() -> None:
    assert acronyms("RFC 3986: Uniform Resource Identifier (URI): Generic Syntax") == {"uri"}
    assert acronyms("JSON Web Token (JWT)") == {"jwt"}
    assert acronyms("Hypertext Transfer Protocol (HTTP/1.1): Caching") == set()


def test_the_words_a_question_writes_in_capitals_are_read_with_the_letters_they_spell() -> None:
    assert written_acronyms("Do the GPL and IRIs, or a Url, say so?") == {
        "gpl": "gpl",
        "iris": "iri",
    }


FIELDS = [
    ("Internet Engineering Task Force (IETF)", "T. Berners-Lee"),
    ("Request for Comments: NUMBER", "W3C/MIT"),
    ("Category: Standards Track", "January 2005"),
]
TITLES = {
    "rfc3986.txt": "Uniform Resource Identifier (URI): Generic Syntax",
    "rfc8259.txt": "The JavaScript Object Notation (JSON) Data Interchange Format",
    "rfc7519.txt": "JSON Web Token (JWT)",
    "rfc6265.txt": "HTTP State Management Mechanism",
    "rfc6454.txt": "The Web Origin Concept",
    "pep-0634.rst": "Structural Pattern Matching: Specification",
    "pep-0635.rst": "Structural Pattern Matching: Motivation and Rationale",
    "pep-0636.rst": "Structural Pattern Matching: Tutorial",
}


def opening(name: str, title: str) -> str:
    """An RFC-like opening: a header in 72 columns, the title centred under it."""
    number = "".join(filter(str.isdigit, name))
    header = "\n".join(
        left.replace("NUMBER", number).ljust(72 - len(right)) + right for left, right in FIELDS
    )
    return f"{header}\n\n\n{title.center(72).rstrip()}\n\nAbstract\n\n   This document.\n"


def folder() -> MemoryDocumentNames:
    return MemoryDocumentNames(
        document_record(name, opening=(text := opening(name, title)), head=text[:TITLE_CHARS])
        for name, title in TITLES.items()
    )


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("Which characters does the URI generic syntax reserve?", "rfc3986.txt"),
        ("In the uniform resource identifier spec, what is a relative reference?", "rfc3986.txt"),
        ("What does the JSON data interchange format say about duplicate names?", "rfc8259.txt"),
        ("Which claims does the json web token spec register?", "rfc7519.txt"),
        ("What does the structural pattern matching tutorial show first?", "pep-0636.rst"),
    ],
)
def test_a_question_names_a_document_by_a_form_of_its_title(question: str, named: str) -> None:
    assert route_question(question, folder()).doc_ids == (named,)


def test_a_main_title_a_series_shares_names_none_of_it() -> None:
    assert not route_question("In structural pattern matching, what is a capture?", folder())


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("What does the URI spec say about fragments?", ("rfc3986.txt",)),
        ("Which claims does the JWT specification register?", ("rfc7519.txt",)),
        ("How is a URI resolved against a base?", ()),  # no "the": a word, not a name
        ("What does the JSON spec say about numbers?", ()),  # two titles hold "JSON"
    ],
)
def test_an_acronym_a_title_defines_names_its_document_after_the(
    question: str, named: tuple[str, ...]
) -> None:
    assert route_question(question, folder()).doc_ids == named


LICENCES = {
    "GPL-2": "GNU General Public License Version 2, June 1991",
    "GPL-3": "GNU General Public License Version 3, 29 June 2007",
    "LGPL-2": "GNU Library General Public License Version 2, June 1991",
    "LGPL-2.1": "GNU Lesser General Public License Version 2.1, February 1999",
    "LGPL-3": "GNU Lesser General Public License Version 3, 29 June 2007",
    "eip-5656.md": "MCOPY - Memory copying instruction",
    "eip-3855.md": "PUSH0 instruction",
}
BODY = "Before which date must each eligible copy be relicensed, and what may it link to?"


def licences() -> MemoryDocumentNames:
    return MemoryDocumentNames(
        document_record(name, opening=f"# {title}\n\n{BODY}\n", source=name)
        for name, title in LICENCES.items()
    )


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("What does the Lesser GPL 2.1 say about linking?", ("LGPL-2.1",)),
        ("Which rights does the library GPL grant?", ("LGPL-2",)),
        (
            "Why is the library GPL numbered 2, and what follows the Lesser GPL 2.1?",
            ("LGPL-2", "LGPL-2.1"),
        ),
        ("What does the GPL say about patents?", ()),  # every licence spells it out
        ("Before which date must an eligible MMC be relicensed?", ()),  # "mcopy memory copying"
    ],
)
def test_an_acronym_beside_a_title_word_reads_as_the_title_words_it_spells(
    question: str, named: tuple[str, ...]
) -> None:
    assert route_question(question, licences()).doc_ids == named


def test_a_site_title_after_a_bar_leaves_the_page_its_main_title() -> None:
    # HTML pages titled "<page> | <site>": the page's own name alone, after "the"
    site = "Node.js v20.20.2 Documentation"
    pages = {
        "domain.html": "Domain",
        "repl.html": "REPL",
        "cluster.html": "Cluster",
        "fs.html": "File system",
        "intl.html": "Internationalization support",
    }
    names = MemoryDocumentNames(
        document_record(f, opening=f"<html><head><title>{t} | {site}</title></head>")
        for f, t in pages.items()
    )
    assert route_question("What is the status of the domain module?", names).doc_ids == (
        "domain.html",
    )
    assert route_question("In the REPL docs, how long is the history?", names).doc_ids == (
        "repl.html",
    )
    assert not route_question("Which documentation covers the status?", names)
