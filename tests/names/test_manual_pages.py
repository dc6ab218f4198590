"""A rendered manual page names itself by the line under its first heading, and a question
names it by its page name, its file's name or that line
(:mod:`cage_core.names.manual_pages`, :func:`~cage_core.expansion.routing.route_question`)."""

from __future__ import annotations

import pytest

from cage_core.expansion.document_names import MemoryDocumentNames
from cage_core.expansion.documents import DocumentRecord, document_record
from cage_core.expansion.routing import route_question
from cage_core.names.documents import document_title, own_identifiers, references


def page(name: str, section: str, line: str, body: str = "") -> str:
    """A manual page as ``man`` renders it at 80 columns: running head, NAME, a description."""
    head = f"{name.upper()}({section})"
    paragraph = body or (
        f"{name} is one of the tools of the suite. It reads its configuration at start and\n"
        "       writes what it did to the terminal, one line for each thing it changed."
    )
    return (
        f"{head}{'APT'.center(80 - 2 * len(head))}{head}\n\nNAME\n       {name} - {line}\n\n"
        f"SYNOPSIS\n       {name} [options]\n\nDESCRIPTION\n       {paragraph}\n"
    )


PAGES = {
    "apt.conf.5.txt": page("apt.conf", "5", "Configuration file for APT"),
    "apt_preferences.5.txt": page("apt_preferences", "5", "Preference control file for APT"),
    "sources.list.5.txt": page("sources.list", "5", "List of configured APT data sources"),
    "apt-get.8.txt": page("apt-get", "8", "APT package handling utility"),
    "apt-cache.8.txt": page("apt-cache", "8", "query the APT cache"),
    "apt-cdrom.8.txt": page("apt-cdrom", "8", "APT CD-ROM management utility"),
    "apt-mark.8.txt": page("apt-mark", "8", "show, set and unset various settings"),
    "apt-key.8.txt": page("apt-key", "8", "Deprecated APT key management utility"),
    "apt-secure.8.txt": page("apt-secure", "8", "Archive authentication support for APT"),
    "apt.8.txt": page("apt", "8", "command-line interface"),
    "aptitude-page.txt": page("aptitude", "8", "high-level interface to the package manager"),
    "gitglossary.7.txt": page("gitglossary", "7", "A Git Glossary"),
}


def manual() -> MemoryDocumentNames:
    return MemoryDocumentNames(document_record(k, opening=v) for k, v in PAGES.items())


def test_a_manual_page_is_titled_by_the_line_under_its_first_heading() -> None:
    assert document_title(PAGES["apt.conf.5.txt"]) == "apt.conf - Configuration file for APT"
    assert document_title(PAGES["apt.conf.5.txt"].lstrip()) == document_title(
        PAGES["apt.conf.5.txt"]
    )


def test_the_heading_word_is_not_read_so_a_translated_page_is_read_alike() -> None:
    german = PAGES["apt-get.8.txt"].replace("NAME\n", "BEZEICHNUNG\n")
    assert document_title(german) == "apt-get - APT package handling utility"


def test_a_running_head_whose_columns_meet_or_whose_name_has_spaces_is_read() -> None:
    """``man`` sets a long name's head one space apart ("feature_test_macros(7)"); a command
    of several words is its page's name ("CREATE TABLE AS(7)"), which no word of it alone
    is: the page owns no "as(7)"."""
    narrow = (
        "feature_test_macros(7) Miscellaneous Information Manual feature_test_macros(7)\n\n"
        "NAME\n       feature_test_macros - feature test macros\n\nDESCRIPTION\n"
    )
    assert document_title(narrow) == "feature_test_macros - feature test macros"
    head = "CREATE TABLE AS(7)"
    spaced = (
        f"{head}      PostgreSQL 15.18 Documentation      {head}\n\nNAME\n"
        "       CREATE_TABLE_AS - define a new table from the results of a query\n\n"
    )
    assert document_title(spaced) == (
        "CREATE_TABLE_AS - define a new table from the results of a query"
    )
    assert own_identifiers(spaced, "CREATE_TABLE_AS.7.txt") == own_identifiers(
        "", "CREATE_TABLE_AS.7.txt"
    )


def test_a_running_head_cut_in_its_middle_is_read() -> None:
    """At 80 columns ``man`` cuts a long name's head and glues what is left: it still opens
    with the name that ends it."""
    cut = (
        "HTTP::Request::Common(User Contributed Perl DocumentHTTP::Request::Common(3pm)\n\n"
        "NAME\n       HTTP::Request::Common - Construct common HTTP::Request objects\n\n"
    )
    assert document_title(cut) == "HTTP::Request::Common - Construct common HTTP::Request objects"
    prose = "Notes on the loader (see notes.txt for more, as in section 3 of the guide (1)\n\nA\n"
    assert document_title(prose.replace("\n\nA\n", "\n\nNAME\n       x - y\n")) == ""


def test_without_the_running_head_the_name_line_is_no_title() -> None:
    body = PAGES["apt-get.8.txt"].split("\n", 1)[1]
    assert document_title(body) == ""


@pytest.mark.parametrize(
    ("question", "doc_id"),
    [
        ("According to apt.conf(5), where are fragments read from?", "apt.conf.5.txt"),
        ("In sources.list(5), which options go in square brackets?", "sources.list.5.txt"),
        ("What does the apt_preferences man page say about priorities?", "apt_preferences.5.txt"),
        ("How does apt-get(8) treat recommended packages?", "apt-get.8.txt"),
        ("What does aptitude(8) say about the resolver?", "aptitude-page.txt"),  # its head
        ("What does the configuration file for APT say about comments?", "apt.conf.5.txt"),
        ("What does the git glossary say a detached HEAD is?", "gitglossary.7.txt"),  # after -
    ],
)
def test_a_question_names_a_page_by_its_name_file_or_title(question: str, doc_id: str) -> None:
    route = route_question(question, manual())
    assert route.doc_ids == (doc_id,)


@pytest.mark.parametrize(
    "question",
    [
        "How do I pin a package to a specific release?",
        "Which commands download package lists from the repositories?",
        "What does apt say about held packages?",  # "apt" is every page's: ambiguous
    ],
)
def test_a_question_that_names_no_page_routes_nowhere(question: str) -> None:
    assert not route_question(question, manual())


def test_a_page_owns_the_name_and_section_its_running_head_writes() -> None:
    own = [i.word for i in own_identifiers(PAGES["apt-cdrom.8.txt"], "cdrom-page.txt")]
    assert own[0] == "apt-cdrom(8)"  # not from the file name: the head says it
    record = document_record("cdrom-page.txt", opening=PAGES["apt-cdrom.8.txt"])
    assert "apt-cdrom(8)" in record.words
    assert DocumentRecord.from_stored(record.to_stored()) == record  # stored as it is read


def test_a_text_cites_a_page_by_its_name_and_section() -> None:
    text = "See apt.conf(5) and git-rebase(1); f(x) and open(0) are no pages."
    assert [(i.word, i.shown) for i in references(text) if "(" in i.word] == [
        ("apt.conf(5)", "apt.conf(5)"),
        ("git-rebase(1)", "git-rebase(1)"),
    ]
