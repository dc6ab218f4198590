"""Routing reads a document's names in any case and form
(:func:`~cage_core.expansion.routing.route_question`): its identifiers with their number, its
title by its specific words in lower case, folded Unicode; a question naming two documents
routes to both."""

from __future__ import annotations

from cage_core.expansion.document_names import MemoryDocumentNames
from cage_core.expansion.documents import document_record
from cage_core.expansion.routing import route_question

SPECS = {
    "pep-0634.txt": "PEP: 634\nTitle: Structural Pattern Matching: Specification\n\nAbstract",
    "pep-0635.txt": "PEP: 635\nTitle: Structural Pattern Matching: Motivation and Rationale\n",
    "pep-0636.txt": "PEP: 636\nTitle: Structural Pattern Matching: Tutorial\nReplaces: 622\n",
    "pep-0008.txt": "PEP: 8\nTitle: Style Guide for Python Code\n\nIntroduction",
    "pep-0020.txt": "PEP: 20\nTitle: The Zen of Python\n\nLong time Pythoneer",
    "pep-0257.txt": "PEP: 257\nTitle: Docstring Conventions\n\nAbstract",
    "pep-0484.txt": "PEP: 484\nTitle: Type Hints\n\nAbstract",
    "pep-0572.txt": "PEP: 572\nTitle: Assignment Expressions\n\nAbstract",
    "pep-0621.txt": "PEP: 621\nTitle: Storing project metadata in pyproject.toml\n",
    "pep-0695.txt": "PEP: 695\nTitle: Type Parameter Syntax\n\nAbstract",
    "pep-0701.txt": "PEP: 701\nTitle: Syntactic formalization of f-strings\n",
    "pep-0405.txt": "PEP: 405\nTitle: Python Virtual Environments\n",
    "pep-0440.txt": "PEP: 440\nTitle: Version Identification and Dependency Specification\n",
    "pep-0517.txt": "PEP: 517\nTitle: A build-system independent format for source trees\n",
    "pep-0544.txt": "PEP: 544\nTitle: Protocols: Structural subtyping (static duck typing)\n",
    "pep-0612.txt": "PEP: 612\nTitle: Parameter Specification Variables\n",
}


def specs() -> MemoryDocumentNames:
    return MemoryDocumentNames(document_record(k, opening=v) for k, v in SPECS.items())


def test_a_record_is_named_by_its_identifier_and_its_title() -> None:
    record = document_record("pep-0634.txt", opening=SPECS["pep-0634.txt"])
    assert record.name == "PEP 634: Structural Pattern Matching: Specification"
    assert "pep 634" in record.words


def test_a_question_naming_a_document_by_its_number_routes_to_it_in_any_written_form() -> None:
    for asked in ("PEP 634", "pep 634", "PEP-634", "pep634", "PEP 0634"):
        route = route_question(f"What does {asked} say about guards?", specs())
        assert route.doc_ids == ("pep-0634.txt",), asked
        assert route.question == "What does say about guards?"


def test_a_number_the_folder_does_not_hold_routes_nowhere() -> None:
    assert not route_question("What does PEP 9999 say about guards?", specs())


def test_a_title_in_lower_case_routes_by_its_specific_words() -> None:
    route = route_question(
        "In the structural pattern matching tutorial, how are class patterns written?", specs()
    )
    assert route.doc_ids == ("pep-0636.txt",)
    assert route.documents[0].naming_words == ("structural", "pattern", "matching", "tutorial")
    assert route.question == "In the, how are class patterns written?"


def test_a_title_written_as_part_of_a_longer_name_names_another_document() -> None:
    assert not route_question(
        "What does the Draft Structural Pattern Matching Tutorial Errata say?", specs()
    )


def test_a_title_the_question_writes_as_a_name_is_read_as_a_name() -> None:
    names = MemoryDocumentNames(
        [
            document_record("marie_curie.md", opening="# Marie Curie\n\nMarie Curie was born."),
            document_record("warsaw.md", opening="# Warsaw\n\nMarie Curie was born here."),
            document_record("paris.md", opening="# Paris\n\nThe Seine flows through Paris."),
        ]
    )
    # "Marie Curie" is a name two documents hold: no route, as step 1b says, not a title
    assert not route_question(
        "Which river flows through the city where Marie Curie was born?", names
    )


