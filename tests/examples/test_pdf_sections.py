"""examples/pdf_sections.py: a PDF's title and sections, on PDFs Chromium prints."""

import shutil
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
HANDBOOK = """<!doctype html><html><head><title>Harbour Pilot Handbook</title>
<style>h1, h2 { break-before: page }</style></head><body>
<h1>Boarding</h1><p>The pilot boards from the ladder on the lee side, at six knots.</p>
<h2>Ladders</h2><p>A combination ladder is rigged above nine metres of freeboard.</p>
<h1>Tides</h1><p>Vessels deeper than eleven metres enter within two hours of high water.</p>
<h2>"Deep-draught arrivals through the outer approach channel at night, in fog or in a swell"
harbour-rule#12</h2><p>Deep-draught vessels wait at the outer anchorage for a second pilot.</p>
</body></html>"""
HANDBOOK_PRINT = {  # the outline on; the title and the date above each page, "2 / 3" below
    "outline": True,
    "tagged": True,  # Chromium writes the outline of a tagged PDF only
    "display_header_footer": True,
    "header_template": '<div style="font-size:9px"><span class="title"></span> '
    '<span class="date"></span></div>',
    "footer_template": '<div style="font-size:9px"><span class="pageNumber"></span> / '
    '<span class="totalPages"></span></div>',
    "margin": {"top": "50px", "bottom": "50px"},
}
CHECKLIST = """<!doctype html><html><body><p style="font-size:20px">Quay Crane Checklist</p>
<p>Before each shift the operator tests the hoist brake and the emergency stop.</p>
<p style="break-before: page">After the shift the boom is raised and the spreader parked.</p>
</body></html>"""


PREPRINT = """<!doctype html><html><head><title>paper.tex</title></head><body>
<p>arXiv:2412.01234v2 [cs.IR] 3 Dec 2024</p><p style="font-size:20px">Coherent Evidence</p>
<p>We rerank passages by how well they hang together.</p></body></html>"""
ARRIVALS = (
    '"Deep-draught arrivals through the outer approach channel at night, in fog or in a swell" '
    "harbour-rule#12"
)
"""The handbook's last heading, which its page wraps over two lines."""
SCAN = """<!doctype html><html><head><title>Scan 7</title></head><body>
<div style="width: 300px; height: 200px; background: #888"></div></body></html>"""


def _module(name):
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    return __import__(name)


@pytest.fixture(scope="module")
def printed(tmp_path_factory):
    """Chromium's PDFs: a titled handbook with an outline and a running head and foot on each
    page, an untitled two-page checklist without an outline, a preprint titled by its file
    name under an identifier stamp, and a page with no text (as a scan is)."""
    if not Path(CHROMIUM).exists():
        pytest.skip("needs Debian's chromium (installed by .ci/run)")
    from playwright.sync_api import sync_playwright

    folder = tmp_path_factory.mktemp("pdfs")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        page = browser.new_page()
        page.set_content(HANDBOOK)
        page.pdf(path=folder / "handbook.pdf", **HANDBOOK_PRINT)
        page.set_content(CHECKLIST)
        page.pdf(path=folder / "checklist.pdf")  # its metadata title: "about:blank"
        page.set_content(PREPRINT)
        page.pdf(path=folder / "preprint.pdf")
        page.set_content(SCAN)
        page.pdf(path=folder / "scan.pdf")
        browser.close()
    return folder


def test_a_pdf_is_titled_by_its_metadata_and_cut_at_its_outline_without_running_lines(printed):
    """The last heading wraps over two lines of its page, and the outline drops the space at
    the wrap ("fogor"): its section is found all the same, headed as the page writes it."""
    assert _module("pdf_sections").read_pdf(printed / "handbook.pdf") == (
        "Harbour Pilot Handbook",
        [
            ("Boarding", "The pilot boards from the ladder on the lee side, at six knots."),
            ("Ladders", "A combination ladder is rigged above nine metres of freeboard."),
            ("Tides", "Vessels deeper than eleven metres enter within two hours of high water."),
            (ARRIVALS, "Deep-draught vessels wait at the outer anchorage for a second pilot."),
        ],
    )


