"""examples/folder_docs.py reads a folder's files with each format's own parser into sections
named by heading (model-free: the stores are exercised by tests/examples/test_examples.py)."""

import argparse
import importlib.util
import io
import json
import sys
import zipfile
from pathlib import Path

import pytest

from cage_core.names.centered_titles import MAX_TITLE_CHARS

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SAMPLE_DOCS = EXAMPLES / "sample_docs"


def _archive_without_a_document() -> bytes:
    """A ZIP archive, as a ``.docx`` is, that holds no Word document."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("notes.txt", "an archive, but no Word document in it")
    return buffer.getvalue()


@pytest.fixture(scope="module")
def folder_docs():
    if str(EXAMPLES) not in sys.path:  # as the examples run: their siblings importable
        sys.path.insert(0, str(EXAMPLES))
    spec = importlib.util.spec_from_file_location("folder_docs", EXAMPLES / "folder_docs.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("folder_docs", module)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("suffix", "damaged", "refusal", "error"),
    [
        (".pdf", b"%PDF-1.4 not a real PDF", "not a PDF", "a PDF pypdf cannot read: "),
        (
            ".docx",
            _archive_without_a_document(),
            "not a Word file",
            "a Word file python-docx cannot read: ",
        ),
    ],
)
def test_a_binary_type_named_on_other_bytes_is_refused_and_a_damaged_one_says_so(
    folder_docs, tmp_path, suffix, damaged, refusal, error
):
    text = tmp_path / f"notes{suffix}"
    text.write_text("just text, named as another type", encoding="utf-8")
    broken = tmp_path / f"scan{suffix}"
    broken.write_bytes(damaged)
    assert folder_docs.read_problem(text, text.name) == refusal
    assert folder_docs.read_problem(broken, broken.name) is None  # it says it is one
    with pytest.raises(ValueError, match=f"^{error}"):
        folder_docs.read_file(broken)


def test_each_sample_file_is_cut_at_its_headings(folder_docs):
    assert {
        name: [heading for heading, _ in folder_docs.read_sections(SAMPLE_DOCS / name)]
        for name in ("README.md", "configuration.rst", "faq.txt", "changelog.html")
    } == {
        "README.md": ["Tidewater", "Installation", "Usage", "License"],
        "configuration.rst": ["Configuration file", "Stations", "Units"],
        "faq.txt": [
            "Why are the predicted times off by one hour?",
            "How accurate are the predictions?",
        ],
        "changelog.html": ["Version 2.0", "Version 1.4"],
    }


def test_a_files_title_is_its_first_heading_with_text_under_it_or_not(folder_docs, tmp_path):
    """docutils lifts a title set over sections out of them: the title has no text of its
    own, so it heads no section, and it is still the file's title."""
    notes = "Util-linux 2.38 Release Notes\n=============================\n\n"
    notes += "Release highlights\n------------------\n\nTranslated man pages.\n\n"
    notes += "Changes\n-------\n\nA new lsfd command.\n"
    (tmp_path / "v2.38-ReleaseNotes").write_text(notes, encoding="utf-8")
    assert folder_docs.read_file(tmp_path / "v2.38-ReleaseNotes") == (
        "Util-linux 2.38 Release Notes",
        [("Release highlights", "Translated man pages."), ("Changes", "A new lsfd command.")],
    )
    (tmp_path / "plain.txt").write_text("No heading at all.\n", encoding="utf-8")
    assert folder_docs.read_file(tmp_path / "plain.txt") == (  # untitled: named by its file
        "plain",
        [("", "No heading at all.")],
    )


def test_a_markdown_files_front_matter_gives_its_title_and_is_no_section(folder_docs, tmp_path):
    """CommonMark reads YAML front matter closed by "---" as a paragraph under a setext
    heading; read as front matter, it is the title, and no section holds it."""
    page = "---\neip: 3855\ntitle: PUSH0 instruction\nstatus: Final\n---\n\n"
    page += "## Abstract\n\nIntroduce the PUSH0 instruction.\n"
    (tmp_path / "eip-3855.md").write_text(page, encoding="utf-8")
    assert folder_docs.read_file(tmp_path / "eip-3855.md") == (
        "PUSH0 instruction",
        [("Abstract", "Introduce the PUSH0 instruction.")],
    )
    (tmp_path / "bad.md").write_text("---\n: [unclosed\n---\n\n# Bad\n\nText.\n", "utf-8")
    assert folder_docs.read_file(tmp_path / "bad.md") == ("Bad", [("Bad", "Text.")])


