"""Routing reads a title by how many documents' *names* hold its words
(:func:`~cage_core.expansion.title_route.titles_written`): a word every document's opening
writes may still be one name's own; a question may write the run of a title that holds its
own words, or a one-word title after "the"."""

from __future__ import annotations

import pytest

from cage_core.expansion.document_names import MemoryDocumentNames
from cage_core.expansion.documents import DocumentRecord, document_record, title_word
from cage_core.expansion.routing import route_question

MINUTES = "# Council meeting {date}\n\nObservers: Ana, Ben\nAttendees: Carl, Dora\n"
PAGES = {
    "procedures/meeting-observers.md": "# Meeting observers\n\nWho may attend as an observer.",
    "policies/board-meeting-substitutes.md": "# Rust Foundation Board Meeting Substitutes\n\n",
    "roles/project-director.md": "# Role Description: Rust Foundation Project Director\n\n",
    "policies/election.md": "# Project Director Election Process\n\nNominations open.",
    "faq.md": "# FAQ\n\nAnswers to common questions.",
    "encryption.md": "# Encryption\n\nHow the repository is encrypted.",
    "multiple-abis.md": "# Multiple ABIs\n\nSome platforms have several ABIs.",
    "thread-safety.md": "# Thread Safety\n\nSwitching ABIs is not thread safe.",
}

SITE = {  # every page holds the site's name
    "FAQ.html": "<title>FAQ</title> libxslt: questions and answers",
    "xsltproc.html": "<title>xsltproc</title> libxslt: the command line tool",
    "internals.html": "<title>Library internals</title> libxslt: how it works",
    "news.html": "<title>News</title> libxslt: releases",
}
GUIDES = {
    "offboarding.md": "# Offboarding\n\nA checklist.",
    "steward.md": "# Security Steward Onboarding/OffBoarding\n\nSteps.",
    "eip-3855.md": "---\neip: 3855\ntitle: PUSH0 instruction\n---\n",
    "eip-7516.md": "---\neip: 7516\ntitle: BLOBBASEFEE instruction\n---\n",
    "collaborators.md": "# Collaborator guide\n\nHow to land.",
}


def named(pages: dict[str, str]) -> MemoryDocumentNames:
    """The records of ``pages`` (path → opening)."""
    return MemoryDocumentNames(document_record(p, opening=t) for p, t in pages.items())


def folder() -> MemoryDocumentNames:
    minutes = {
        f"minutes/2025-0{m}-01.md": MINUTES.format(date=f"2025-0{m}-01") for m in range(1, 8)
    }
    return MemoryDocumentNames(
        document_record(path, opening=text) for path, text in {**minutes, **PAGES}.items()
    )


def test_a_record_marks_the_words_of_its_name() -> None:
    record = folder().document("procedures/meeting-observers.md")
    assert record is not None and record.name == "Meeting observers"
    assert {title_word("meeting"), title_word("observers")} <= set(record.words)


def test_a_title_word_every_opening_writes_still_names_the_one_document_so_called() -> None:
    names = folder()
    assert names.document_frequencies(["observers", title_word("observers")]) == {
        "observers": 8,
        title_word("observers"): 1,
    }
    route = route_question("Under the meeting observers procedure, who may attend?", names)
    assert route.doc_ids == ("procedures/meeting-observers.md",)


def test_a_run_of_the_title_that_holds_its_own_words_names_the_document() -> None:
    route = route_question(
        "According to the board meeting substitutes policy, how is a stand-in chosen?", folder()
    )
    assert route.doc_ids == ("policies/board-meeting-substitutes.md",)
    assert route.documents[0].naming_words == ("board", "meeting", "substitutes")
    route = route_question("How long is a term, by the role description?", folder())
    assert route.doc_ids == ("roles/project-director.md",)


def test_a_run_without_the_titles_own_words_names_nothing() -> None:
    assert not route_question("What does the rust foundation do?", folder())
    assert not route_question("When was the last council meeting?", folder())


