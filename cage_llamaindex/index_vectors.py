"""The cosine similarity of a pool's nodes to the query, from the vectors a ``VectorStoreIndex``
holds.

A LlamaIndex retriever's ``NodeWithScore.score`` is on its store's scale or, behind
``QueryFusionRetriever``, a fusion value; the 0–1 ``relevance_score`` is calibrated on the
cosine (:mod:`cage_core.integrations.vector_reads`). How the stores score a query (read in
their code, llama-index-core 0.14, the store packages of 2025–26):

* ``SimpleVectorStore`` (the default): the cosine;
* ``ChromaVectorStore``: ``exp(−distance)`` in the collection's space (L2 by default:
  ``exp(−‖q − p‖²)``, 0.39 for a cosine of 0.53 between unit vectors);
* ``FaissVectorStore``: what the faiss index returns, the squared L2 *distance* of
  ``IndexFlatL2`` (smaller is better) or the inner product of ``IndexFlatIP``;
* ``QdrantVectorStore``: Qdrant's score of the collection's distance, the cosine for the
  collection it creates by default.

:func:`index_cosines` computes the cosine for every node of a pool, whichever retriever
brought it, and :func:`id_cosines` for node ids: the query's vector is the bundle's embedding
(set by the index's retriever) or the index's ``embed_model`` embeds the question; each node's
vector is, in order, the one the store holds (:func:`index_vectors`: ``SimpleVectorStore``:
``data.embedding_dict``; Chroma: :func:`~cage_core.integrations.vector_reads.chroma_vectors`;
FAISS: the faiss index's ``reconstruct`` at the node's position, as the index's
``nodes_dict`` records it (:func:`~cage_core.integrations.vector_reads.faiss_vectors`; an IVF
index without a direct map cannot reconstruct and gives none); any other store, Qdrant among
them: its ``get_nodes`` when they carry embeddings), the node's own ``embedding``, else
the index's ``embed_model`` embeds the node's text as the index embedded it
(``MetadataMode.EMBED``), so only nodes without a vector are embedded; :func:`id_cosines`
scores only ids the store holds (a node deleted from the store is not scored from the
docstore).

:data:`COSINE_KEY` is the metadata key under which
:class:`~cage_llamaindex.CageExpansionRetriever` hands on each node's cosine, so that
:class:`~cage_llamaindex.CageRerank` behind it reads the cosine without ``index=``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np
from llama_index.core.indices.vector_store import VectorStoreIndex
from llama_index.core.schema import BaseNode, MetadataMode, NodeWithScore, QueryBundle
from llama_index.core.vector_stores.simple import SimpleVectorStore

from cage_core.integrations.vector_reads import (
    chroma_vectors,
    faiss_vectors,
    instance_of,
    vector_cosines,
)
from cage_core.scoring import cosine_matrix
from cage_llamaindex.document_search import chroma_collection

__all__ = [
    "COSINE_KEY",
    "id_cosines",
    "index_cosines",
    "index_vectors",
]

logger = logging.getLogger(__name__)

COSINE_KEY = "cage_cosine"
"""Metadata key of a node's cosine to the query, as the expansion retriever hands it on
(hidden from the embedding and LLM views)."""


def index_vectors(
    index: VectorStoreIndex, ids: Sequence[str]
) -> tuple[dict[str, np.ndarray], list[BaseNode]]:
    """``{id: vector}`` of each of the node ``ids`` whose vector ``index``'s store gives
    (module docstring), and the nodes of ``ids`` a store read by ``get_nodes`` holds without a
    vector; a failing read is logged at debug level and gives none."""
    wanted = list(dict.fromkeys(ids))
    if not wanted:
        return {}, []
    store: Any = index.vector_store
    try:
        if isinstance(store, SimpleVectorStore):
            held = store.data.embedding_dict
            return {i: np.asarray(held[i], dtype=np.float64) for i in wanted if i in held}, []
        collection = chroma_collection(store)
        if collection is not None:
            return chroma_vectors(collection, wanted) or {}, []
        if instance_of(store, "llama_index.vector_stores.faiss", "FaissVectorStore"):
            nodes_dict = index.index_struct.nodes_dict  # position → node id
            positions = {node_id: vid for vid, node_id in nodes_dict.items()}
            return faiss_vectors(store.client, wanted, positions.get), []
        nodes = store.get_nodes(node_ids=wanted)
    except Exception as exc:
        logger.debug("%s: could not read the stored vectors (%s)", type(store).__name__, exc)
        return {}, []
    vectors = {
        n.node_id: np.asarray(n.embedding, dtype=np.float64)
        for n in nodes
        if n.embedding is not None
    }
    return vectors, [n for n in nodes if n.embedding is None and n.node_id not in vectors]


def index_cosines(
    index: VectorStoreIndex,
    nodes: Sequence[NodeWithScore],
    question: str,
    query_vector: Sequence[float] | None = None,
) -> tuple[np.ndarray, int]:
    """``[k]`` the cosine of the query with each node's vector (module docstring), and how
    many nodes had to be embedded; ``query_vector`` (the bundle's embedding) spares embedding
    ``question``."""
    embed_model = index._embed_model
    held, _ = index_vectors(index, [n.node.node_id for n in nodes])
    rows: list[np.ndarray | None] = [
        held.get(n.node.node_id)
        if n.node.node_id in held
        else (None if n.node.embedding is None else np.asarray(n.node.embedding, dtype=np.float64))
        for n in nodes
    ]
    unheld = [i for i, row in enumerate(rows) if row is None]
    if unheld:
        texts = [nodes[i].node.get_content(metadata_mode=MetadataMode.EMBED) for i in unheld]
        for i, vector in zip(unheld, embed_model.get_text_embedding_batch(texts)):
            rows[i] = np.asarray(vector, dtype=np.float64)
    if query_vector is None:
        query_vector = embed_model.get_query_embedding(question)
    matrix = np.stack([r for r in rows if r is not None])
    return cosine_matrix(np.asarray([query_vector], dtype=np.float64), matrix)[0], len(unheld)


def id_cosines(
    index: VectorStoreIndex, bundle: QueryBundle, ids: Sequence[str]
) -> dict[str, float]:
    """``{id: cosine}`` of the bundle's query with each of the node ``ids`` the index's store
    holds (module docstring): their stored vectors, a node the store gives without one
    embedded by the index's ``embed_model``; ids the store does not hold are left out. Sets
    ``bundle.embedding`` when it has none, as the index's retriever does; a failure is logged
    at debug level and scores none."""
    if not ids:
        return {}
    try:
        if bundle.embedding is None:
            bundle.embedding = index._embed_model.get_agg_embedding_from_queries(
                bundle.embedding_strs
            )
        held, vectorless = index_vectors(index, ids)
        vectors: dict[str, Any] = dict(held)
        if vectorless:
            texts = [n.get_content(metadata_mode=MetadataMode.EMBED) for n in vectorless]
            embedded = index._embed_model.get_text_embedding_batch(texts)
            vectors.update((n.node_id, v) for n, v in zip(vectorless, embedded))
        return vector_cosines(bundle.embedding, vectors)
    except Exception as exc:
        logger.debug("the index could not score the nodes (%s)", exc)
        return {}
