"""The best nodes of one document for a question, by the index's own restricted retriever.

Routing (:mod:`cage_core.integrations.document_routing`) brings a named document's best nodes
into the pool, past the retriever's top ``k``: :class:`DocumentSearch` queries the
``VectorStoreIndex`` with its own ``VectorIndexRetriever`` (the store's similarity, as the base
retriever scores), restricted to that document by ``MetadataFilters``:

* ``ref_doc_id`` = the document, for nodes a node parser made (their document is their
  ``ref_doc_id``; LlamaIndex writes it into every vector store's metadata);
* else the metadata key that holds the node's document (``source``, ``file_path``; with the
  title too where the document is ``"{source}#{title}"``:
  :func:`~cage_core.integrations.document_routing.document_conditions`), read from a node of the
  document;
* else (a document given by a ``doc_id`` / ``document_id`` metadata value, which LlamaIndex
  overwrites in the store with the node's ``ref_doc_id``) the document's node ids by the link
  index (``VectorStoreQuery.node_ids``; Chroma's ``ids``).

Every node returned is checked against the ingest rule
(:func:`~cage_core.integrations.document_routing.is_chunk_of`). A failing query is logged at
debug level and gives no nodes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from llama_index.core.callbacks import CallbackManager
from llama_index.core.indices.vector_store import VectorIndexRetriever, VectorStoreIndex
from llama_index.core.schema import BaseNode, NodeWithScore, QueryBundle
from llama_index.core.vector_stores.types import MetadataFilter, MetadataFilters

from cage_core.expansion.index import LinkIndex
from cage_core.integrations.document_routing import document_conditions, is_chunk_of
from cage_core.integrations.vector_reads import instance_of

__all__ = [
    "SAMPLED_NODES",
    "STORE_DOCUMENT_KEYS",
    "DocumentSearch",
    "chroma_collection",
    "document_filters",
    "restricted_retriever",
]

logger = logging.getLogger(__name__)

SAMPLED_NODES = 3
"""How many of a document's nodes (by the link index) are fetched, at most, to read which key
selects its nodes in the vector store: the first one of the document that is found is read."""
STORE_DOCUMENT_KEYS = frozenset({"ref_doc_id", "doc_id", "document_id"})
"""Keys LlamaIndex writes into a vector store's metadata itself (the node's ``ref_doc_id``,
``"None"`` without one): a node's own metadata value under them is not what is stored."""


def chroma_collection(store: object) -> Any:
    """The Chroma collection of a ``ChromaVectorStore`` (``None`` for any other store; the
    module is not imported here)."""
    if instance_of(store, "llama_index.vector_stores.chroma", "ChromaVectorStore"):
        return getattr(store, "_collection", None)
    return None


def restricted_retriever(
    index: VectorStoreIndex,
    ids: Sequence[str],
    k: int | None = None,
    callback_manager: CallbackManager | None = None,
) -> VectorIndexRetriever:
    """``index``'s retriever restricted to the node ``ids`` (all in the store), top ``k``
    (``None``: all of them)."""
    restrict = chroma_collection(index.vector_store) is not None
    return VectorIndexRetriever(
        index,
        similarity_top_k=len(ids) if k is None else k,
        node_ids=list(ids),
        callback_manager=callback_manager,
        vector_store_kwargs={"ids": list(ids)} if restrict else {},
    )


def document_filters(
    doc_id: str, sampled: Sequence[BaseNode], title_key: str | None
) -> MetadataFilters | None:
    """The metadata filter selecting ``doc_id``'s nodes in the store (module docstring), read
    from ``sampled`` nodes of it; ``None`` when none says (the node ids restrict instead)."""
    for node in sampled:
        if node.ref_doc_id is not None:
            if node.ref_doc_id == doc_id:
                return MetadataFilters(filters=[MetadataFilter(key="ref_doc_id", value=doc_id)])
            continue
        conditions = document_conditions(node.metadata, doc_id, title_key)
        if conditions is not None and not {k for k, _ in conditions} & STORE_DOCUMENT_KEYS:
            return MetadataFilters(filters=[MetadataFilter(key=k, value=v) for k, v in conditions])
    return None


class DocumentSearch:
    """The best nodes of one document of ``index`` for a question (module docstring).

    ``fetch`` gives nodes by id (the expansion retriever's: the vector store, else the
    docstore); ``link_index`` gives a document's node ids.
    """

    def __init__(
        self,
        index: VectorStoreIndex,
        link_index: LinkIndex,
        fetch: Callable[[list[str]], dict[str, BaseNode]],
        title_key: str | None,
        callback_manager: CallbackManager | None = None,
    ) -> None:
        self.index = index
        self.link_index = link_index
        self.fetch = fetch
        self.title_key = title_key
        self.callback_manager = callback_manager

    def __call__(self, bundle: QueryBundle, doc_id: str, k: int) -> list[NodeWithScore]:
        """The ``k`` nodes of document ``doc_id`` most relevant to ``bundle``, best first, with
        the store's scores (a sync query sets ``bundle.embedding``: pass one bundle to every
        call and the question is embedded once)."""
        chunk_ids = self.link_index.chunks_of(doc_id)
        if not chunk_ids:
            return []
        try:
            sampled = self.fetch(chunk_ids[:SAMPLED_NODES])
            filters = document_filters(
                doc_id, [sampled[i] for i in chunk_ids if i in sampled], self.title_key
            )
            if filters is not None:
                retriever = VectorIndexRetriever(
                    self.index,
                    similarity_top_k=k,
                    filters=filters,
                    callback_manager=self.callback_manager,
                )
            else:
                retriever = restricted_retriever(self.index, chunk_ids, k, self.callback_manager)
            found = retriever.retrieve(bundle)
        except Exception as exc:
            logger.debug("the index could not search the nodes of %r (%s)", doc_id, exc)
            return []
        return [
            n
            for n in found
            if n.score is not None
            and is_chunk_of(n.node.metadata, doc_id, self.title_key, n.node.ref_doc_id)
        ][:k]