def test_a_one_word_title_names_its_document_after_the() -> None:
    assert route_question("Does the FAQ say backups resume?", folder()).doc_ids == ("faq.md",)
    route = route_question("Which cipher does the encryption chapter name?", folder())
    assert route.doc_ids == ("encryption.md",)
    assert route.question == "Which cipher does the chapter name?"


def test_a_one_word_title_without_the_names_nothing() -> None:
    assert not route_question("Is encryption on by default?", folder())
    assert not route_question("Which FAQ entries are new?", folder())


def test_a_name_written_beside_a_title_that_another_document_holds_less_fully_does_not_block_it() -> (  # noqa: E501
    None
):
    route = route_question(
        "According to the thread safety section, what happens when a program switches ABIs?",
        folder(),
    )
    assert route.doc_ids == ("thread-safety.md",)


def test_a_record_stored_before_names_were_marked_is_read_by_its_words_counts() -> None:
    old = [
        DocumentRecord(r.doc_id, r.name, tuple(w for w in r.words if not w.startswith("title:")))
        for r in folder().records()
    ]
    question = "Under the meeting observers procedure, who may attend?"
    unmarked = MemoryDocumentNames(old)
    assert not route_question(question, unmarked)  # every opening writes "Observers"
    route = route_question("What does the board meeting substitutes policy say?", unmarked)
    assert route.doc_ids == ("policies/board-meeting-substitutes.md",)


def test_a_question_naming_one_document_by_date_and_another_by_title_routes_to_both() -> None:
    names = MemoryDocumentNames(
        [
            *folder().records(),
            document_record("policies/travel.md", opening="# Travel spending policy\n\nLimits."),
        ]
    )
    route = route_question(
        "What did the 2025-01-01 meeting decide, and what does the travel spending policy set?",
        names,
    )
    assert route.doc_ids == ("minutes/2025-01-01.md", "policies/travel.md")
    assert route.question == "What did the meeting decide, and what does the set?"
    route = route_question("What did the 2025-01-01 meeting decide on travel spending?", names)
    assert route.doc_ids == ("minutes/2025-01-01.md",)


@pytest.mark.parametrize(
    ("question", "document", "searched_with"),
    [
        (  # a word of the title written outside it too stays there
            "Which observers does the meeting observers procedure admit, "
            "and who invites observers?",
            "procedures/meeting-observers.md",
            "Which observers does the procedure admit, and who invites observers?",
        ),
        (  # a shorter run of the title's words stays
            "Under the board meeting substitutes policy, who stood in at the last board meeting?",
            "policies/board-meeting-substitutes.md",
            "Under the policy, who stood in at the last board meeting?",
        ),
        (  # a word of the title written as a name goes wherever it stands
            "Which Observers does the meeting observers procedure admit?",
            "procedures/meeting-observers.md",
            "Which does the procedure admit?",
        ),
        (  # a one-word title goes wherever the question writes it
            "Does the FAQ say which FAQ entry is new?",
            "faq.md",
            "Does the say which entry is new?",
        ),
    ],
)
def test_the_named_document_is_searched_without_the_name_as_written(
    question: str, document: str, searched_with: str
) -> None:
    route = route_question(question, folder())
    assert route.doc_ids == (document,)
    assert route.question == searched_with


def test_a_short_page_named_by_its_title_is_read_before_long_pages_holding_more_words() -> None:
    """A page of a CLI reference holds little more than its title; 40 long pages hold more of
    the question's words. The title's documents are read first."""
    long_pages = {
        f"topics/topic-{n}.md": f"# Topic {n}\n\npip lists the packages left in the output by "
        "default and the packages it leaves out."
        for n in range(40)
    }
    pages = {**long_pages, "cli/pip_freeze.rst": "pip freeze\n==========\n\n.. usage:: freeze"}
    names = named(pages)
    route = route_question(
        "According to pip freeze, which packages are left out of the output by default?", names
    )
    assert route.doc_ids == ("cli/pip_freeze.rst",)