def test_a_front_matter_title_is_cut_as_every_title_cage_reads(folder_docs, tmp_path):
    long = "A title " * 40  # 320 characters, YAML or TOML alike
    (tmp_path / "yaml.md").write_text(f"---\ntitle: {long}\n---\n\nText.\n", "utf-8")
    (tmp_path / "toml.md").write_text(f'+++\ntitle = "{long}"\n+++\n\nText.\n', "utf-8")
    cut = " ".join(long.split())[:MAX_TITLE_CHARS]
    assert folder_docs.read_file(tmp_path / "yaml.md")[0] == cut
    assert folder_docs.read_file(tmp_path / "toml.md")[0] == cut


def test_a_file_is_titled_as_cage_reads_a_documents_opening(folder_docs, tmp_path):
    """A PEP's ``Title:`` field, not its first heading ("Abstract"); a plain-text licence's
    centered title, which no parser reads as a heading."""
    pep = "PEP: 636\nTitle: Structural Pattern Matching: Tutorial\nStatus: Final\n\n"
    pep += "Abstract\n========\n\nThis PEP is a tutorial.\n"
    (tmp_path / "pep-0636.rst").write_text(pep, encoding="utf-8")
    assert folder_docs.read_file(tmp_path / "pep-0636.rst")[0] == (
        "Structural Pattern Matching: Tutorial"
    )
    licence = "\n".join(
        [
            " " * 24 + "ACME PUBLIC LICENSE",
            " " * 22 + "Version 2, June 1991",
            "",
            " Copyright (C) 1991 Acme Software Foundation, Inc., 51 Franklin Street,",
            " Everyone is permitted to copy and distribute verbatim copies of this",
            " license document, but changing it is not allowed, as the preamble says.",
        ]
    )
    (tmp_path / "APL-2").write_text(licence + "\n", encoding="utf-8")
    assert (
        folder_docs.read_file(tmp_path / "APL-2")[0] == "ACME PUBLIC LICENSE Version 2, June 1991"
    )


