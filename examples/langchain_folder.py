"""A folder's chunks in a persisted Chroma store kept up to date by LangChain's indexing API.

    files (folder_docs.py: sections by heading)
      → RecursiveCharacterTextSplitter (CHUNK_CHARS) → chunks with ``source`` (the file),
        ``heading``, ``title`` and the chunk's place (``doc_id``, ``position``) and an id
        that is the hash of its text and metadata
      → CageGraphTransformer (graphs, and entries in the link index ``links.sqlite``), for the
        files with a chunk the record manager does not hold
      → ``index(..., cleanup="full")`` with a ``SQLRecordManager`` (``records.sqlite``) over
        Chroma (``chroma/``, cosine space): new chunks added, a changed file's old chunks and a
        deleted file's chunks deleted, nothing written when nothing changed.

Every write is a transaction of SQLite (the record manager, Chroma's log, the link store), and
the order makes a killed sync harmless: a chunk's link entry is written before the chunk,
the chunk before its record, so the next sync finds the chunks of a half-ingested file
without records and writes them again under the same ids (Chroma upserts them). After each
sync the link index holds exactly the chunks in Chroma (entries of deleted chunks removed).
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import chromadb
from chromadb.config import Settings
from folder_docs import IngestReport, folder_files, ingest_lock, read_file
from langchain_chroma import Chroma
from langchain_classic.indexes import SQLRecordManager
from langchain_core.documents import Document
from langchain_core.indexing import index
from langchain_text_splitters import RecursiveCharacterTextSplitter

from cage_core.expansion.index import LinkIndex
from cage_core.metadata import GRAPH_KEY
from cage_langchain import CageGraphTransformer, PackagedMiniLMEmbeddings

__all__ = ["CHUNK_CHARS", "FolderIndex", "file_chunks"]

CHUNK_CHARS = 800
COLLECTION = "cage-chat"
Progress = Callable[[int, int, str], None]
"""Called with (files parsed so far, files to parse, the file's name) as a sync goes."""

_splitter = RecursiveCharacterTextSplitter(chunk_size=CHUNK_CHARS, chunk_overlap=0)


def chunk_id(document: Document) -> str:
    """A UUID of the hash of the chunk's text and metadata (its graph left out): the same
    chunk at the same place keeps its id, any change gives a new one."""
    metadata = {k: v for k, v in document.metadata.items() if k != GRAPH_KEY}
    key = json.dumps([document.page_content, metadata], sort_keys=True)
    return str(uuid.UUID(bytes=hashlib.sha256(key.encode("utf-8")).digest()[:16]))


def file_chunks(path: Path, name: str) -> list[Document]:
    """The chunks of one file, in order, each with its id (:func:`chunk_id`); ``title`` (the
    passage title CAGE links by) is the file's own (``folder_docs.read_file``: its front
    matter's, its first heading, a PDF's or a Word file's), else its name without its
    extension (``folder_docs.file_title``); ``heading`` is the chunk's own."""
    title, read = read_file(path)
    sections = [
        Document(page_content=text, metadata={"source": name, "heading": heading, "title": title})
        for heading, text in read
    ]
    chunks = _splitter.split_documents(sections)
    for position, chunk in enumerate(chunks):
        chunk.metadata.update(doc_id=name, position=position)
        chunk.id = chunk_id(chunk)
    return chunks


class FolderIndex:
    """The store of one folder, kept in ``folder`` (module docstring)."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.links = folder / "links.sqlite"
        with ingest_lock(folder):  # a new store's tables: two chats must not create them at once
            self.vectorstore = Chroma(
                collection_name=COLLECTION,
                embedding_function=PackagedMiniLMEmbeddings(),
                client=chromadb.PersistentClient(
                    path=str(folder / "chroma"), settings=Settings(anonymized_telemetry=False)
                ),
                collection_metadata={"hnsw:space": "cosine"},  # relevance = cosine similarity
            )
            self.records = SQLRecordManager(
                f"chroma/{COLLECTION}", db_url=f"sqlite:///{folder / 'records.sqlite'}"
            )
            self.records.create_schema()
        self.transformer = CageGraphTransformer(link_index=self.links)

    def stored(self) -> dict[str, set[str]]:
        """The ids of the stored chunks of each file."""
        got = self.vectorstore.get(include=["metadatas"])
        out: dict[str, set[str]] = {}
        for chunk_id_, metadata in zip(got["ids"], got["metadatas"]):
            out.setdefault(str((metadata or {}).get("source")), set()).add(chunk_id_)
        return out

    def sync(self, docs: Path, progress: Progress | None = None) -> IngestReport:
        """Bring the store up to date with the files of ``docs`` (module docstring)."""
        found = folder_files(docs)
        refused = list(found.refused)
        chunks: dict[str, list[Document]] = {}
        for name, path in found.files.items():
            try:
                chunks[name] = file_chunks(path, name)
            except Exception as exc:  # a file we cannot read must not stop the others
                refused.append(f"not ingested: {name} ({type(exc).__name__}: {exc})")
                continue
            if not chunks[name]:
                del chunks[name]
                refused.append(f"not ingested: {name} (no text)")
        with ingest_lock(self.folder):
            stored = self.stored()
            in_chroma = set().union(*stored.values())
            ids = [str(c.id) for cs in chunks.values() for c in cs]
            recorded = dict(zip(ids, self.records.exists(ids)))
            lost = [i for i in ids if recorded[i] and i not in in_chroma]  # a killed cleanup
            if lost:
                self.records.delete_keys(lost)
                recorded.update(dict.fromkeys(lost, False))
            changed = [
                name
                for name, cs in chunks.items()
                if not all(recorded[str(c.id)] for c in cs)
                or {c.id for c in cs} != stored.get(name, set())
            ]
            removed = sorted(set(stored) - set(chunks))

            def documents() -> Iterator[Document]:
                done = 0
                for name, cs in chunks.items():
                    if name in changed:
                        if progress is not None:
                            progress(done, len(changed), name)
                        yield from self.transformer.transform_documents(cs)
                        done += 1
                    else:
                        yield from cs  # recorded: index() skips them
                if progress is not None and changed:
                    progress(done, len(changed), "")

            index(
                documents(),
                self.records,
                self.vectorstore,
                cleanup="full",
                source_id_key="source",
                key_encoder=lambda d: str(d.id),
            )
            self._reconcile()
        return IngestReport(len(changed), len(chunks) - len(changed), len(removed), tuple(refused))

    def _reconcile(self) -> None:
        """Chroma and the link index hold exactly the recorded chunks: a chunk a killed sync
        wrote without its record is deleted, and the link entries of chunks not stored."""
        recorded = set(self.records.list_keys())
        in_chroma = set(self.vectorstore.get(include=[])["ids"])
        if in_chroma - recorded:
            self.vectorstore.delete(sorted(in_chroma - recorded))
        if self.links.exists():
            kept = in_chroma & recorded
            with LinkIndex.open(self.links) as links:
                links.remove_many([e.id for e in links.entries() if e.id not in kept])
