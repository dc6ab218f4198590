"""The cosine similarity of a pool's nodes to the query, from the vectors a ``VectorStoreIndex``
holds.

A LlamaIndex retriever's ``NodeWithScore.score`` is on its store's scale (the default
``SimpleVectorStore``: the cosine; ``ChromaVectorStore``: ``exp(−distance)``, whatever the
collection's space) or, behind ``QueryFusionRetriever``, a fusion value; the 0–1
``relevance_score`` is calibrated on the cosine (:mod:`cage_core.integrations.stored_cosines`).
:func:`index_cosines` computes that cosine for every node of a pool, whichever retriever
brought it: the query's vector is the bundle's embedding (set by the index's retriever) or the
index's ``embed_model`` embeds the question; each node's vector is, in order, the one the store
holds (``SimpleVectorStore``: ``data.embedding_dict``; Chroma:
:func:`~cage_core.integrations.chroma_vectors.chroma_vectors`; any other store: its
``get_nodes`` when they carry embeddings), the node's own ``embedding``, else the index's
``embed_model`` embeds the node's text as the index embedded it (``MetadataMode.EMBED``), so
only nodes without a vector are embedded.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np
from llama_index.core.indices.vector_store import VectorStoreIndex
from llama_index.core.schema import MetadataMode, NodeWithScore
from llama_index.core.vector_stores.simple import SimpleVectorStore

from cage_core.integrations.chroma_vectors import chroma_vectors
from cage_core.scoring import cosine_matrix
from cage_llamaindex.document_search import chroma_collection

__all__ = [
    "index_cosines",
    "index_vectors",
]

logger = logging.getLogger(__name__)


def index_vectors(index: VectorStoreIndex, ids: Sequence[str]) -> dict[str, np.ndarray]:
    """``{id: vector}`` of each of the node ``ids`` whose vector ``index``'s store gives
    (module docstring); a failing read is logged at debug level and gives none."""
    wanted = list(dict.fromkeys(ids))
    if not wanted:
        return {}
    store: Any = index.vector_store
    try:
        if isinstance(store, SimpleVectorStore):
            held = store.data.embedding_dict
            return {i: np.asarray(held[i], dtype=np.float64) for i in wanted if i in held}
        collection = chroma_collection(store)
        if collection is not None:
            return chroma_vectors(collection, wanted) or {}
        nodes = store.get_nodes(node_ids=wanted)
        return {
            n.node_id: np.asarray(n.embedding, dtype=np.float64)
            for n in nodes
            if n.embedding is not None
        }
    except Exception as exc:
        logger.debug("%s: could not read the stored vectors (%s)", type(store).__name__, exc)
        return {}


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
    held = index_vectors(index, [n.node.node_id for n in nodes])
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
