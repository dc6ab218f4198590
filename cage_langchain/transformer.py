"""CageGraphTransformer: compute passage graphs once, at ingest, into document metadata."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.documents import BaseDocumentTransformer, Document
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, SecretStr

from cage_core import CageConfig
from cage_core.expansion.index import LinkIndex
from cage_core.expansion.openings import document_name_fields
from cage_core.graphs.service import PassageGraphs
from cage_core.integrations.chunk_order import ordered_metadatas
from cage_core.integrations.ingest_graphs import signed_graphs
from cage_core.integrations.pickled_state import without_private_attributes
from cage_core.metadata import GRAPH_KEY, TITLE_KEY
from cage_core.passage import Passage
from cage_core.passage_ids import content_ids
from cage_langchain.structure import document_passages

__all__ = [
    "CageGraphTransformer",
]


class CageGraphTransformer(BaseDocumentTransformer, BaseModel):
    """Store each document's CAGE passage graph in ``metadata["cage_graph"]``.

    The graph is ``PassageGraph.to_text()``: one versioned JSON string (about 1 KB for a
    100-word passage) that every vector store's metadata accepts, carrying a hash of the
    content it was built from. :class:`~cage_langchain.CageRerank` uses it instead of
    parsing the document at query time, so a passage is parsed once, at ingest. A graph
    that no longer matches its document (e.g. a chunk cut from an enriched document by a
    text splitter) is ignored there and the chunk parsed; enrich *after* splitting. Returns
    new documents; the inputs are not modified. Use the same ``spacy_model`` as the
    reranker: a graph built by another pipeline is ignored (and re-parsed) there.

    With ``link_index`` (a :class:`~cage_core.expansion.index.LinkIndex`, extended in memory, or
    a path, merged into the file under a lock) each document's names are also added to the
    link index that :class:`~cage_langchain.CageExpansionRetriever` expands from, from the
    graphs parsed here (:mod:`cage_core.expansion.ingest`). It is keyed by ``Document.id``.

    A document without an id (every chunk of LangChain's text splitters) is returned with the
    stable :func:`~cage_core.passage_ids.content_id` of its title and text as ``Document.id``,
    which ``add_documents`` / ``from_documents`` then store it under (Chroma, FAISS, Qdrant:
    it is a UUID), and is indexed under it; the same chunk gets the same id at every
    re-ingest. Documents that have an id keep it. Each entry keeps the document's place
    (``doc_id``, ``position``: :func:`~cage_langchain.structure.document_passages`, over the
    documents of one call), so the expansion retriever can add a retrieved chunk's
    neighbours: transform a document's chunks in one call for their true order.

    Each chunk whose document's opening (its first chunks) is in the call also gets that
    document's name, as its link index record reads it, in ``metadata["cage_document"]``
    (``"RFC 9110: HTTP Semantics"``): a via names the document by it, the same in every pool.

    A splitter without ``add_start_index=True`` keeps no offset; the chunks of such a
    document then get ``metadata["cage_chunk_order"]``, their order in the call
    (:mod:`cage_core.integrations.chunk_order`), which the reranker reads as it reads
    ``start_index``: the positions, and so every ranking, are the same with and without
    ``add_start_index``, as long as a document's chunks are transformed in one call, in the
    splitter's order.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    config: CageConfig = Field(default_factory=CageConfig)
    graph_key: str = GRAPH_KEY
    title_key: str | None = TITLE_KEY
    spacy_model: str | None = None
    method: str = "cage"
    """The ranking method the graphs are for (as ``CageRerank.method``): it decides the graph
    level stored, light (entities) for most, full for the R-GCN methods ("paper", ...)."""
    link_index: LinkIndex | str | Path | None = None
    """Where each document's link entry is added (class docstring); ``None``: nowhere."""
    integrity_key: SecretStr | None = None
    """A secret shared by ingest and rerank: stored graphs then carry an HMAC under it and
    only graphs with a valid one are used (:mod:`cage_core.graphs.integrity`); ``None``: the
    content hash alone, a freshness check, not protection against a store others can write."""

    _graphs: PassageGraphs | None = PrivateAttr(default=None)

    @property
    def graph_service(self) -> PassageGraphs:
        """Where the graphs come from (created on first use; models are shared per process)."""
        if self._graphs is None:
            self._graphs = PassageGraphs.for_config(self.config, self.spacy_model)
        return self._graphs

    def __getstate__(self) -> dict[Any, Any]:
        return without_private_attributes(super().__getstate__())

    def transform_documents(
        self, documents: Sequence[Document], **kwargs: Any
    ) -> Sequence[Document]:
        if not documents:
            return []
        metadatas = ordered_metadatas([d.metadata for d in documents], self.title_key)
        ordered = [
            Document(page_content=d.page_content, id=d.id, metadata=m)
            for d, m in zip(documents, metadatas)
        ]
        passages = document_passages(ordered, self.title_key, with_ids=False)
        ids = _ids(ordered, passages)
        graphs = signed_graphs(self, passages, ids, metadatas)
        named = document_name_fields(passages, metadatas)
        return [
            Document(
                page_content=d.page_content, id=i, metadata={**d.metadata, **n, self.graph_key: g}
            )
            for i, d, n, g in zip(ids, ordered, named, graphs)
        ]

    async def atransform_documents(
        self, documents: Sequence[Document], **kwargs: Any
    ) -> Sequence[Document]:
        return await asyncio.to_thread(self.transform_documents, documents, **kwargs)


def _ids(documents: Sequence[Document], passages: Sequence[Passage]) -> list[str]:
    """Each document's own id, or the content id of its title and text (class docstring)."""
    without = [(p.title, p.text) for d, p in zip(documents, passages) if not d.id]
    made = iter(content_ids(without))
    return [d.id if d.id else next(made) for d in documents]