def test_a_title_written_as_a_name_after_the_names_its_document() -> None:
    """Two openings hold "configuration" and "handling", so the names rule finds the name
    ambiguous; the whole title written after "the" names its document, in any case."""
    pages = {
        "architecture/configuration-files.rst": "Configuration File Handling\n"
        "===========================\n\nHow pip's configuration files are read.",
        "topics/configuration.md": "# Configuration\n\nError handling of configuration files.",
        "topics/caching.md": "# Caching\n\nWhat is cached.",
        "topics/authentication.md": "# Authentication\n\nCredentials.",
    }
    names = named(pages)
    for written in ("Configuration File Handling", "configuration file handling"):
        route = route_question(f"According to the {written} page, which files are read?", names)
        assert route.doc_ids == ("architecture/configuration-files.rst",), written
    assert not route_question("Does Configuration File Handling read user files?", names)


def test_a_one_word_title_names_its_page_after_the_and_the_sites_own_name() -> None:
    """Every page of the site holds "libxslt"; "the libxslt FAQ" names the FAQ page as "the
    FAQ" does, and a word few pages hold between "the" and the title does not."""
    names = named(SITE)
    route = route_question("What does the libxslt FAQ say about memory leaks?", names)
    assert route.doc_ids == ("FAQ.html",)
    assert not route_question("What does the old FAQ say about memory leaks?", names)


def test_a_page_whose_whole_name_is_one_word_is_named_by_it_beside_longer_titles() -> None:
    """One page's whole name is "Offboarding", a word of another's title; "the offboarding
    doc" names the first. A title that is one word only once its identifier is left out
    ("PUSH0 instruction") is not named by that word."""
    names = named(GUIDES)
    route = route_question("What does the offboarding doc list as the steps?", names)
    assert route.doc_ids == ("offboarding.md",)
    assert not route_question("What value does the instruction push?", names)


COMMANDS = {  # a command reference: each page titled by the command, which others mention
    "find_package.rst": "find_package\n------------\n\nFind a package; see also find_library.",
    "find_library.rst": "find_library\n------------\n\nFind a library, as find_package does.",
    "option.rst": "option\n------\n\nProvide a boolean option; see find_package.",
    "project.rst": "project\n-------\n\nSet the project name; find_package reads it.",
}


def test_a_page_titled_by_a_code_name_is_named_wherever_the_question_writes_it() -> None:
    """Words joined by underscores are written as code, never as prose: "find_package" names
    its page without "the", though every other page mentions it; a one-word title in prose
    ("option") still needs "the"."""
    names = named(COMMANDS)
    route = route_question("Which arguments does find_package accept in config mode?", names)
    assert route.doc_ids == ("find_package.rst",)
    assert route.question == "Which arguments does accept in config mode?"
    assert route_question("What does the option command do?", names).doc_ids == ("option.rst",)
    assert not route_question("Which option names a project?", names)


def test_a_title_written_as_code_names_the_page_whose_title_writes_its_words() -> None:
    """The question joins the title's words by underscores, as the page's own command
    writes them: "feature_test_macros" names "Feature test macros"."""
    names = named(
        {
            "macros.md": "# Feature test macros\n\nDefining _GNU_SOURCE exposes everything.",
            "unix.md": "# UNIX domain sockets\n\nLocal interprocess communication.",
            "tests.md": "# Test suite\n\nHow the test macros are run.",
        }
    )
    route = route_question("What does the feature_test_macros page say?", names)
    assert route.doc_ids == ("macros.md",)
    assert route.question == "What does the page say?"
    assert not route_question("What does feature_test say?", names)


