"""examples/docx_sections.py: a Word file's title and sections, on files python-docx writes."""

import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _module(name):
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    return __import__(name)


@pytest.fixture
def handbook(tmp_path):
    """A Word file: a core-properties title, a "Title" paragraph, two headings, a table."""
    import docx

    document = docx.Document()
    document.core_properties.title = "Harbour Pilot Handbook"
    document.add_heading("Pilotage in the Outer Harbour", level=0)  # styled "Title"
    document.add_paragraph("Pilotage is compulsory for vessels over 80 metres.")
    document.add_heading("Boarding", level=1)
    document.add_paragraph("The pilot boards from the ladder on the lee side, at six knots.")
    document.add_paragraph("")
    document.add_heading("Tides", level=2)
    table = document.add_table(rows=2, cols=2)
    for row, cells in zip(table.rows, [("Draught", "Window"), ("11 m", "2 h of high water")]):
        for cell, text in zip(row.cells, cells):
            cell.text = text
    path = tmp_path / "handbook.docx"
    document.save(str(path))
    return path


def test_a_word_file_is_titled_by_its_properties_and_cut_at_its_headings(handbook):
    assert _module("docx_sections").read_docx(handbook) == (
        "Harbour Pilot Handbook",
        [
            ("", "Pilotage is compulsory for vessels over 80 metres."),
            ("Boarding", "The pilot boards from the ladder on the lee side, at six knots."),
            ("Tides", "Draught | Window\n\n11 m | 2 h of high water"),
        ],
    )


def test_without_a_title_property_the_title_paragraph_names_the_file(handbook):
    import docx

    document = docx.Document(str(handbook))
    document.core_properties.title = ""
    document.save(str(handbook))
    title, _ = _module("docx_sections").read_docx(handbook)
    assert title == "Pilotage in the Outer Harbour"


def test_a_folder_reads_a_word_file_into_chunks_under_its_headings(handbook):
    assert _module("folder_docs").read_problem(handbook, "handbook.docx") is None
    chunks = _module("langchain_folder").file_chunks(handbook, "handbook.docx")
    assert [(c.metadata["title"], c.metadata["heading"]) for c in chunks] == [
        ("Harbour Pilot Handbook", ""),
        ("Harbour Pilot Handbook", "Boarding"),
        ("Harbour Pilot Handbook", "Tides"),
    ]
