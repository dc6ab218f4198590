"""Routing: which documents a question names, and the question less the words naming them."""

from __future__ import annotations

import pytest

from cage_core.expansion.document_names import MemoryDocumentNames
from cage_core.expansion.documents import (
    DocumentRecord,
    LinkIndexFormatError,
    document_record,
    document_words,
    meaningful_file_stem,
)
from cage_core.expansion.question_text import written_names
from cage_core.expansion.routing import RoutingSettings, route_question

OPENINGS = {
    "birch": "MARKETING AFFILIATE AGREEMENT Between: Birch First Global Investments Inc. "
    "And Mount Knowledge Holdings Inc. Dated: May 8, 2014",
    "convergtv": "CONTENT DISTRIBUTION AND LICENSE AGREEMENT between ConvergTV, Inc. and "
    "Fulucai Productions Ltd.",
    "acme": "SUPPLY AGREEMENT between Acme Widgets Corp. and Globex Industrial Ltd.",
    "initech": "LICENSE AGREEMENT between Initech Software LLC and Umbrella Health Inc.",
    "hooli": "SERVICES AGREEMENT between Hooli Cloud Inc. and Pied Piper Compression Inc.",
}


def contracts() -> MemoryDocumentNames:
    return MemoryDocumentNames(
        document_record(doc_id, opening=text) for doc_id, text in OPENINGS.items()
    )


LOW = RoutingSettings(min_score=3.0)


def test_a_question_naming_a_contract_routes_to_it_and_loses_the_naming_words() -> None:
    route = route_question(
        "Consider the Marketing Affiliate Agreement between Birch First Global Investments "
        "Inc. and Mount Knowledge Holdings Inc.; is consent required to assign it?",
        contracts(),
        LOW,
    )
    assert route.doc_ids == ("birch",)
    assert route.documents[0].naming_words == (
        "marketing", "affiliate", "birch", "first", "global", "investments",
        "mount", "knowledge", "holdings",
    )  # fmt: skip
    assert route.question == (
        "Consider the Agreement between Inc. and Inc.; is consent required to assign it?"
    )


def test_the_name_anywhere_in_the_sentence_routes_alike() -> None:
    route = route_question(
        "Is consent required to assign the agreement Fulucai Productions signed with ConvergTV?",
        contracts(),
        LOW,
    )
    assert route.doc_ids == ("convergtv",)
    assert route.question == "Is consent required to assign the agreement signed with?"


def test_a_question_naming_no_document_is_not_routed() -> None:
    route = route_question("Is consent required to assign this agreement?", contracts(), LOW)
    assert not route
    assert route.question == "Is consent required to assign this agreement?"


def test_a_name_several_documents_share_does_not_route() -> None:
    names = MemoryDocumentNames(
        [
            document_record("a", opening="Orbital Dynamics annual report 2019"),
            document_record("b", opening="Orbital Dynamics annual report 2020"),
            *(document_record(k, opening=v) for k, v in OPENINGS.items()),
        ]
    )
    assert not route_question("What did Orbital Dynamics report?", names, LOW)


def test_two_documents_named_together_are_both_routed() -> None:
    route = route_question(
        "Compare the terms of Hooli Cloud with Pied Piper and Initech Software "
        "with Umbrella Health",
        contracts(),
        RoutingSettings(min_score=3.0, max_documents=2),
    )
    assert set(route.doc_ids) == {"hooli", "initech"}


def test_words_over_the_naming_share_stay_in_the_question() -> None:
    route = route_question(
        "Consider the License Agreement between Initech Software and Umbrella Health; "
        "what is the license term?",
        contracts(),
        LOW,
    )
    assert route.doc_ids == ("initech",)
    assert "license" in route.question.lower()