def test_a_file_names_words_name_its_page_whole_not_by_a_run() -> None:
    """Each page is titled by its command written as code ("CREATE_TABLE_AS - …"), so no
    title holds "create" as a word; a run of one file's words ("create table" of
    CREATE_TABLE_AS) is not its name, and "the CREATE TABLE page" names CREATE_TABLE."""
    pages = {
        f"{command}.7": f"{command}(7)  PostgreSQL Documentation  {command}(7)\n\nNAME\n"
        f"       {command} - {line}\n"
        for command, line in [
            ("CREATE_TABLE", "define a new table"),
            ("CREATE_TABLE_AS", "define a new table from the results of a query"),
            ("CREATE_INDEX", "define a new index"),
            ("DROP_TABLE", "remove a table"),
        ]
    }
    names = named(pages)
    route = route_question("According to the CREATE TABLE page, what is UNLOGGED?", names)
    assert route.doc_ids == ("CREATE_TABLE.7",)


def test_a_section_number_before_a_title_is_no_word_of_its_name() -> None:
    """A manual's chapters carry their numbers ("10. DHAT: …"); "the DHAT manual" names the
    chapter whose main title, less its number, is that one word, as "the Memcheck manual"
    names "4. Memcheck: …"."""
    names = named(
        {
            f"{page}.html": f"<title>{title}</title>"
            for page, title in [
                ("mc-manual", "4. Memcheck: a memory error detector"),
                ("hg-manual", "7. Helgrind: a thread error detector"),
                ("dh-manual", "10. DHAT: a dynamic heap analysis tool"),
                ("ms-manual", "9. Massif: a heap profiler"),
            ]
        }
    )
    assert route_question("What does the DHAT manual say?", names).doc_ids == ("dh-manual.html",)
    assert route_question("What does the Memcheck manual say?", names).doc_ids == (
        "mc-manual.html",
    )


PERL = {  # modules named by their namespace, "URI" and the modules below it
    f"{module}.3pm": f"<title>{module} - {line}</title>"
    for module, line in [
        ("URI", "Uniform Resource Identifiers (absolute and relative)"),
        ("URI::Escape", "Percent-encode and percent-decode unsafe characters"),
        ("URI::Split", "Parse and compose URI strings"),
        ("URI::URL", "Uniform Resource Locators"),
    ]
}


def test_a_modules_name_with_colons_is_its_main_title_whole() -> None:
    """ "URI::Escape - …" has no main title "URI" (a colon of "::" ends none), so "the
    URI::Escape documentation" names the module's page, not its namespace's; the "::" goes
    with the name from the question."""
    names = named(PERL)
    route = route_question("What does the URI::Escape documentation say?", names)
    assert route.doc_ids == ("URI::Escape.3pm",)
    assert route.question == "What does the documentation say?"


BOOK = {  # every page's name ends with the book's: "<chapter> - The Rust Programming Language"
    f"ch{n}.html": f"<title>{title} - The Rust Programming Language</title>"
    for n, title in [
        ("04-00", "Understanding Ownership"),
        ("04-01", "What is Ownership?"),
        ("04-03", "The Slice Type"),
        ("13-00", "Functional Language Features: Iterators and Closures"),
        ("13-01", "Closures"),
        ("13-02", "Processing a Series of Items with Iterators"),
        ("appendix-07", "G - How Rust is Made and “Nightly Rust”"),
    ]
}


def test_a_word_never_a_name_on_its_own_is_no_titles_own_word() -> None:
    """ "what" is in one title only, but it is a function word: "what is" names no page."""
    names = named(BOOK)
    assert not route_question("What is the difference between a String and a &str?", names)
    route = route_question("According to the slice type page, what is a string slice?", names)
    assert route.doc_ids == ("ch04-03.html",)


NOTES = {  # a project's notes, one titled by a question
    "00-about-docs.txt": "What is here\n------------\n\nNotes for contributors.",
    "release-schedule.txt": "Release schedule\n----------------\n\nTwice a year.",
    "howto-debug.txt": "Debugging programs\n==================\n\nUse gdb.",
}


def test_a_stop_word_one_title_holds_is_no_titles_own_word() -> None:
    """ "is" is in one title only ("What is here", a folder's note on its files), but it is a
    stop word: "what is" names no page; the title's other words, after "the", still do."""
    assert not route_question("What is the version numbering scheme?", named(NOTES))
    route = route_question("What does the release schedule say about versions?", named(NOTES))
    assert route.doc_ids == ("release-schedule.txt",)


