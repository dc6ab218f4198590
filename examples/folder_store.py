"""A folder of your own documents as the example chats' persisted store (``--docs DIR``).

    DIR (*.md, *.rst, *.txt, *.html; *.pdf when pypdf is installed)
      → sections by heading → prose (markup removed: ``cage_core.prose.prose_paragraphs``)
      → chunks of at most CHUNK_CHARS characters, each named by its file and heading
      → the example's own vector store (embedded, with its CAGE graph), persisted in STORE

STORE is ``--store`` or ``DIR/.cage-chat``; each framework keeps its store in a folder of
its own there (``langchain/``, ``llamaindex/``) with a manifest (``manifest.json``: each
file's SHA-256 and the ids of its chunks in the store). A run hashes the files (their bytes:
nothing is parsed), drops the chunks of deleted and changed files, and parses, embeds and
graphs only the new and changed ones, with a progress bar; it then says how many files it
ingested, e.g. "ingested 1 file (4 unchanged, 0 removed)". Hidden files and folders (STORE
among them) are not read. Without pypdf, PDFs are skipped with one line saying so.

Each source is named by file and heading (:func:`source_label`): ``guide.md › Install``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Protocol

from tqdm import tqdm

from cage_core.extractive import split_sentences
from cage_core.prose import prose_paragraphs

__all__ = [
    "CHUNK_CHARS",
    "PDF_SUFFIX",
    "TEXT_SUFFIXES",
    "Chunk",
    "ChunkStore",
    "IngestReport",
    "LangChainChunkStore",
    "Section",
    "add_folder_arguments",
    "check_folder_arguments",
    "file_chunks",
    "pdf_reader_installed",
    "read_sections",
    "source_label",
    "store_folder",
    "sync_folder",
]

CHUNK_CHARS = 800
"""A chunk's size at most, in characters (a longer single sentence is one chunk)."""
TEXT_SUFFIXES = frozenset({".md", ".markdown", ".rst", ".txt", ".html", ".htm"})
PDF_SUFFIX = ".pdf"
MANIFEST = "manifest.json"
MANIFEST_FORMAT = 1


@dataclass(frozen=True)
class Section:
    """A file's text under one heading (``""``: before the first heading)."""

    heading: str
    paragraphs: tuple[str, ...]


@dataclass(frozen=True)
class Chunk:
    """A chunk of a file's prose; ``position``: its place among the file's chunks."""

    text: str
    source: str
    """The file, relative to the folder, with ``/`` separators."""
    heading: str
    position: int

    @property
    def id(self) -> str:
        return f"{self.source}#{self.position}"

    @property
    def metadata(self) -> dict[str, Any]:
        """What the stores keep: ``title`` (the heading, else the file's stem: CAGE's passage
        title), ``heading``, ``source`` and ``doc_id`` (the file: one document) and
        ``position``."""
        return {
            "title": self.heading or Path(self.source).stem,
            "heading": self.heading,
            "source": self.source,
            "doc_id": self.source,
            "position": self.position,
        }


def source_label(metadata: dict[str, Any]) -> str:
    """``"guide.md › Install"`` for a chunk of a folder (``"guide.md"`` before any heading),
    the ``title`` for any other passage (the bundled ones)."""
    if "heading" not in metadata:
        return str(metadata.get("title", "?"))
    return " › ".join(x for x in (metadata["source"], metadata["heading"]) if x)


# --- reading files -------------------------------------------------------------------------


def read_sections(path: Path) -> list[Section]:
    """The sections of a Markdown, reStructuredText, text, HTML or PDF file, markup removed.

    Raises:
        ValueError: a suffix that is not read here.
        ImportError: a PDF without pypdf installed.
    """
    suffix = path.suffix.lower()
    if suffix == PDF_SUFFIX:
        return _pdf_sections(path)
    if suffix not in TEXT_SUFFIXES:
        raise ValueError(f"{path.name}: not a file the examples read ({suffix or 'no suffix'})")
    text = path.read_text(encoding="utf-8", errors="replace")
    if suffix in (".html", ".htm"):
        return _html_sections(text)
    return _marked_up_sections(text)