def test_a_pdf_without_a_title_or_an_outline_is_titled_by_its_first_line_and_cut_by_page(
    printed,
):
    assert _module("pdf_sections").read_pdf(printed / "checklist.pdf") == (
        "Quay Crane Checklist",
        [
            (
                "",
                "Quay Crane Checklist Before each shift the operator tests the hoist brake and "
                "the emergency stop.",
            ),
            ("", "After the shift the boom is raised and the spreader parked."),
        ],
    )


def test_neither_a_file_name_nor_an_identifier_stamp_is_read_as_the_title(printed):
    title, _ = _module("pdf_sections").read_pdf(printed / "preprint.pdf")
    assert title == "Coherent Evidence"


def test_lines_are_joined_across_a_hyphenated_break_and_split_after_a_short_sentence_end():
    lines = [
        "Abstract Syntax Notation One and Distinguished Encoding Rules manip-",
        "ulation is what the library does.",
        "Its functions are listed below.",
    ]
    assert _module("pdf_sections").paragraphs(lines, widest=len(lines[0])) == (
        "Abstract Syntax Notation One and Distinguished Encoding Rules manipulation is what the "
        "library does.\n\nIts functions are listed below."
    )


def test_a_folder_reads_a_pdf_by_its_sections(printed):
    folder_docs = _module("folder_docs")
    assert folder_docs.read_problem(printed / "handbook.pdf", "handbook.pdf") is None
    title, sections = folder_docs.read_file(printed / "handbook.pdf")
    assert title == "Harbour Pilot Handbook"
    assert [heading for heading, _ in sections] == ["Boarding", "Ladders", "Tides", ARRIVALS]


def test_both_folder_examples_chunk_a_pdf_under_its_outline_headings(printed):
    chunks = _module("langchain_folder").file_chunks(printed / "handbook.pdf", "handbook.pdf")
    assert [(c.metadata["title"], c.metadata["heading"]) for c in chunks] == [
        ("Harbour Pilot Handbook", "Boarding"),
        ("Harbour Pilot Handbook", "Ladders"),
        ("Harbour Pilot Handbook", "Tides"),
        ("Harbour Pilot Handbook", ARRIVALS),
    ]
    [document] = (
        _module("llamaindex_folder")
        .SectionReader()
        .load_data(printed / "handbook.pdf", extra_info={"source": "handbook.pdf"})
    )
    assert (document.id_, document.metadata["title"]) == ("handbook.pdf", "Harbour Pilot Handbook")
    assert document.text.startswith("The pilot boards from the ladder")


def test_a_pdf_without_text_has_no_sections_and_gives_no_chunk(printed):
    assert _module("pdf_sections").read_pdf(printed / "scan.pdf") == ("Scan 7", [])
    assert _module("langchain_folder").file_chunks(printed / "scan.pdf", "scan.pdf") == []


def test_an_encrypted_pdf_is_read_unless_it_needs_a_password_to_open(printed, tmp_path):
    """Word and Acrobat encrypt a PDF whose password guards only editing (AES here)."""
    from pypdf import PdfWriter

    for user, name in (("", "restricted.pdf"), ("secret", "locked.pdf")):
        writer = PdfWriter(clone_from=printed / "handbook.pdf")
        writer.encrypt(user_password=user, owner_password="owner", algorithm="AES-128")
        writer.write(tmp_path / name)
    read_pdf = _module("pdf_sections").read_pdf
    assert read_pdf(tmp_path / "restricted.pdf") == read_pdf(printed / "handbook.pdf")
    with pytest.raises(ValueError, match="^a PDF that opens only with a password$"):
        read_pdf(tmp_path / "locked.pdf")
