"""Of documents that share a title, the question names the one whose version it writes
(:mod:`cage_core.expansion.versions`, routing's step 1c)."""

from __future__ import annotations

import pytest

from cage_core.expansion.document_names import MemoryDocumentNames
from cage_core.expansion.documents import TITLE_CHARS, document_record
from cage_core.expansion.routing import route_question
from cage_core.expansion.versions import version_numbers

FAMILY = (
    "                GNU Free Documentation License\n"
    "                 Version {version}, {date}\n\n"
    " Copyright (C) 2008 Free Software Foundation, Inc.\n"
    " Everyone is permitted to copy and distribute verbatim copies of this license document.\n"
)
TEXTS = {
    "GFDL-1.2": FAMILY.format(version="1.2", date="November 2002"),
    "GFDL-1.3": FAMILY.format(version="1.3", date="3 November 2008"),
    "MIT": "MIT License\n\nPermission is hereby granted, free of charge, to any person.\n",
    "BSD": "BSD Zero Clause License\n\nPermission to use, copy, modify and distribute.\n",
    "Zlib": "zlib License\n\nThis software is provided 'as-is', without any warranty.\n",
    "Unlicense": "The Unlicense\n\nThis is free and unencumbered software.\n",
}


def licences() -> MemoryDocumentNames:
    """The records as ingest writes them from each file's opening, stripped as a splitter
    strips a chunk."""
    return MemoryDocumentNames(
        document_record(name, opening=text.lstrip(), source=name, head=text.lstrip()[:TITLE_CHARS])
        for name, text in TEXTS.items()
    )


def test_the_two_versions_share_their_title_and_differ_by_the_number_in_their_names() -> None:
    names = licences()
    assert names.document("GFDL-1.3").name == (
        "GNU Free Documentation License Version 1.3, 3 November 2008"
    )
    assert version_numbers(names.document("GFDL-1.3").name) == {"1.3"}  # the date is no version
    assert version_numbers(names.document("GFDL-1.2").name) == {"1.2"}


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("In version 1.3 of the GNU Free Documentation License, what is a Massive Site?", "1.3"),
        ("What does version 1.2 of the GNU Free Documentation License call a Section?", "1.2"),
        ("What does the gnu free documentation license 1.3 say about relicensing?", "1.3"),
    ],
)
def test_a_question_that_writes_the_title_and_a_version_names_that_version(
    question: str, named: str
) -> None:
    route = route_question(question, licences())
    assert route.doc_ids == (f"GFDL-{named}",)
    assert route.documents[0].naming_words == ("gnu", "free", "documentation", "license")


@pytest.mark.parametrize(
    "question",
    [
        "What does the GNU Free Documentation License call a Secondary Section?",
        "What does version 2.5 of the GNU Free Documentation License call a Section?",
        "Within 3 days, what does the GNU Free Documentation License require?",
    ],
)
def test_a_title_two_documents_share_names_neither_without_a_version_one_of_them_holds(
    question: str,
) -> None:
    assert not route_question(question, licences())


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("Version 1.3, 3 November 2008", {"1.3"}),
        ("HTTP/2", {"2"}),
        ("the v2 API", {"2"}),
        ("RFC 9113: HTTP/2", {"2"}),
        ("x86-64 builds, section 4.2.1.", {"4.2.1"}),
        ("no number at all", set()),
    ],
)
def test_version_numbers_are_numbers_outside_identifiers_and_dates(
    text: str, numbers: set[str]
) -> None:
    assert version_numbers(text) == numbers


HEADER = (
    "Internet Engineering Task Force (IETF)                      E. Rescorla\n"
    "Request for Comments: {number}                                      Mozilla\n"
    "Category: Standards Track                                    August 2018\n\n\n"
    "{title}\n\nAbstract\n\n   This document specifies {what}.\n"
)
SPECIFICATIONS = {
    "rfc5246.txt": (5246, "The Transport Layer Security (TLS) Protocol Version 1.2", "TLS 1.2"),
    "rfc8446.txt": (8446, "The Transport Layer Security (TLS) Protocol Version 1.3", "TLS 1.3"),
    "rfc9112.txt": (9112, "HTTP/1.1", "the HTTP/1.1 message syntax"),
    "rfc9113.txt": (9113, "HTTP/2", "an optimized expression of HTTP semantics"),
    "rfc9114.txt": (9114, "HTTP/3", "a mapping of HTTP semantics over QUIC"),
}