def _marked_up_sections(text: str) -> list[Section]:
    """Sections of Markdown, reStructuredText or plain text: a heading is a ``#`` line or a
    line over an underline (reStructuredText, Markdown setext); fenced code is not read for
    headings."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[0].strip() == "---":  # Markdown front matter
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        lines = lines if end is None else lines[end + 1 :]
    sections: list[tuple[str, list[str]]] = [("", [])]
    fence: str | None = None
    for n, line in enumerate(lines):
        stripped = line.strip()
        if fence is not None or stripped.startswith(("```", "~~~")):
            if fence is None:
                fence = stripped[:3]
            elif stripped.startswith(fence):
                fence = None
            sections[-1][1].append(line)
            continue
        following = lines[n + 1] if n + 1 < len(lines) else ""
        if stripped.startswith("#") and stripped.lstrip("#")[:1] in (" ", ""):
            heading = stripped.strip("#").strip()
        elif stripped and _is_rule(following) and not _is_rule(line) and len(stripped) <= 80:
            heading = stripped
        else:
            sections[-1][1].append(line)
            continue
        sections.append((_plain_heading(heading), []))
    return [
        Section(heading, tuple(prose_paragraphs("\n".join(body))))
        for heading, body in sections
        if heading or any(x.strip() for x in body)
    ]


def _is_rule(line: str) -> bool:
    stripped = line.strip()
    return len(stripped) >= 3 and len(set(stripped)) == 1 and not stripped[0].isalnum()


def _plain_heading(heading: str) -> str:
    plain = prose_paragraphs(heading)
    return plain[0] if plain else ""


class _HtmlSections(HTMLParser):
    """Collects an HTML page's paragraphs under its ``h1``–``h6`` headings."""

    HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
    SKIPPED = frozenset({"script", "style", "pre", "nav", "head", "template", "svg", "noscript"})
    BLOCKS = frozenset(
        {
            "p",
            "div",
            "li",
            "br",
            "tr",
            "td",
            "th",
            "section",
            "article",
            "blockquote",
            "dd",
            "dt",
            "ul",
            "ol",
            "table",
            "main",
            "header",
            "footer",
            "figure",
            "figcaption",
            "hr",
        }
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.sections: list[tuple[str, list[str]]] = [("", [])]
        self.text: list[str] = []
        self.skipping = 0
        self.in_heading = False

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag in self.SKIPPED:
            self.skipping += 1
        elif tag in self.HEADINGS:
            self._flush()
            self.in_heading = True
        elif tag in self.BLOCKS:
            self._flush()

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIPPED:
            self.skipping = max(0, self.skipping - 1)
        elif tag in self.HEADINGS and self.in_heading:
            self.sections.append((" ".join("".join(self.text).split()), []))
            self.text = []
            self.in_heading = False
        elif tag in self.BLOCKS:
            self._flush()

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.text.append(data)

    def _flush(self) -> None:
        if not self.in_heading:
            paragraph = " ".join("".join(self.text).split())
            if paragraph:
                self.sections[-1][1].append(paragraph)
            self.text = []


def _html_sections(text: str) -> list[Section]:
    parser = _HtmlSections()
    parser.feed(text)
    parser.close()
    parser._flush()
    return [Section(h, tuple(p)) for h, p in parser.sections if h or p]


def _pdf_sections(path: Path) -> list[Section]:
    """One section per page, named ``page N``."""
    from pypdf import PdfReader  # ImportError: the caller skips PDFs

    pages = PdfReader(str(path)).pages
    return [
        Section(f"page {n}", tuple(prose_paragraphs(p.extract_text() or "")))
        for n, p in enumerate(pages, 1)
    ]


def pdf_reader_installed() -> bool:
    try:
        import pypdf  # noqa: F401
    except ImportError:
        return False
    return True


def file_chunks(path: Path, source: str, max_chars: int = CHUNK_CHARS) -> list[Chunk]:
    """The chunks of one file: each section's paragraphs packed up to ``max_chars`` (a longer
    paragraph split between sentences), never across a heading."""
    chunks: list[Chunk] = []
    for section in read_sections(path):
        pieces = [
            piece
            for paragraph in section.paragraphs
            for piece in (
                [paragraph]
                if len(paragraph) <= max_chars
                else _packed(split_sentences(paragraph), max_chars, " ")
            )
        ]
        for text in _packed(pieces, max_chars, "\n\n"):
            chunks.append(Chunk(text, source, section.heading, len(chunks)))
    return chunks


def _packed(pieces: Sequence[str], max_chars: int, joiner: str) -> list[str]:
    packed: list[str] = []
    for piece in pieces:
        if packed and len(packed[-1]) + len(joiner) + len(piece) <= max_chars:
            packed[-1] += joiner + piece
        else:
            packed.append(piece)
    return packed


# --- the persisted store -------------------------------------------------------------------


class ChunkStore(Protocol):
    """A framework's vector store as the folder sync sees it."""

    def add(self, chunks: Sequence[Chunk]) -> list[str]:
        """Parse (CAGE graphs), embed and store one file's chunks; the ids to delete them by."""
        ...

    def delete(self, ids: Sequence[str]) -> None: ...

    def persist(self) -> None: ...


@dataclass(frozen=True)
class IngestReport:
    """What a sync did: files ingested (new or changed), unchanged, removed, and skipped."""

    ingested: int
    unchanged: int
    removed: int
    skipped: tuple[str, ...] = ()
    """Lines saying which files were not read, and why."""

    def line(self) -> str:
        """``"ingested 1 file (4 unchanged, 0 removed)"``."""
        files = "file" if self.ingested == 1 else "files"
        return (
            f"ingested {self.ingested} {files} ({self.unchanged} unchanged, {self.removed} removed)"
        )

    def lines(self) -> list[str]:
        return [*self.skipped, self.line()]


def add_folder_arguments(parser: argparse.ArgumentParser) -> None:
    """``--docs DIR`` and ``--store PATH``, alike in every example."""
    parser.add_argument(
        "--docs",
        type=Path,
        metavar="DIR",
        help="answer from this folder's .md/.rst/.txt/.html files (and .pdf with pypdf) "
        "instead of the bundled passages",
    )
    parser.add_argument(
        "--store",
        type=Path,
        metavar="PATH",
        help="where the folder's store is kept (default DIR/.cage-chat); a re-run reuses it",
    )


def check_folder_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Exit with a usage error when ``--docs`` is not a folder, or ``--store`` is given
    without ``--docs`` (it would do nothing)."""
    if args.docs is not None and not args.docs.is_dir():
        parser.error(f"--docs {args.docs}: not a folder")
    if args.store is not None and args.docs is None:
        parser.error("--store needs --docs DIR (the folder whose store it keeps)")


def store_folder(docs: Path, store: Path | None, kind: str) -> Path:
    """``STORE/kind``: the folder of one framework's store of ``docs`` (module docstring)."""
    return (store if store is not None else docs / ".cage-chat") / kind


def sync_folder(
    docs: Path, folder: Path, store: ChunkStore, *, progress: bool = True
) -> IngestReport:
    """Bring ``store`` (kept in ``folder``) up to date with the files of ``docs``.

    Changed and deleted files' chunks are deleted, new and changed files are chunked and
    added, with a progress bar on standard error; the store is persisted, then the manifest.
    Nothing is written when nothing changed. A file that cannot be read is skipped (and tried
    again next time), with a line in the report.

    Raises:
        SystemExit: ``docs`` is not a folder.
    """
    if not docs.is_dir():
        raise SystemExit(f"--docs {docs}: not a folder")
    manifest_path = folder / MANIFEST
    old: dict[str, Any] = {}
    if manifest_path.exists():
        old = json.loads(manifest_path.read_text(encoding="utf-8"))["files"]
    files, skipped = _folder_files(docs)
    hashes = {name: hashlib.sha256(path.read_bytes()).hexdigest() for name, path in files.items()}
    changed = [name for name in files if old.get(name, {}).get("sha256") != hashes[name]]
    removed = [name for name in old if name not in files]
    stale = [i for name in (*removed, *changed) if name in old for i in old[name]["ids"]]
    if stale:
        store.delete(stale)
    entries = {name: old[name] for name in files if name not in changed}
    ingested = 0
    bar = tqdm(
        changed, desc="ingesting", unit="file", file=sys.stderr, disable=not progress or not changed
    )
    for name in bar:
        bar.set_postfix_str(name, refresh=False)
        try:
            chunks = file_chunks(files[name], name)
        except Exception as exc:  # a file we cannot read must not stop the others
            skipped.append(f"skipped {name}: {type(exc).__name__}: {exc}")
            continue
        entries[name] = {"sha256": hashes[name], "ids": store.add(chunks) if chunks else []}
        ingested += 1
    if changed or removed or not manifest_path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        store.persist()
        manifest = {"format": MANIFEST_FORMAT, "files": dict(sorted(entries.items()))}
        partial = manifest_path.with_suffix(".tmp")
        partial.write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        os.replace(partial, manifest_path)
    return IngestReport(ingested, len(files) - len(changed), len(removed), tuple(skipped))


def _folder_files(docs: Path) -> tuple[dict[str, Path], list[str]]:
    """The readable files under ``docs`` by relative name (sorted; hidden ones left out) and
    the line saying which PDFs were skipped, if any."""
    files: dict[str, Path] = {}
    pdfs: list[str] = []
    readable = TEXT_SUFFIXES | ({PDF_SUFFIX} if pdf_reader_installed() else frozenset())
    for path in sorted(docs.rglob("*")):
        relative = path.relative_to(docs)
        if any(part.startswith(".") for part in relative.parts) or not path.is_file():
            continue
        suffix = path.suffix.lower()
        if suffix in readable:
            files[relative.as_posix()] = path
        elif suffix == PDF_SUFFIX:
            pdfs.append(relative.as_posix())
    skipped = []
    if pdfs:
        skipped.append(
            f"skipped {len(pdfs)} PDF file{'s' if len(pdfs) > 1 else ''} "
            f"({', '.join(pdfs[:3])}{', …' if len(pdfs) > 3 else ''}): "
            "pip install pypdf to read PDFs"
        )
    return files, skipped


class LangChainChunkStore:
    """The LangChain examples' store: an ``InMemoryVectorStore`` with MiniLM embeddings, kept
    as JSON in ``FOLDER/store.json`` (LangChain's own ``dump``/``load``: no pickle); each
    chunk gets its CAGE graph at ingest (``CageGraphTransformer``), so ``CageRerank`` parses
    nothing at query time. ``vectorstore``: start from this one instead of the saved store."""

    def __init__(self, folder: Path, vectorstore: Any = None) -> None:
        from langchain_core.vectorstores import InMemoryVectorStore

        from cage_langchain import CageGraphTransformer, PackagedMiniLMEmbeddings

        self.path = folder / "store.json"
        self.transformer = CageGraphTransformer()
        if vectorstore is not None:
            self.vectorstore = vectorstore
        elif self.path.exists():
            self.vectorstore = InMemoryVectorStore.load(str(self.path), PackagedMiniLMEmbeddings())
        else:
            self.vectorstore = InMemoryVectorStore(embedding=PackagedMiniLMEmbeddings())

    def add(self, chunks: Sequence[Chunk]) -> list[str]:
        from langchain_core.documents import Document

        documents = [Document(id=c.id, page_content=c.text, metadata=c.metadata) for c in chunks]
        return list(self.vectorstore.add_documents(self.transformer.transform_documents(documents)))

    def delete(self, ids: Sequence[str]) -> None:
        self.vectorstore.delete(list(ids))

    def persist(self) -> None:
        self.vectorstore.dump(str(self.path))
