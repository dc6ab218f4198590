"""examples/llamaindex_folder.py: a file is one LlamaIndex Document, cut at its headings."""

import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.models  # the sync embeds with MiniLM and parses with spaCy

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def synced(tmp_path_factory):
    """The sample folder synced into a fresh store: the store's nodes (id → metadata, text)."""
    sys.path.insert(0, str(EXAMPLES))
    try:
        from llamaindex_folder import FolderIndex
    finally:
        sys.path.remove(str(EXAMPLES))
    index = FolderIndex(tmp_path_factory.mktemp("store"))
    index.sync(EXAMPLES / "sample_docs", progress=False)
    got = index.collection.get(include=["metadatas", "documents"])
    return {i: (m, t) for i, m, t in zip(got["ids"], got["metadatas"], got["documents"])}


def test_every_node_of_a_file_is_of_one_document_the_file(synced):
    """Routing and the document view read ``ref_doc_id``: a file, not one of its sections."""
    readme = {i: m for i, (m, _) in synced.items() if m["source"] == "README.md"}
    assert len(readme) > 1
    assert {m["ref_doc_id"] for m in readme.values()} == {"README.md"}
    assert sorted(readme) == [f"README.md#{n}" for n in range(len(readme))]
    assert {m["title"] for m in readme.values()} == {"Tidewater"}
    assert all("sections" not in m for m, _ in synced.values())


def test_a_node_holds_one_sections_text_under_that_sections_heading(synced):
    """No node crosses a heading: each holds text of the section its ``heading`` names."""
    headings = {m["heading"] for m, _ in synced.values() if m["source"] == "README.md"}
    assert headings == {"Tidewater", "Installation", "Usage", "License"}
    (install,) = [t for m, t in synced.values() if m["heading"] == "Installation"]
    assert install.startswith("Tidewater needs Python 3.10 or newer.")
    assert "Usage" not in install and "MIT" not in install