def specifications() -> MemoryDocumentNames:
    """RFC-like openings: a header set in columns, then the title centred under it."""
    texts = {
        name: HEADER.format(number=number, title=title.center(72).rstrip(), what=what)
        for name, (number, title, what) in SPECIFICATIONS.items()
    }
    return MemoryDocumentNames(
        document_record(name, opening=text, source=name, head=text[:TITLE_CHARS])
        for name, text in texts.items()
    )


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("In TLS 1.3, how many round trips does a full handshake take?", ("rfc8446.txt",)),
        ("What does the TLS 1.2 specification say about renegotiation?", ("rfc5246.txt",)),
        ("How does the HTTP/2 specification define a stream?", ("rfc9113.txt",)),
        ("In HTTP/3, which transport carries the frames?", ("rfc9114.txt",)),
        ("How did TLS 1.3 change the handshake of TLS 1.2?", ("rfc8446.txt", "rfc5246.txt")),
    ],
)
def test_a_name_written_with_its_version_names_that_version(
    question: str, named: tuple[str, ...]
) -> None:
    names = specifications()
    assert names.document("rfc8446.txt").name == (
        "RFC 8446: The Transport Layer Security (TLS) Protocol Version 1.3"
    )
    assert route_question(question, names).doc_ids == named


@pytest.mark.parametrize(
    "question",
    [
        "In TLS 1.4, how many round trips does a full handshake take?",  # no such version
        "In tls 1.3, how many round trips does a full handshake take?",  # not written as a name
        "What are the 3 steps of a handshake in TLS?",  # a number, not TLS's version
    ],
)
def test_a_version_no_document_of_the_name_holds_names_none(question: str) -> None:
    assert not route_question(question, specifications())


NOTES = "CMake {v} Release Notes\n{rule}\n\nChanges since CMake {p}.\n"
SERIES = {  # release notes: one name but for the version, every page's name holds "CMake"
    f"{v}.rst": NOTES.format(v=v, rule="*" * len(f"CMake {v} Release Notes"), p=p)
    for v, p in [("3.0", "2.8"), ("3.2", "3.1"), ("3.7", "3.6"), ("3.20", "3.19"), ("3.25", "3.24")]
}


def release_notes() -> MemoryDocumentNames:
    names = MemoryDocumentNames(
        document_record(name, opening=text, source=name) for name, text in SERIES.items()
    )
    assert names.document("3.25.rst").name == "CMake 3.25 Release Notes"
    return names


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("What did CMake 3.0 change about the documentation?", ("3.0.rst",)),
        ("Which loop command do the 3.2 release notes announce?", ("3.2.rst",)),
        ("What do the CMake 3.7 Release Notes say about Android?", ("3.7.rst",)),
        ("In the release notes for 3.25, which preset schema is new?", ("3.25.rst",)),
        ("What changed between CMake 3.2 and CMake 3.20?", ("3.2.rst", "3.20.rst")),
        ("Compare the 3.2 and 3.7 release notes on loops.", ("3.2.rst", "3.7.rst")),
    ],
)
def test_a_number_beside_a_series_name_names_the_one_document_of_the_series_holding_it(
    question: str, named: tuple[str, ...]
) -> None:
    """The five documents share their name less its number; a number written next to a word
    of that name names the one holding it, "3.2" not "3.20"."""
    assert route_question(question, release_notes()).doc_ids == named


@pytest.mark.parametrize(
    "question",
    [
        "What did CMake 3.9 change about the documentation?",  # no document holds 3.9
        "Which 3 generators did CMake gain?",  # "3" is no version in a name
        "Name 3 things added since the first release.",  # no word of the series' name near 3
    ],
)
def test_a_number_no_document_of_the_series_holds_names_none(question: str) -> None:
    assert not route_question(question, release_notes())


def test_a_number_one_document_holds_outside_a_series_names_none() -> None:
    """A number only one name holds, in a name no other name is the same as less its numbers
    ("Porting to Python 3" beside "Python Setup"), is no series' member: unrouted."""
    names = MemoryDocumentNames(
        document_record(f"{n}.md", opening=f"# {t}\n\nText.", source=f"{n}.md")
        for n, t in [("porting", "Porting to Python 3"), ("setup", "Python Setup and Usage")]
    )
    assert not route_question("How do I install packages in Python 3?", names)