def test_a_pages_main_title_of_one_word_is_named_after_the_beside_longer_titles() -> None:
    """ "Closures" is the main title of one page (before the book's name) and a word of
    another's title; "the Closures page" names the first."""
    names = named(BOOK)
    route = route_question("What does the Closures page say about capturing values?", names)
    assert route.doc_ids == ("ch13-01.html",)
    assert not route_question("Which closures capture by reference?", names)


def test_a_page_is_named_by_the_words_of_its_file_name_as_by_its_title() -> None:
    """The guide's title says something else; its file's words name it too, as a run of two
    words or more the question writes ("the Writing tests guide")."""
    names = named(
        {
            "writing-tests.md": "# How to write a test for the Node.js project\n\nFixtures.",
            "pull-requests.md": "# Pull requests\n\nHow to open one.",
            "security-release-process.md": "# Security release process\n\nSteps.",
        }
    )
    route = route_question("According to the Writing tests guide, where do fixtures go?", names)
    assert route.doc_ids == ("writing-tests.md",)
    assert not route_question("Which tests are writing files to disk?", names)


MODULES = {  # an API reference written by a tool: every title opens with the tool's label
    "heapq.html": "<title>Python: module heapq</title> Heap queue algorithm.",
    "secrets.html": "<title>Python: module secrets</title> Generate secure random numbers.",
    "random.html": "<title>Python: module random</title> Random variable generators.",
    "bisect.html": "<title>Python: module bisect</title> Bisection algorithms.",
    "json.html": "<title>Python: package json</title> JSON encoder and decoder.",
    "email.html": "<title>Python: package email</title> A package for e-mail messages.",
    "travel.html": "<title>Travel spending policy</title> Who may apply for a grant.",
}


def test_a_word_both_the_file_name_and_in_no_other_title_names_its_page_after_the() -> None:
    """The word "heapq" is the file's name and in no other title: "the heapq module" names
    the page titled "Python: module heapq", and "the json module" the package's page; but
    not "the travel grants" the "Travel spending policy" of ``travel.html``, whose other
    words no other title holds."""
    names = named(MODULES)
    route = route_question("Which functions does the heapq module provide?", names)
    assert route.doc_ids == ("heapq.html",)
    assert route_question("What does the json module say about dumps?", names).doc_ids == (
        "json.html",
    )
    assert not route_question("Which functions does a heapq provide?", names)
    assert not route_question("Who may apply for the travel grants?", names)


def test_a_name_joined_by_and_to_a_name_after_the_stands_after_the_too() -> None:
    """In "the random and secrets modules" both names stand under one "the"."""
    names = named(MODULES)
    route = route_question("Compare the random and secrets modules for passwords.", names)
    assert set(route.doc_ids) == {"random.html", "secrets.html"}
    assert not route_question("Compare random and secrets for passwords.", names)


def test_a_title_of_words_most_pages_hold_is_read_by_how_few_titles_hold_them() -> None:
    """A manual's nodes each write their parent's name ("Up: Common options"), so more than
    ``MAX_NAMING_DOCUMENTS`` pages hold "common" and "options"; two titles hold both words,
    and "the Common options section" names its node."""
    header = "File: manual.info,  Node: {name},  Up: Common options\n\n{name}\n=====\n\nText."
    pages = {f"opt-{i}.txt": header.format(name=f"Option {i} item") for i in range(70)}
    pages["Common-options.txt"] = "File: manual.info,  Node: Common options\n\nCommon options\n"
    pages["Common-words.txt"] = "File: manual.info,  Node: Common words\n\nCommon words\n"
    names = named(pages)
    route = route_question("What does the Common options section say about --help?", names)
    assert route.doc_ids == ("Common-options.txt",)