def test_a_naming_word_the_question_also_writes_in_lower_case_stays_there() -> None:
    names = MemoryDocumentNames(
        [
            document_record(
                "hosting",
                opening="LICENSE AND HOSTING AGREEMENT between Transaction Applications Group, "
                "Inc. and Lender Processing Services, Inc.",
            ),
            *(document_record(k, opening=OPENINGS[k]) for k in ("acme", "hooli")),
        ]
    )
    route = route_question(
        "Consider the License and Hosting Agreement between Transaction Applications Group, "
        "Inc. and Lender Processing Services, Inc.; does the contract contain a license granted "
        "by one party?",
        names,
        LOW,
    )
    assert route.doc_ids == ("hosting",)
    assert "license" in route.documents[0].naming_words
    assert route.question == (
        "Consider the and Agreement between, Inc. and Services, Inc.; does the contract contain "
        "a license granted by one party?"
    )


def test_a_question_writes_names_as_runs_of_words_written_as_names() -> None:
    assert written_names(
        "Consider the Agreement between Birch First Global Investments Inc. and Mount "
        "Knowledge Holdings; does Pied-Piper's AT&T deal hold?"
    ) == [
        ("agreement",),
        ("birch", "first", "global", "investments", "inc"),
        ("mount", "knowledge", "holdings"),
        ("pied", "piper"),
        ("at",),
    ]  # "Consider" opens the sentence; "'s" ends a name; "T" is under MIN_WORD_CHARS


def test_a_name_with_a_word_no_document_holds_names_none_of_them() -> None:
    # "Acme Orbital Widgets Corp" is no contract here, though "Acme Widgets Corp" names one
    outside = "When did Acme Orbital Widgets Corp appoint its chief executive?"
    inside = "When did Acme Widgets Corp appoint its chief executive?"
    assert not route_question(outside, contracts(), LOW)
    assert route_question(inside, contracts(), LOW).doc_ids == ("acme",)


def test_a_document_name_prefers_title_then_file_name_then_first_line() -> None:
    assert document_record("d", opening="Body", title="Annual Report").name == "Annual Report"
    assert document_record("docs/Birch_MA.txt", opening="Body text").name == "Birch MA"
    assert document_record("docs/README.md", opening="\n# Quick start\nBody").name == "Quick start"


def test_a_file_named_by_its_identifier_prefixes_the_title_and_a_numbered_one_does_not() -> None:
    """ "rfc-9110.txt" is the identifier; "ch04-01-what-is-ownership.html" only numbers its
    chapter ("CH 4-01", a part of its file name), so its title alone names it."""
    rfc = document_record("rfc-9110.txt", opening="# HTTP Semantics\n\nBody")
    assert rfc.name == "RFC 9110: HTTP Semantics"
    chapter = document_record("ch04-01-what-is-ownership.html", opening="# What is Ownership?\n")
    assert chapter.name == "What is Ownership?"
    assert "ch 4-01" in chapter.words  # still its own identifier where it is one document's


def test_an_identifier_of_two_numbers_is_one_documents() -> None:
    """Advisories named by their CVE: "CVE-2024-3094" is one file's, not "CVE 2024" of every
    advisory of that year."""
    names = MemoryDocumentNames(
        document_record(f"advisories/{cve}.md", opening=f"# {title}\n\nAffected versions.")
        for cve, title in [
            ("CVE-2024-3094", "Backdoor in xz release tarballs"),
            ("CVE-2024-6387", "Race condition in the OpenSSH server"),
            ("CVE-2023-38545", "SOCKS5 heap buffer overflow"),
        ]
    )
    route = route_question("Which versions does CVE-2024-3094 affect?", names)
    assert route.doc_ids == ("advisories/CVE-2024-3094.md",)
    assert route.question == "Which versions does affect?"


def test_an_untitled_file_is_named_by_its_file_name_a_version_kept_whole() -> None:
    assert document_record("CC0-1.0", opening="Creative Commons Legal Code").name == "CC0 1.0"
    assert meaningful_file_stem("licences/LGPL-2.1") == "LGPL 2.1"


