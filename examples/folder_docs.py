"""A folder of your own documents for the example chats (``--docs DIR``): which files are
read, their sections, where their store lives.

    DIR/**  (*.md, *.rst, *.txt, *.html, *.ipynb, *.eml, *.pdf, *.docx, and files with no
             extension, README, NEWS, read as text; hidden names, other types and binary
             files refused, each with a line saying so)
      → HTML by each format's own parser (markdown-it-py for Markdown, its YAML front matter
        read by mdit-py-plugins' front_matter and PyYAML, its TOML front matter by
        cage_core.names.front_matter; docutils for reStructuredText and text, the page itself
        for HTML; a Jupyter notebook as the Markdown of its cells, notebook_text.py; an
        e-mail as a page titled by its subject, email_text.py)
      → sections: each heading (``h1``–``h6``) with its paragraphs, read by BeautifulSoup
        (code blocks, scripts, navigation and images dropped), so a code line is never a heading
        (a PDF: its outline's entries, read by pypdf, pdf_sections.py; a Word file: its
        heading paragraphs, read by python-docx, docx_sections.py)
      → the framework's own splitter and indexing API (langchain_folder.py,
        llamaindex_query_engine/app.py)

The store is ``--store`` or ``DIR.cage-chat`` beside the folder, never inside it
(:func:`store_dir`). Opening a store and each sync hold an exclusive lock of the store
(:func:`ingest_lock`), so two chats on one folder never create a new store's tables at once,
and ingest one after the other.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from bs4 import BeautifulSoup
from docutils import nodes
from docutils.core import publish_parts
from docutils.parsers.rst import roles
from docx_sections import docx_problem, read_docx
from email_text import email_html
from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin
from notebook_text import notebook_markdown
from pdf_sections import pdf_problem, read_pdf
from tqdm import tqdm

from cage_core.expansion.documents import TITLE_CHARS
from cage_core.names.centered_titles import clean_title
from cage_core.names.documents import document_title
from cage_core.names.front_matter import front_matter_block
from cage_core.names.sources import file_extension

__all__ = [
    "SUFFIXES",
    "TYPES_READ",
    "BINARY_TYPES",
    "CONVERTED_TYPES",
    "BinaryType",
    "ConvertedType",
    "FolderFiles",
    "is_read_type",
    "IngestReport",
    "add_folder_arguments",
    "check_folder_arguments",
    "extension",
    "file_title",
    "folder_files",
    "ingest_lock",
    "progress_bar",
    "read_file",
    "read_problem",
    "read_sections",
    "source_label",
    "store_dir",
    "text_problem",
]


@dataclass(frozen=True)
class BinaryType:
    """A file type that is not text: how a file of it is read (its title and sections;
    ``ValueError`` for one its library cannot read), and why a file with its extension is not
    of it ("not a PDF"; ``None`` when it is)."""

    read: Callable[[Path], tuple[str, list[tuple[str, str]]]]
    problem: Callable[[Path], str | None]


BINARY_TYPES = {
    ".pdf": BinaryType(read_pdf, pdf_problem),
    ".docx": BinaryType(read_docx, docx_problem),
}
"""The types read by their own module, by extension; every other type is read as text."""


@dataclass(frozen=True)
class ConvertedType:
    """A text file type read as another: what its text converts to (``ValueError`` for a file
    that is not of it), and the type that text is read as."""

    convert: Callable[[str], str]
    read_as: str


CONVERTED_TYPES = {
    ".ipynb": ConvertedType(notebook_markdown, ".md"),
    ".eml": ConvertedType(email_html, ".html"),
}
"""A Jupyter notebook as the Markdown of its cells (:mod:`notebook_text`), an e-mail as a page
titled by its subject (:mod:`email_text`)."""
SUFFIXES = (".md", ".markdown", ".rst", ".txt", ".html", ".htm", *CONVERTED_TYPES, *BINARY_TYPES)
"""The file types read (a ``.txt`` file is read as reStructuredText: plain prose is valid reST;
the types of :data:`CONVERTED_TYPES` as what they convert to;
the types of :data:`BINARY_TYPES` by their own modules: ``.pdf``, ``.docx``);
a file with no extension at all (``README``, ``NEWS``, ``v2.38-ReleaseNotes``) is read as a
``.txt`` one (:func:`is_read_type`)."""
TYPES_READ = f"{', '.join(SUFFIXES)} or no extension"
"""The types read, as the lines for the files refused say them."""
STORE_SUFFIX = ".cage-chat"
HEADINGS = ["h1", "h2", "h3", "h4", "h5", "h6"]
BLOCKS = ["p", "li", "dt", "dd", "td", "th", "blockquote", "figcaption", "caption", "div"]
DROPPED = ["script", "style", "pre", "nav", "head", "template", "svg", "noscript", "iframe"]
# Sphinx's roles, unknown to plain docutils: read as their text, not as an error
SPHINX_ROLES = (
    "abbr any attr class code command data doc download envvar exc file func guilabel kbd "
    "keyword meth mod menuselection obj option program py:attr py:class py:exc py:func "
    "py:meth py:mod py:obj ref samp term"
).split()
for _role in SPHINX_ROLES:
    roles.register_generic_role(_role, nodes.inline)


def extension(path: Path) -> str:
    """``path``'s extension, lower case, as CAGE reads a file name
    (:func:`cage_core.names.sources.file_extension`): ``".md"``, ``".mp4"``; "" for none
    (``NEWS``, ``v2.38-ReleaseNotes``, ``notes-2.38``: a version, no extension)."""
    return file_extension(path.name).lower()


def file_title(path: Path) -> str:
    """The name of a file that writes no title: its name without its :func:`extension`, a
    version kept (``LGPL-2.1`` stays ``LGPL-2.1``, not ``LGPL-2``, another file's name)."""
    return path.name[: len(path.name) - len(extension(path))] or path.name


def is_read_type(path: Path) -> bool:
    """Whether the examples read files of ``path``'s type: its :func:`extension` is one of
    :data:`SUFFIXES`, or it has none (read as text)."""
    return extension(path) in (*SUFFIXES, "")


def _html(suffix: str, text: str) -> tuple[str, str]:
    """A file's ``text`` of type ``suffix`` as HTML, and the title its YAML front matter gives
    ("" for none; TOML front matter is left out of the page, and its title is read with the
    opening's, :func:`read_file`)."""
    if suffix in (".md", ".markdown"):
        if (block := front_matter_block(text)).startswith("+++"):  # TOML: Hugo's, Zola's
            text = text[len(block) :]  # mdit-py-plugins reads YAML front matter only
        markdown = MarkdownIt("commonmark").use(front_matter_plugin)
        tokens = markdown.parse(text)
        front = next((t.content for t in tokens if t.type == "front_matter"), "")
        return str(markdown.renderer.render(tokens, markdown.options, {})), _front_title(front)
    if suffix in (".rst", ".txt", ""):
        settings = {
            "report_level": 5,  # no system messages in the text
            "halt_level": 5,
            "file_insertion_enabled": False,  # ``.. include::`` reads no other file
            "raw_enabled": False,
            "_disable_config": True,
        }
        parts = publish_parts(text, writer="html5", settings_overrides=settings)
        return str(parts["html_body"]), ""
    return text, ""


def _front_title(front: str) -> str:
    """The ``title`` of a Markdown file's YAML front matter, spaces collapsed and cut as CAGE
    cuts a title (``clean_title``); "" for none, or for front matter that is no YAML mapping."""
    try:
        fields = yaml.safe_load(front) if front else None
    except yaml.YAMLError:
        return ""
    title = fields.get("title") if isinstance(fields, dict) else None
    return clean_title(title) if isinstance(title, str) else ""


def read_sections(path: Path) -> list[tuple[str, str]]:
    """``(heading, text)`` for each heading of a file with text under it (``""``: before the
    first heading); the text is the section's paragraphs, joined by blank lines, without markup
    (:func:`read_file`, its sections).

    Raises:
        ValueError: a type not read (:func:`is_read_type`).
        UnicodeDecodeError: a file that is not UTF-8.
    """
    return read_file(path)[1]


def read_file(path: Path) -> tuple[str, list[tuple[str, str]]]:
    """A file's title — a Markdown file's front matter ``title``, else the title CAGE reads in
    a document's opening (:func:`cage_core.names.documents.document_title`: a ``Title:`` or
    e-mail's ``Subject:`` field, HTML's ``<title>``, a first heading, a plain text's centered
    title: the GPL's "GNU GENERAL PUBLIC LICENSE Version 3, 29 June 2007"), else its first
    heading as its parser reads it, with text under it or not (a reST title over sections:
    "Util-linux 2.38 Release Notes" above "Release highlights"), else its name
    (:func:`file_title`) — and its sections (:func:`read_sections`).

    Raises:
        ValueError: a type not read (:func:`is_read_type`), a ``.pdf`` or ``.docx`` that
            pypdf or python-docx cannot read, or an ``.ipynb`` or ``.eml`` that is no
            notebook or e-mail.
        UnicodeDecodeError: a file that is not UTF-8.
    """
    suffix = extension(path)
    if not is_read_type(path):
        raise ValueError(f"{path.name}: not a file the examples read")
    if binary := BINARY_TYPES.get(suffix):
        title, sections = binary.read(path)
        return title or file_title(path), sections
    source = path.read_text(encoding="utf-8")
    if converted := CONVERTED_TYPES.get(suffix):
        source, suffix = converted.convert(source), converted.read_as
    page, front_title = _html(suffix, source)
    soup = BeautifulSoup(page, "html.parser")
    for dropped in soup(DROPPED):
        dropped.decompose()
    for label in soup.select(".admonition-title, .topic-title, .sidebar-title"):
        label.decompose()  # docutils' "Note" above a note
    for br in soup("br"):
        br.replace_with(" ")
    sections: list[tuple[str, list[str]]] = [("", [])]
    for element in soup.find_all(HEADINGS + BLOCKS):
        text = " ".join(element.get_text().split())
        if element.name in HEADINGS:
            sections.append((text, []))
        elif text and element.find(HEADINGS + BLOCKS) is None:  # innermost blocks only
            sections[-1][1].append(text)
    written = front_title or document_title(source[:TITLE_CHARS])  # as CAGE reads an opening
    title = written or next((heading for heading, _ in sections[1:] if heading), file_title(path))
    return title, [(heading, "\n\n".join(body)) for heading, body in sections if body]


def text_problem(data: bytes) -> str | None:
    """Why ``data`` is not a text file (``None`` when it is UTF-8 text without NUL bytes)."""
    if b"\x00" in data:
        return "binary content"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8 text"
    return None


@dataclass(frozen=True)
class FolderFiles:
    """The files of a folder that are read (by name relative to it, ``/``-separated, sorted)
    and a line for each one that is not."""

    files: dict[str, Path]
    refused: tuple[str, ...]


def folder_files(docs: Path) -> FolderFiles:
    """The readable files under ``docs`` (:class:`FolderFiles`): files only (a folder or a
    link to one is walked, not read), not hidden (no part of the name starts with "."), of a
    type read (:func:`is_read_type`), UTF-8 text."""
    files: dict[str, Path] = {}
    refused: list[str] = []
    for path in sorted(docs.rglob("*")):
        name = path.relative_to(docs).as_posix()
        if not path.is_file():
            continue
        if (problem := read_problem(path, name)) is not None:
            refused.append(f"not ingested: {name} ({problem})")
        else:
            files[name] = path
    return FolderFiles(files, tuple(refused))


def read_problem(path: Path, name: str) -> str | None:
    """Why the file at ``path``, named ``name`` in its folder (``/``-separated), is not read
    (``None``: it is): a hidden name (a part starting with "."), a type not read
    (:func:`is_read_type`), content that is not UTF-8 text, or for a type of
    :data:`BINARY_TYPES` its own check (a ``.pdf`` with no PDF header, a ``.docx`` that is no
    ZIP archive)."""
    if any(part.startswith(".") for part in name.split("/")):
        return "a hidden name, starting with '.'"
    if not is_read_type(path):
        return f"not {TYPES_READ}"
    if binary := BINARY_TYPES.get(extension(path)):
        return binary.problem(path)
    return text_problem(path.read_bytes())


@dataclass(frozen=True)
class IngestReport:
    """What a sync did: files ingested (new or changed), unchanged, removed; lines for the
    files not read."""

    ingested: int
    unchanged: int
    removed: int
    refused: tuple[str, ...] = field(default=())

    def line(self) -> str:
        """``"ingested 1 file (4 unchanged, 0 removed)"``; ``"nothing to ingest: ..."`` when no
        file changed."""
        counts = f"({self.unchanged} unchanged, {self.removed} removed)"
        if self.ingested == 0 and self.removed == 0:
            return f"nothing to ingest: 0 files {counts}"
        files = "file" if self.ingested == 1 else "files"
        return f"ingested {self.ingested} {files} {counts}"

    def lines(self) -> list[str]:
        return [*self.refused, self.line()]


def store_dir(docs: Path, store: Path | None) -> Path:
    """Where the store of ``docs`` lives: ``store``, else ``DIR.cage-chat`` beside ``DIR``.

    Raises:
        ValueError: ``store`` is inside ``docs`` (the store would be read as documents, and
            a loader over the folder would meet a folder among its files).
    """
    docs = docs.resolve()
    chosen = (store if store is not None else docs.with_name(docs.name + STORE_SUFFIX)).resolve()
    if chosen == docs or chosen.is_relative_to(docs):
        raise ValueError(f"--store {chosen}: inside the documents' folder {docs}; keep it beside")
    return chosen


@contextmanager
def ingest_lock(folder: Path) -> Iterator[None]:
    """Hold ``folder/ingest.lock`` exclusively (``fcntl.flock``; waits for another holder)."""
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / "ingest.lock", os.O_CREAT | os.O_RDWR, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def progress_bar() -> Callable[[int, int, str], None]:
    """A progress callback (files done, files to do, the file's name) drawing a ``tqdm`` bar on
    standard error."""
    bar: list[tqdm[Any]] = []

    def update(done: int, total: int, name: str) -> None:
        if not bar:
            bar.append(tqdm(total=total, desc="ingesting", unit="file", file=sys.stderr))
        bar[0].n = done
        bar[0].set_postfix_str(name, refresh=True)
        if done == total:
            bar[0].close()

    return update


def source_label(metadata: dict[str, Any]) -> str:
    """``"guide.md › Install"`` for a chunk of a folder (``"guide.md"`` before any heading),
    the ``title`` for any other passage (the bundled ones)."""
    if "heading" not in metadata:
        return str(metadata.get("title", "?"))
    return " › ".join(x for x in (metadata["source"], metadata["heading"]) if x)


def add_folder_arguments(parser: argparse.ArgumentParser) -> None:
    """``--docs DIR`` and ``--store PATH``, alike in every example."""
    parser.add_argument(
        "--docs",
        type=Path,
        metavar="DIR",
        help="answer from this folder's .md/.rst/.txt/.html/.pdf/.docx files (and those with no "
        "extension, README, NEWS) instead of the bundled passages",
    )
    parser.add_argument(
        "--store",
        type=Path,
        metavar="PATH",
        help="where the folder's store is kept (default DIR.cage-chat, beside DIR); "
        "a re-run reuses it",
    )


def check_folder_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Exit with a usage error when ``--docs`` is not a folder, ``--store`` is given without
    ``--docs`` (it would do nothing) or inside it."""
    if args.docs is not None and not args.docs.is_dir():
        parser.error(f"--docs {args.docs}: not a folder")
    if args.store is not None and args.docs is None:
        parser.error("--store needs --docs DIR (the folder whose store it keeps)")
    if args.docs is not None:
        try:
            store_dir(args.docs, args.store)
        except ValueError as exc:
            parser.error(str(exc))