def test_a_title_a_question_asks_which_of_is_a_kind_of_thing() -> None:
    """A manual's node "Exit status": "which exit status" asks about a kind of thing, while
    "the Exit status section" and "the exit status section" name the node."""
    pages = {
        "Exit-status.txt": "2.1 Exit status\n===============\n\nAn exit status of zero ...",
        "test-invocation.txt": "16.3 'test': Check file types and compare values\n=====\n",
        "Block-size.txt": "2.3 Block size\n==============\n\nSome programs report ...",
    }
    names = named(pages)
    assert not route_question("Which exit status does a failed check return?", names)
    for written in ("Exit status", "exit status"):
        route = route_question(f"What does the {written} section say about zero?", names)
        assert route.doc_ids == ("Exit-status.txt",), written


API = {  # an API reference: every title "NAME in PATH - Rust"
    "collections/struct.HashMap.html": "<title>HashMap in std::collections - Rust</title>",
    "collections/struct.BTreeMap.html": "<title>BTreeMap in std::collections - Rust</title>",
    "fs/fn.read_to_string.html": "<title>read_to_string in std::fs - Rust</title>",
    "fs/struct.File.html": "<title>File in std::fs - Rust</title>",
    "thread/fn.spawn.html": "<title>spawn in std::thread - Rust</title>",
    "thread/struct.Builder.html": "<title>Builder in std::thread - Rust</title>",
    "index.html": "<title>Top (Rust: the standard library)</title>",
}


def test_a_titles_one_distinct_word_names_its_page_written_as_a_name_or_as_code() -> None:
    """Of "HashMap in std::collections - Rust" only "HashMap" is no other title's: written
    capitalised after "the", or as code anywhere ("thread::spawn"), it names the page; "the
    top of" (lower case) does not name "Top (…)", nor "spawn" written as prose."""
    names = named(API)
    route = route_question("What does the HashMap page say about the default hasher?", names)
    assert route.doc_ids == ("collections/struct.HashMap.html",)
    route = route_question("How does thread::spawn handle a panic?", names)
    assert route.doc_ids == ("thread/fn.spawn.html",)
    route = route_question("What errors can fs::read_to_string return?", names)
    assert route.doc_ids == ("fs/fn.read_to_string.html",)
    assert not route_question("Who reached the top of Mount Everest first?", names)
    assert not route_question("Does the library spawn a thread per file?", names)


def test_files_of_one_name_in_many_folders_are_named_after_their_folders() -> None:
    """Every package's notice is a file ``copyright`` without a title: "the curl copyright
    file" names ``curl/copyright``, whose text never writes "curl", and "the gzip and tar
    changelogs" both packages' ``changelog.Debian``."""
    notice = "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\n"
    pages = {f"{p}/copyright": notice + "Files: *\nLicense: GPL\n" for p in ("curl", "gzip", "tar")}
    names = named(pages)
    route = route_question("Which licence does the curl copyright file give?", names)
    assert route.doc_ids == ("curl/copyright",)
    logs = named(
        {f"{p}/changelog.Debian": f"{p} (1.0-1) unstable\n" for p in ("gzip", "tar", "git")}
    )
    route = route_question("Compare the gzip and tar changelogs on security fixes.", logs)
    assert set(route.doc_ids) == {"gzip/changelog.Debian", "tar/changelog.Debian"}


def test_a_folder_named_with_a_number_names_the_untitled_file_in_it() -> None:
    """ "bzip2" and "sqlite3" are identifiers (a word with a number), which a name's words
    leave out: the folder gives its untitled ``copyright`` file those identifiers, and the
    question that writes one names that file, wherever it writes it."""
    notice = "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\n"
    packages = ("bzip2", "sqlite3", "curl")
    names = named({f"{p}/copyright": notice + "Files: *\nLicense: BSD\n" for p in packages})
    route = route_question("What does the copyright file of bzip2 say about the licence?", names)
    assert route.doc_ids == ("bzip2/copyright",)
    route = route_question("Who holds the copyright of sqlite3?", names)
    assert route.doc_ids == ("sqlite3/copyright",)
    assert not route_question("Who holds the copyright of the licence file?", names)


