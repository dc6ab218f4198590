"""A folder's chunks in a persisted Chroma store kept up to date by LlamaIndex's
``IngestionPipeline`` with a docstore (upserts and deletes).

    files (folder_docs.py) → SimpleDirectoryReader with a reader per type
      (:class:`SectionReader`: one Document per file, id its path ``"file"``, metadata
      ``source``, ``title`` and where its sections start)
      → IngestionPipeline(:class:`SectionSplitter` (each section by a SentenceSplitter, each
        node with its ``heading``, node ids ``"file#i"``), CageGraphExtractor
        (graphs, and entries in the link index ``links.sqlite``), MiniLM embeddings;
        docstore_strategy=UPSERTS_AND_DELETE) over Chroma (``chroma/``)
      → the docstore (``docstore.json``: each Document's hash) written to a temporary file
        and renamed over the old one.

A killed sync leaves the previous docstore whole (the rename is atomic) and Chroma with
its own transactions; the next sync first deletes from Chroma the nodes of Documents the
docstore does not hold (written by the killed sync), then the pipeline ingests what changed:
every node is in Chroma once, under an id fixed by its place. After each sync the link index
holds exactly the nodes in Chroma.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

import chromadb
from chromadb.config import Settings
from folder_docs import IngestReport, folder_files, ingest_lock, read_file
from llama_index.core import Document, SimpleDirectoryReader, VectorStoreIndex
from llama_index.core.bridge.pydantic import Field
from llama_index.core.ingestion import DocstoreStrategy, IngestionPipeline
from llama_index.core.node_parser import NodeParser, SentenceSplitter
from llama_index.core.node_parser.node_utils import build_nodes_from_splits
from llama_index.core.readers.base import BaseReader
from llama_index.core.schema import BaseNode
from llama_index.core.storage.docstore import SimpleDocumentStore
from llama_index.vector_stores.chroma import ChromaVectorStore

from cage_core.expansion.index import LinkIndex
from cage_llamaindex import CageGraphExtractor, PackagedMiniLMEmbedding

__all__ = ["FolderIndex", "SectionReader", "SectionSplitter"]

COLLECTION = "cage-chat"
METADATA = ["source", "heading", "title"]
SECTIONS_KEY = "sections"
SEPARATOR = "\n\n"


class SectionReader(BaseReader):
    """One Document per file (folder_docs.read_file), id its path in the folder (``source``):
    its sections' texts one after the other, with the file's ``title`` and where each section
    starts (``sections``, read by :class:`SectionSplitter`)."""

    def load_data(self, file: Path, extra_info: dict[str, Any] | None = None) -> list[Document]:
        source = str((extra_info or {})["source"])
        title, sections = read_file(Path(file))
        starts, text = [], ""
        for heading, body in sections:
            text += SEPARATOR if text else ""
            starts.append((len(text), heading))
            text += body
        if not text:
            return []
        return [
            Document(
                id_=source,
                text=text,
                metadata={
                    "source": source,
                    "title": title,
                    SECTIONS_KEY: json.dumps(starts),
                },
                excluded_embed_metadata_keys=[*METADATA, SECTIONS_KEY],
                excluded_llm_metadata_keys=[*METADATA, SECTIONS_KEY],
            )
        ]


class SectionSplitter(NodeParser):
    """Each file Document cut at its sections (``sections``), each section split by
    ``splitter``: no node crosses a heading; each node has its section's ``heading`` and the
    Document's other metadata (not ``sections``: ``include_metadata`` is off, so the base
    class does not copy the Document's metadata back)."""

    include_metadata: bool = False
    splitter: SentenceSplitter = Field(
        default_factory=lambda: SentenceSplitter(chunk_size=256, chunk_overlap=0)
    )

    def _parse_nodes(
        self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any
    ) -> list[BaseNode]:
        parsed: list[BaseNode] = []
        for node in nodes:
            text = node.get_content()
            metadata = {k: v for k, v in node.metadata.items() if k != SECTIONS_KEY}
            starts = json.loads(node.metadata.get(SECTIONS_KEY, "[]")) or [(0, "")]
            ends = [start for start, _ in starts[1:]] + [len(text)]
            headed = [
                (chunk, heading)
                for (start, heading), end in zip(starts, ends)
                for chunk in self.splitter.split_text(text[start:end])
            ]
            built = build_nodes_from_splits([c for c, _ in headed], node, id_func=self.id_func)
            for child, (_, heading) in zip(built, headed):
                child.metadata = {**metadata, "heading": heading}
            parsed.extend(built)
        return parsed