def test_generic_and_numeric_file_names_name_nothing() -> None:
    assert meaningful_file_stem("pkg/CHANGELOG.rst") == ""
    assert meaningful_file_stem("12") == ""
    assert meaningful_file_stem("reports/acme_2019.pdf") == "acme 2019"


@pytest.mark.parametrize(
    ("path", "opening", "name"),
    [
        (
            "packages/tmux/README",
            "Welcome to tmux!\n\ntmux is a terminal multiplexer.",
            "tmux README",
        ),
        (
            "packages/tmux/README",
            "Welcome to tmux\n===============\n",
            "tmux README: Welcome to tmux",
        ),
        ("packages/jq/README.md", "# jq\n\njq is a JSON processor.", "jq"),
        ("indices/keyword_table/README.md", "# Keyword Table\n", "Keyword Table"),
        ("indices/tree/README.md", "# Tree Index\n", "tree README: Tree Index"),
        ("docs/index.md", "# Home\n", "Home"),
        ("notes/2024/README.md", "# Notes\n", "Notes"),
        ("README.md", "# Home\n", "Home"),
    ],
)
def test_a_generic_file_is_named_by_its_folder(path: str, opening: str, name: str) -> None:
    assert document_record(path, opening=opening).name == name


def test_the_readme_of_a_folder_is_named_after_the() -> None:
    readmes = {
        f"packages/{tool}/README": f"{line}\n\nBuild with ./configure && make."
        for tool, line in {
            "tmux": "Welcome to tmux!",
            "wget": "GNU Wget",
            "zstd": "Zstandard is a fast compression algorithm",
            "sed": "This is the GNU implementation of sed",
        }.items()
    }
    names = MemoryDocumentNames(document_record(p, opening=t) for p, t in readmes.items())
    route = route_question("According to the tmux README, which libraries are needed?", names)
    assert route.doc_ids == ("packages/tmux/README",)
    assert not route_question("How do I build it with make?", names)


def test_a_generic_file_owns_the_identifier_its_folder_writes() -> None:
    """ "sqlite3" is read as an identifier ("SQLITE 3") and left out of the name's words; the
    changelog its folder names owns it, as a file owns the identifier of its file name."""
    logs = {
        f"{package}/changelog.Debian": f"{package} (1.0-1) bookworm; urgency=medium\n\n  * Fix."
        for package in ("sqlite3", "libxml2", "curl", "gzip")
    }
    names = MemoryDocumentNames(document_record(p, opening=t) for p, t in logs.items())
    assert names.document("sqlite3/changelog.Debian").name == "sqlite3 changelog"
    route = route_question("Which sqlite3 upload fixed CVE-2022-46908?", names)
    assert route.doc_ids == ("sqlite3/changelog.Debian",)
    assert route.question == "Which upload fixed CVE-2022-46908?"


def test_document_words_are_distinct_sorted_and_bounded() -> None:
    assert document_words("Beta alpha, beta. A x1") == ("alpha", "beta", "x1")
    assert len(document_words(" ".join(f"w{i}" for i in range(1000)))) == 256


def test_a_stored_record_is_validated() -> None:
    record = document_record("d", opening="Acme Widgets")
    assert DocumentRecord.from_stored(record.to_stored()) == record
    for bad in (
        {"doc_id": "d", "name": "n", "words": ["b", "a"]},
        {"doc_id": "d", "name": "n", "words": ["Upper"]},
        {"doc_id": "", "name": "n", "words": []},
        {"doc_id": "d", "name": 3, "words": []},
        {"doc_id": "d", "name": "n"},
    ):
        with pytest.raises(LinkIndexFormatError):
            DocumentRecord.from_stored(bad)


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError):
        RoutingSettings(min_gap=0.5)
    with pytest.raises(ValueError):
        RoutingSettings(chunks=0)
    with pytest.raises(TypeError):
        RoutingSettings(min_score="8")  # type: ignore[arg-type]