def test_a_titles_one_distinct_word_written_capitalised_names_its_page_anywhere() -> None:
    """ "BTreeMap", written capitalised past the question's first word, names its page with no
    "the" before it, and beside another such name both pages (neither vetoes the other as a
    second name the question writes); not as the question's first word (every sentence
    capitalises that), not in capitals alone ("FILE"), and not in lower case ("a builder")."""
    names = named(API)
    route = route_question("How does BTreeMap order its keys?", names)
    assert route.doc_ids == ("collections/struct.BTreeMap.html",)
    route = route_question("Compare HashMap and BTreeMap for small maps.", names)
    assert route.doc_ids == ("collections/struct.HashMap.html", "collections/struct.BTreeMap.html")
    route = route_question("Can a thread be named by its Builder?", names)
    assert route.doc_ids == ("thread/struct.Builder.html",)
    assert not route_question("Builder or spawn: which names a thread?", names)
    assert not route_question("Can a FILE be opened twice?", names)
    assert not route_question("Can a builder name the thread?", names)


def test_a_title_word_half_the_documents_hold_names_no_page_written_in_passing() -> None:
    """ "Tidewater" is the README's whole title; where half the folder's documents hold it, it
    is the collection's name, and "does Tidewater read" names no page; where one does, the
    README."""
    folder = {
        "README.md": "# Tidewater\n\nTidewater prints tide tables for coastal stations.",
        "changelog.html": "<title>Tidewater changelog</title><p>Added Brest.</p>",
        "configuration.rst": "Configuration\n=============\n\nSettings live in a file.",
        "faq.txt": "Frequently asked questions\n==========================\n\nWhy?",
    }
    question = "Which file does Tidewater read its settings from?"
    assert not route_question(question, named(folder))
    folder["changelog.html"] = "<title>Changelog</title><p>Added Brest.</p>"
    assert route_question(question, named(folder)).doc_ids == ("README.md",)


SQL = {  # a command reference: each page titled by its command, in capitals
    f"{command.replace(' ', '_')}.txt": f"{command} - {summary}\n\nSee also CREATE TABLE.\n"
    for command, summary in [
        ("ALTER TABLE", "change the definition of a table"),
        ("CREATE TABLE", "define a new table"),
        ("CREATE TABLE AS", "define a new table from the results of a query"),
        ("CREATE INDEX", "define a new index"),
        ("SELECT INTO", "define a new table from the results of a query"),
        ("EXPLAIN", "show the execution plan of a statement (its ANALYZE option runs it)"),
        ("ANALYZE", "collect statistics about a database"),
    ]
}


@pytest.mark.parametrize(
    ("question", "pages"),
    [
        ("Which lock level does ALTER TABLE take?", ("ALTER_TABLE.txt",)),
        ("What does CREATE INDEX CONCURRENTLY cost?", ("CREATE_INDEX.txt",)),
        ("What does EXPLAIN ANALYZE do to a statement?", ("EXPLAIN.txt",)),
        ("Compare SELECT INTO and CREATE TABLE AS.", ("SELECT_INTO.txt", "CREATE_TABLE_AS.txt")),
        ("Does ANALYZE lock the table?", ()),  # one word in capitals: an acronym, as "API"
        ("Which NEW TABLE statement locks?", ()),  # a run no title starts
    ],
)
def test_a_title_that_starts_a_run_of_capitals_names_its_page_wherever_it_stands(
    question: str, pages: tuple[str, ...]
) -> None:
    """Two or more words in capitals alone are written as a command or keyword is, not as
    prose: the longest title that starts the run names its page, with no "the" before it
    ("ALTER TABLE"; "CREATE INDEX" of "CREATE INDEX CONCURRENTLY"; "EXPLAIN" of "EXPLAIN
    ANALYZE", not "ANALYZE", which does not start it)."""
    assert route_question(question, named(SQL)).doc_ids == pages