def _file(doc_id: str, files: Collection[str]) -> str:
    """The file a stored Document id stands for: the id (a file's path), or, for an id this
    example wrote per section before (``"file#n"``), its file."""
    if doc_id in files:
        return doc_id
    head, mark, tail = doc_id.rpartition("#")
    return head if mark and tail.isdigit() else doc_id


class FolderIndex:
    """The store of one folder, kept in ``folder`` (module docstring)."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.links = folder / "links.sqlite"
        self.docstore_path = folder / "docstore.json"
        with ingest_lock(folder):  # a new store's tables: two chats must not create them at once
            client = chromadb.PersistentClient(
                path=str(folder / "chroma"), settings=Settings(anonymized_telemetry=False)
            )
            self.collection = client.get_or_create_collection(
                COLLECTION, metadata={"hnsw:space": "cosine"}
            )
        self.vector_store = ChromaVectorStore(chroma_collection=self.collection)
        self.embed_model = PackagedMiniLMEmbedding()
        self.index = VectorStoreIndex.from_vector_store(
            self.vector_store, embed_model=self.embed_model
        )

    def sync(self, docs: Path, progress: bool = True) -> IngestReport:
        """Bring the store up to date with the files of ``docs`` (module docstring)."""
        found = folder_files(docs)
        refused = list(found.refused)
        documents: dict[str, list[Document]] = {}
        for name, path in found.files.items():
            reader = SimpleDirectoryReader(
                input_files=[path],
                file_extractor={path.suffix.lower(): SectionReader()},  # as it looks up
                file_metadata=lambda _, name=name: {"source": name},
                raise_on_error=True,
            )
            try:
                documents[name] = reader.load_data()
            except Exception as exc:  # a file we cannot read must not stop the others
                cause = exc.__cause__ or exc  # the reader's own, under "Error loading file"
                refused.append(f"not ingested: {name} ({type(cause).__name__}: {cause})")
                continue
            if not documents[name]:
                del documents[name]
                refused.append(f"not ingested: {name} (no text)")
        with ingest_lock(self.folder):
            docstore = (
                SimpleDocumentStore.from_persist_path(str(self.docstore_path))
                if self.docstore_path.exists()
                else SimpleDocumentStore()
            )
            held = docstore.get_all_document_hashes()  # hash -> document id
            self._drop_unheld(set(held.values()))
            stored: dict[str, set[str]] = {}
            for doc_id in held.values():
                stored.setdefault(_file(doc_id, documents), set()).add(doc_id)
            changed = [
                name
                for name, ds in documents.items()
                if {d.id_ for d in ds} != stored.get(name, set())
                or any(docstore.get_document_hash(d.id_) != d.hash for d in ds)
            ]
            removed = sorted(set(stored) - set(documents))
            if changed or removed or not self.docstore_path.exists():
                pipeline = IngestionPipeline(
                    transformations=[
                        SectionSplitter(id_func=lambda i, doc: f"{doc.id_}#{i}"),
                        CageGraphExtractor(link_index=self.links),
                        self.embed_model,
                    ],
                    docstore=docstore,
                    vector_store=self.vector_store,
                    docstore_strategy=DocstoreStrategy.UPSERTS_AND_DELETE,
                    disable_cache=True,  # a cached run would skip the link index
                )
                pipeline.run(
                    documents=[d for ds in documents.values() for d in ds],
                    show_progress=progress and bool(changed),
                )
                partial = self.docstore_path.with_suffix(".json.partial")
                docstore.persist(str(partial))
                os.replace(partial, self.docstore_path)
            self._prune_links()
        return IngestReport(
            len(changed), len(documents) - len(changed), len(removed), tuple(refused)
        )

    def _drop_unheld(self, held: set[str]) -> None:
        """Delete from Chroma the nodes of Documents the docstore does not hold (a killed
        sync wrote them after the docstore was last saved)."""
        got = self.collection.get(include=["metadatas"])
        unheld = {str((m or {}).get("ref_doc_id")) for m in got["metadatas"]} - held
        for doc_id in sorted(unheld):
            self.vector_store.delete(doc_id)

    def _prune_links(self) -> None:
        """Drop the link entries of nodes no longer in Chroma."""
        if not self.links.exists():
            return
        kept = set(self.collection.get(include=[])["ids"])
        with LinkIndex.open(self.links) as links:
            links.remove_many([e.id for e in links.entries() if e.id not in kept])