def test_a_number_names_a_member_of_a_series_too_large_to_read_whole() -> None:
    """Git's release notes, one a release: more documents than ``MAX_SERIES_DOCUMENTS`` hold
    "release" and "notes"; those whose names hold "39" are read, and "2.39" names one of them."""
    notes = {
        f"{v}.txt": f"Git v{v} Release Notes\n{'=' * (22 + len(v))}\n\nFixes since v{v}.\n"
        for v in [f"2.{minor}.{patch}" for minor in range(30, 50) for patch in range(1, 6)]
        + [f"2.{minor}" for minor in range(30, 50)]  # six names hold "39": no title names one
    }
    names = MemoryDocumentNames(
        document_record(name, opening=text, source=name) for name, text in notes.items()
    )
    route = route_question("What did the Git 2.39 release notes say about grep?", names)
    assert route.doc_ids == ("2.39.txt",)
    assert route_question("Which fixes are in Git v2.38.1?", names).doc_ids == ("2.38.1.txt",)


def test_a_number_no_part_of_which_is_a_word_names_a_member_of_a_large_series() -> None:
    """Of Git's 1.x and 2.x release notes, "1.7.0" and "2.0" hold no part that is a word
    ("7", "0"): each name's numbers are held among its words ("title:v1_7_0"), so the
    number itself is looked up, and "Git 2.0" names "Git v2.0", not "Git v2.0.1"."""
    releases = [(a, b, c) for a in (1, 2) for b in range(9) for c in range(5)]  # 90 notes
    titles = {
        f"{a}.{b}.{c}.txt": f"Git v{a}.{b}" + ("" if (a, b, c) == (2, 0, 0) else f".{c}")
        for a, b, c in releases  # as git titles 2.0.0: "Git v2.0"
    }
    notes = {f: f"{t} Release Notes\n{'=' * (len(t) + 14)}\n\nFixes.\n" for f, t in titles.items()}
    names = MemoryDocumentNames(
        document_record(name, opening=text, source=name) for name, text in notes.items()
    )
    assert "title:v1_7_0" in names.document("1.7.0.txt").words
    for question, named in [
        ("According to the 1.7.0 release notes, what changed about git push?", "1.7.0.txt"),
        ("What does the Git 2.0 release notes say about push.default?", "2.0.0.txt"),
        ("What do the release notes for Git 1.8.0 list as compatibility notes?", "1.8.0.txt"),
    ]:
        assert route_question(question, names).doc_ids == (named,)


CHANGELOGS = {  # a product whose name is written like a file name, "Node.js"
    f"CHANGELOG_V{v}.md": f"# Node.js {v} ChangeLog\n\nReleases of the {v}.x line.\n"
    for v in (4, 6, 12, 18, 20)
} | {"CHANGELOG_IOJS.md": "# io.js ChangeLog\n\nReleases of io.js.\n"}


def test_a_name_written_as_a_file_name_no_document_holds_is_read_as_its_words() -> None:
    """No document is a file "node.js" or "io.js": the question's "Node.js 12" and "io.js
    changelog" are words of the titles, as those titles' own words are."""
    names = MemoryDocumentNames(
        document_record(name, opening=text, source=name) for name, text in CHANGELOGS.items()
    )
    question = "What changed in Node.js 12 according to its changelog?"
    assert route_question(question, names).doc_ids == ("CHANGELOG_V12.md",)
    question = "What does the io.js changelog say about the 3.0.0 release?"
    assert route_question(question, names).doc_ids == ("CHANGELOG_IOJS.md",)


def test_an_identifier_no_document_holds_is_a_series_name_and_its_number() -> None:
    """ "Node 4" has an identifier's form, but no document gives itself "node 4": beside the
    series' words it is "Node" and the number 4, as "Node.js 4" is."""
    names = MemoryDocumentNames(
        document_record(name, opening=text, source=name) for name, text in CHANGELOGS.items()
    )
    route = route_question("Compare the Node 4 and Node 6 changelogs on npm.", names)
    assert route.doc_ids == ("CHANGELOG_V4.md", "CHANGELOG_V6.md")