def test_a_notebook_is_read_as_the_markdown_of_its_cells(folder_docs, tmp_path):
    """Markdown cells give the title and sections; code cells and outputs are no text."""
    cell = {"cell_type": "code", "source": ["import tidewater\n", "tidewater.predict()"]}
    cell["outputs"] = [{"output_type": "stream", "text": ["3.2 m at 14:05"]}]
    notebook = {
        "nbformat": 4,
        "metadata": {"language_info": {"name": "python"}},
        "cells": [
            {"cell_type": "markdown", "source": ["# Predicting tides\n", "\n", "A first run."]},
            cell,
            {"cell_type": "markdown", "source": "## Currents\n\nStations that publish them."},
            {"cell_type": "raw", "source": "raw text"},
        ],
    }
    (tmp_path / "tides.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    assert folder_docs.read_problem(tmp_path / "tides.ipynb", "tides.ipynb") is None
    assert folder_docs.read_file(tmp_path / "tides.ipynb") == (
        "Predicting tides",
        [("Predicting tides", "A first run."), ("Currents", "Stations that publish them.")],
    )
    (tmp_path / "bad.ipynb").write_text('{"cells": 3}', encoding="utf-8")
    with pytest.raises(ValueError, match="not a Jupyter notebook of nbformat 4"):
        folder_docs.read_file(tmp_path / "bad.ipynb")


def test_an_e_mail_is_read_as_a_page_titled_by_its_subject(folder_docs, tmp_path):
    """Its encoded subject decoded, who wrote to whom and when kept as text, its plain
    body's paragraphs read, its attachment left out."""
    message = (
        "From: Mara <mara@example.org>\nTo: council@example.org\n"
        "Subject: =?utf-8?q?Travel_grants=3A_na=C3=AFve_limits?=\n"
        "Date: Fri, 22 Nov 2024 10:00:00 +0000\nMIME-Version: 1.0\n"
        'Content-Type: multipart/mixed; boundary="b"\n\n'
        "--b\nContent-Type: text/plain; charset=utf-8\n\n"
        "I propose we drop the\nexperimental label.\n\nThanks, Mara\n"
        '--b\nContent-Type: application/pdf\nContent-Disposition: attachment; filename="x.pdf"\n'
        "Content-Transfer-Encoding: base64\n\nJVBERi0xLjQK\n--b--\n"
    )
    (tmp_path / "grants.eml").write_text(message, encoding="utf-8")
    assert folder_docs.read_file(tmp_path / "grants.eml") == (
        "Travel grants: naïve limits",
        [
            (
                "Travel grants: naïve limits",
                "From Mara <mara@example.org> to council@example.org, "
                "Fri, 22 Nov 2024 10:00:00 +0000\n\n"
                "I propose we drop the experimental label.\n\nThanks, Mara",
            )
        ],
    )
    (tmp_path / "notes.eml").write_text("Just some notes.\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not an e-mail"):
        folder_docs.read_file(tmp_path / "notes.eml")


def test_a_hugo_pages_toml_front_matter_gives_its_title_and_is_no_section(folder_docs, tmp_path):
    """Hugo and Zola fence TOML front matter with "+++"; CommonMark reads it as a paragraph,
    and the page's first heading would be its title."""
    page = '+++\ntitle = "Backing up a cluster"\nweight = 3\n+++\n\n'
    page += "## Before you start\n\nStop the writers first.\n"
    (tmp_path / "backup.md").write_text(page, encoding="utf-8")
    assert folder_docs.read_file(tmp_path / "backup.md") == (
        "Backing up a cluster",
        [("Before you start", "Stop the writers first.")],
    )


def test_sections_keep_the_prose_and_drop_markup_badges_and_code(folder_docs):
    readme = dict(folder_docs.read_sections(SAMPLE_DOCS / "README.md"))
    assert readme["Installation"] == (
        "Tidewater needs Python 3.10 or newer. Install it from PyPI with pip install "
        "tidewater, or read the installation notes for other platforms."
    )  # the code fence after it is gone
    rst = dict(folder_docs.read_sections(SAMPLE_DOCS / "configuration.rst"))
    assert rst["Stations"] == (
        "The default station is Brest, on the Atlantic coast of France. Other stations are "
        "added with tidewater add-station, which downloads the station's harmonic constants "
        "once and keeps them in the cache folder.\n\n"
        "The cache folder is ~/.cache/tidewater and can be deleted safely."
    )  # a Sphinx role read as its text, the note without its "Note" label
    html = dict(folder_docs.read_sections(SAMPLE_DOCS / "changelog.html"))
    assert html["Version 2.0"] == (
        "Version 2.0 added tidal current predictions for stations that publish current "
        "constants. The --currents option prints them beside the tide table.\n\n"
        "Released in March 2024."
    )
    every = [t for p in SAMPLE_DOCS.iterdir() for _, t in folder_docs.read_sections(p)]
    for marker in ("![", "](", "shields.io", "badge", "|", ".. ", "::", "``", "<", "```", "#"):
        assert not [t for t in every if marker in t], marker


CODE_RST = """\
Widgets
=======

Bind the button in the constructor::

    self.button = btn
    -----------------

.. code-block:: python

   def get_requires_for_build_editable(config_settings=None):
   ==========================================================

The button is then ready.
"""

CODE_MD = """\
# Build

Run the build:

    # not a heading: an indented code block
    make all

```python
# not a heading either: fenced code
def main(): ...
```

Setext heading
--------------

Done.
"""


@pytest.mark.parametrize(
    ("name", "text", "sections"),
    [
        (
            "widgets.rst",
            CODE_RST,
            [("Widgets", "Bind the button in the constructor:\n\nThe button is then ready.")],
        ),
        ("build.md", CODE_MD, [("Build", "Run the build:"), ("Setext heading", "Done.")]),
    ],
)
def test_a_code_line_is_never_a_heading_nor_text(folder_docs, tmp_path, name, text, sections):
    (tmp_path / name).write_text(text, encoding="utf-8")
    assert folder_docs.read_sections(tmp_path / name) == sections


def test_a_folder_is_read_files_only_with_a_line_for_each_file_refused(folder_docs, tmp_path):
    (tmp_path / "guide.md").write_text("# Guide\n\nRead me.\n", encoding="utf-8")
    (tmp_path / "notes.md").mkdir()  # a folder whose name looks like a file
    (tmp_path / "notes.md" / "inner.txt").write_text("Inside.\n", encoding="utf-8")
    (tmp_path / ".draft.md").write_text("# Draft\n", encoding="utf-8")
    (tmp_path / "photo.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (tmp_path / "latin.txt").write_bytes("caf\xe9".encode("latin-1"))
    (tmp_path / "data.csv").write_text("a,b\n", encoding="utf-8")
    (tmp_path / "NEWS").write_text("Release 2.1\n===========\n\nFaster sync.\n", encoding="utf-8")
    (tmp_path / "v2.1-ReleaseNotes").write_text("Release 2.1 notes.\n", encoding="utf-8")
    found = folder_docs.folder_files(tmp_path)
    assert sorted(found.files) == ["NEWS", "guide.md", "notes.md/inner.txt", "v2.1-ReleaseNotes"]
    assert folder_docs.read_sections(tmp_path / "NEWS") == [("Release 2.1", "Faster sync.")]
    assert found.refused == (
        "not ingested: .draft.md (a hidden name, starting with '.')",
        "not ingested: data.csv (not .md, .markdown, .rst, .txt, .html, .htm, .ipynb, .eml, "
        ".pdf, .docx or no extension)",
        "not ingested: latin.txt (not UTF-8 text)",
        "not ingested: photo.md (binary content)",
    )


def test_the_report_says_what_was_ingested_and_when_nothing_was(folder_docs):
    assert folder_docs.IngestReport(1, 4, 0).line() == "ingested 1 file (4 unchanged, 0 removed)"
    assert folder_docs.IngestReport(0, 5, 2).line() == "ingested 0 files (5 unchanged, 2 removed)"
    assert folder_docs.IngestReport(0, 4, 0).line() == (
        "nothing to ingest: 0 files (4 unchanged, 0 removed)"
    )


def test_the_store_lives_beside_the_folder_never_inside_it(folder_docs, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    assert folder_docs.store_dir(docs, None) == tmp_path / "docs.cage-chat"
    assert folder_docs.store_dir(docs, tmp_path / "elsewhere") == tmp_path / "elsewhere"
    with pytest.raises(ValueError, match="inside the documents' folder"):
        folder_docs.store_dir(docs, docs / ".cage-chat")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--store", "somewhere"], "--store needs --docs DIR (the folder whose store it keeps)"),
        (["--docs", "no/such/folder"], "--docs no/such/folder: not a folder"),
    ],
)
def test_folder_arguments_that_would_do_nothing_are_usage_errors(
    folder_docs, argv, message, capsys
):
    parser = argparse.ArgumentParser(prog="app.py")
    folder_docs.add_folder_arguments(parser)
    with pytest.raises(SystemExit) as exit_:
        folder_docs.check_folder_arguments(parser, parser.parse_args(argv))
    assert exit_.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"app.py: error: {message}"


def test_a_store_inside_the_folder_is_a_usage_error(folder_docs, tmp_path, capsys):
    parser = argparse.ArgumentParser(prog="app.py")
    folder_docs.add_folder_arguments(parser)
    args = parser.parse_args(["--docs", str(tmp_path), "--store", str(tmp_path / "store")])
    with pytest.raises(SystemExit):
        folder_docs.check_folder_arguments(parser, args)
    assert "inside the documents' folder" in capsys.readouterr().err


def test_the_source_label_names_file_and_heading(folder_docs):
    label = folder_docs.source_label
    assert label({"source": "configuration.rst", "heading": "Units"}) == "configuration.rst › Units"
    assert label({"source": "notes.txt", "heading": ""}) == "notes.txt"
    assert label({"title": "Kansas Song", "source": "hotpotqa"}) == "Kansas Song"  # bundled


def test_a_file_without_a_title_is_named_by_its_name_without_its_extension(folder_docs):
    names = ["LGPL-2.1", "Apache-2.0", "notes.txt", "v2.38-ReleaseNotes", "Guide.MD"]
    assert [folder_docs.file_title(Path(n)) for n in names] == [
        "LGPL-2.1",  # not "LGPL-2", the name of another licence
        "Apache-2.0",
        "notes",
        "v2.38-ReleaseNotes",
        "Guide",
    ]