def test_a_title_whose_every_word_many_documents_hold_names_none() -> None:
    kinds = MemoryDocumentNames(
        document_record(f"contract-{i}", opening=f"Franchise Agreement\n\nParty {i} and Party")
        for i in range(8)
    )
    assert not route_question("In the franchise agreement, who may assign?", kinds)


def test_a_title_whose_words_many_names_hold_apart_but_one_together_names_it() -> None:
    commands = ("ALTER TABLE", "CREATE TABLE", "DROP TABLE", "CREATE TABLE AS", "TRUNCATE TABLE")
    more = ("ALTER INDEX", "ALTER VIEW", "ALTER ROLE", "ALTER SEQUENCE", "CREATE INDEX")
    names = MemoryDocumentNames(
        document_record(c.replace(" ", "_") + ".7", opening=f"{c}(7)\n\nNAME\n{c} - a command")
        for c in commands + more
    )  # "alter" and "table": each in five names
    route = route_question("What does the ALTER TABLE page say about locks?", names)
    assert route.doc_ids == ("ALTER_TABLE.7",)
    assert route.documents[0].naming_words == ("alter", "table")


def test_a_file_name_or_a_date_the_question_writes_names_its_document() -> None:
    names = MemoryDocumentNames(
        [
            document_record("docs/compatibility.md", opening="# Requests Compatibility Guide"),
            document_record("minutes/2024-12-06.md", opening="# Council meeting"),
            document_record("minutes/2024-11-22.md", opening="# Council meeting"),
        ]
    )
    assert route_question("In compatibility.md, are redirects followed?", names).doc_ids == (
        "docs/compatibility.md",
    )
    for asked in ("the 2024-12-06 meeting", "the meeting of 6 December 2024", "Dec. 6, 2024"):
        route = route_question(f"What did {asked} decide?", names)
        assert route.doc_ids == ("minutes/2024-12-06.md",), asked


def test_a_generic_file_name_names_its_document_where_few_documents_have_it() -> None:
    names = MemoryDocumentNames(
        [
            document_record("python/LICENSE.txt", opening="A. HISTORY OF THE SOFTWARE"),
            document_record("licenses/GPL-3", opening="GNU GENERAL PUBLIC LICENSE"),
            *(
                document_record(f"{package}/README.md", opening=f"# {package}")
                for package in ("httpx", "rich", "typer")
            ),
        ]
    )
    route = route_question("According to Python's LICENSE.txt, who holds the copyright?", names)
    assert route.doc_ids == ("python/LICENSE.txt",)
    assert not route_question("What does README.md say about installing?", names)


def test_one_word_of_a_title_in_lower_case_names_nothing() -> None:
    assert not route_question("Which syntax do guards use?", specs())
    assert not route_question("How is a tutorial written?", specs())


def test_a_question_naming_two_documents_by_number_routes_to_both() -> None:
    route = route_question("How does PEP 8 differ from PEP 257 on docstrings?", specs())
    assert route.doc_ids == ("pep-0008.txt", "pep-0257.txt")
    assert route.question == "How does differ from on docstrings?"


def test_names_in_another_case_folding_or_composition_route_alike() -> None:
    names = MemoryDocumentNames(
        [
            document_record("a", opening="Jahresbericht der Müller Straße Werke"),
            document_record("b", opening="İstanbul Liman Raporu"),
            *(document_record(k, opening=v) for k, v in SPECS.items()),
        ]
    )
    assert route_question("Was sagt der Bericht der MU\u0308LLER STRASSE Werke?", names).doc_ids
    assert route_question("Was meldet der Bericht aus Istanbul Liman?", names).doc_ids == ("b",)


SITE = " (libffi: the portable foreign function interface library)"
PAGES = ["Thread Safety", "Type Example", "Memory Usage", "Closure API", "Missing Features"]


def test_a_site_name_every_page_title_repeats_is_not_asked_for() -> None:
    head = "<!DOCTYPE html>\n<html>\n<!-- a long generator comment -->\n<head>\n<title>{}</title>"
    names = MemoryDocumentNames(
        document_record(
            f"{page.replace(' ', '-')}.html",
            opening=head.format(page + SITE)[:40],  # a first chunk that ends before the title
            head=head.format(page + SITE),
        )
        for page in PAGES
    )
    assert names.document("Thread-Safety.html").name == "Thread Safety" + SITE
    route = route_question("In the thread safety section, what may switch ABIs?", names)
    assert route.doc_ids == ("Thread-Safety.html",)
    route = route_question("how many slots does the type example reserve?", names)
    assert route.doc_ids == ("Type-Example.html",)
