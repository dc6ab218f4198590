"""examples/folder_store.py reads a folder of documentation files into chunks named by file
and heading, with no markup left (model-free: the store itself is exercised by
tests/examples/test_examples.py and tests/examples/test_web_chat.py)."""

import argparse
import importlib.util
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SAMPLE_DOCS = EXAMPLES / "sample_docs"


@pytest.fixture(scope="module")
def folder_store():
    spec = importlib.util.spec_from_file_location("folder_store", EXAMPLES / "folder_store.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("folder_store", module)
    spec.loader.exec_module(module)
    return module


def _chunks(folder_store, name):
    return folder_store.file_chunks(SAMPLE_DOCS / name, name)


def test_each_sample_file_is_cut_at_its_headings(folder_store):
    assert {
        name: [(c.heading, c.position) for c in _chunks(folder_store, name)]
        for name in ("README.md", "configuration.rst", "faq.txt", "changelog.html")
    } == {
        "README.md": [("Tidewater", 0), ("Installation", 1), ("Usage", 2), ("License", 3)],
        "configuration.rst": [("Configuration file", 0), ("Stations", 1), ("Units", 2)],
        "faq.txt": [
            ("Why are the predicted times off by one hour?", 0),
            ("How accurate are the predictions?", 1),
        ],
        "changelog.html": [("Version 2.0", 0), ("Version 1.4", 1)],
    }


def test_chunks_keep_the_prose_and_drop_markup_badges_and_code(folder_store):
    readme = _chunks(folder_store, "README.md")
    assert readme[1].text == (
        "Tidewater needs Python 3.10 or newer. Install it from PyPI with pip install "
        "tidewater, or read the installation notes for other platforms."
    )  # the code fence after it is gone
    rst = _chunks(folder_store, "configuration.rst")
    assert rst[1].text.endswith("The cache folder is ~/.cache/tidewater and can be deleted safely.")
    html = _chunks(folder_store, "changelog.html")
    assert html[0].text == (
        "Version 2.0 added tidal current predictions for stations that publish current "
        "constants. The --currents option prints them beside the tide table.\n\n"
        "Released in March 2024."
    )
    every = [c.text for p in SAMPLE_DOCS.iterdir() for c in _chunks(folder_store, p.name)]
    for marker in ("![", "](", "shields.io", "badge", "|", ".. ", "::", "``", "<", "```", "#"):
        assert not [t for t in every if marker in t], marker


def test_a_chunk_is_named_by_its_file_and_heading(folder_store):
    chunk = _chunks(folder_store, "configuration.rst")[2]
    assert chunk.metadata == {
        "title": "Units",
        "heading": "Units",
        "source": "configuration.rst",
        "doc_id": "configuration.rst",
        "position": 2,
    }
    assert folder_store.source_label(chunk.metadata) == "configuration.rst › Units"
    assert folder_store.source_label({"title": "Kansas Song", "source": "hotpotqa"}) == (
        "Kansas Song"
    )  # a bundled passage


def test_long_sections_are_packed_into_chunks_of_at_most_the_limit(folder_store, tmp_path):
    sentence = "The tide rises and falls twice a day on this coast. "
    (tmp_path / "long.txt").write_text("Tides\n=====\n\n" + sentence * 40, encoding="utf-8")
    chunks = folder_store.file_chunks(tmp_path / "long.txt", "long.txt", max_chars=200)
    assert all(len(c.text) <= 200 for c in chunks) and len(chunks) == 14  # 3 sentences each
    assert " ".join(c.text for c in chunks) == (sentence * 40).strip()
    assert {c.heading for c in chunks} == {"Tides"}


def test_the_report_says_how_many_files_were_ingested(folder_store):
    assert folder_store.IngestReport(1, 4, 0).line() == "ingested 1 file (4 unchanged, 0 removed)"
    assert folder_store.IngestReport(0, 5, 2).line() == "ingested 0 files (5 unchanged, 2 removed)"


def test_a_file_the_examples_do_not_read_is_refused(folder_store, tmp_path):
    (tmp_path / "data.csv").write_text("a,b\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not a file the examples read"):
        folder_store.read_sections(tmp_path / "data.csv")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--store", "somewhere"], "--store needs --docs DIR (the folder whose store it keeps)"),
        (["--docs", "no/such/folder"], "--docs no/such/folder: not a folder"),
    ],
)
def test_folder_arguments_that_would_do_nothing_are_usage_errors(
    folder_store, argv, message, capsys
):
    parser = argparse.ArgumentParser(prog="app.py")
    folder_store.add_folder_arguments(parser)
    with pytest.raises(SystemExit) as exit_:
        folder_store.check_folder_arguments(parser, parser.parse_args(argv))
    assert exit_.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"app.py: error: {message}"


def _one_page_pdf(lines: list[str]) -> bytes:
    """A one-page PDF showing ``lines`` in Helvetica, written by hand."""
    shown = " ".join(f"({line}) '" for line in lines)
    stream = f"BT /F1 12 Tf 72 720 Td 14 TL {shown} ET"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        "/Resources << /Font << /F1 5 0 R >> >> >>",
        f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = "%PDF-1.4\n", []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n{body}\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n"
    out += "".join(f"{o:010d} 00000 n \n" for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    return out.encode("latin-1")


def test_a_pdf_is_read_page_by_page_when_pypdf_is_installed(folder_store, tmp_path):
    pytest.importorskip(
        "pypdf", reason="PDFs are skipped without pypdf (tests/examples/test_examples.py)"
    )
    (tmp_path / "gauge.pdf").write_bytes(
        _one_page_pdf(["The harbour master keeps the tide gauge.", "It is read every morning."])
    )
    [chunk] = folder_store.file_chunks(tmp_path / "gauge.pdf", "gauge.pdf")
    assert (chunk.heading, chunk.text) == (
        "page 1",
        "The harbour master keeps the tide gauge. It is read every morning.",
    )
