"""CageGraphExtractor: compute passage graphs once, at ingest, into node metadata."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from llama_index.core.bridge.pydantic import Field, PrivateAttr, SecretStr, field_serializer
from llama_index.core.schema import BaseNode, TransformComponent

from cage_core import CageConfig
from cage_core.config import config_as_json
from cage_core.expansion.index import LinkIndex
from cage_core.expansion.openings import document_name_fields, with_offsets
from cage_core.graphs.service import PassageGraphs
from cage_core.integrations.chunk_order import ordered_metadatas
from cage_core.integrations.ingest_graphs import signed_graphs
from cage_core.integrations.pickled_state import without_private_attributes
from cage_core.metadata import DOCUMENT_NAME_KEY, GRAPH_KEY, ORDER_METADATA_KEY, TITLE_KEY
from cage_llamaindex.structure import node_passages, node_successors, with_metadata

__all__ = [
    "CageGraphExtractor",
]


class CageGraphExtractor(TransformComponent):
    """An ``IngestionPipeline`` step storing each node's CAGE graph in ``metadata["cage_graph"]``.

    The graph is ``PassageGraph.to_text()``: one JSON string (flat metadata, so every
    vector store accepts it) that carries a hash of the content it was built from; a node
    whose text no longer matches (e.g. split after extraction) is parsed again by
    :class:`~cage_llamaindex.CageRerank`, so put this step *after* the node parser.

    The key is added to the node's excluded embed and LLM metadata keys, so the graph never
    reaches an embedding or a prompt. Returns copies; the input nodes are not modified.
    Use the same ``spacy_model`` and ``config`` as the :class:`~cage_llamaindex.CageRerank`
    that reads them.

    With ``link_index`` (a :class:`~cage_core.expansion.index.LinkIndex`, extended in memory, or
    a path, merged into the file under a lock: use a path with ``num_workers``) each node's
    names are also added, under its ``node_id``, to the link index that
    :class:`~cage_llamaindex.CageExpansionRetriever` expands from, from the graphs parsed
    here (:mod:`cage_core.expansion.ingest`). A pipeline run answered from the ingestion cache
    skips this step, so it adds nothing to the link index. Each entry keeps the node's place
    (``doc_id`` = ``ref_doc_id``, ``position``: :func:`~cage_llamaindex.structure.node_passages`
    over the nodes of one call, the whole document when it is parsed in the same pipeline run).

    A node without ``start_char_idx`` (a parser that records none, or a chunk it could not
    find verbatim in its document) gets, with the other nodes of its document in the call,
    ``metadata["cage_chunk_order"]``: the document's order, following ``PREVIOUS`` / ``NEXT``
    (:mod:`cage_core.integrations.chunk_order`), read by the reranker before the offset; the
    positions, and so every ranking, are the same with and without ``start_char_idx``. That
    key, too, is excluded from the embed and LLM metadata.

    Each node whose document's opening (its first nodes) is in the call also gets that
    document's name, as its link index record reads it, in ``metadata["cage_document"]``
    (``"RFC 9110: HTTP Semantics"``; excluded from the embed and LLM metadata): a via names
    the document by it, the same in every pool.
    """

    config: CageConfig = Field(default_factory=CageConfig)
    graph_key: str = Field(default=GRAPH_KEY)
    title_key: str | None = Field(default=TITLE_KEY)
    spacy_model: str | None = Field(default=None)
    method: str = Field(
        default="cage",
        description="the ranking method the graphs are for (as "
        "CageRerank.method): light graphs for most, full for the R-GCN methods",
    )
    link_index: LinkIndex | str | Path | None = Field(
        default=None,
        description="a LinkIndex or the path of a saved one, where each node's link "
        "entry is added (keyed by node_id); None: nowhere",
    )

    integrity_key: SecretStr | None = Field(
        default=None,
        description="secret shared with CageRerank: each stored graph carries an "
        "HMAC under it (cage_core.graphs.integrity); None: the content hash only",
    )

    _graphs: PassageGraphs | None = PrivateAttr(default=None)

    @classmethod
    def class_name(cls) -> str:
        return "CageGraphExtractor"

    @property
    def graph_service(self) -> PassageGraphs:
        """Where the graphs come from (created on first use; models are shared per process)."""
        if self._graphs is None:
            self._graphs = PassageGraphs.for_config(self.config, self.spacy_model)
        return self._graphs

    @field_serializer("config")
    def _serialised_config(self, value: CageConfig) -> dict[str, Any]:
        """Serialised (``to_dict``, ``to_json``, the ingestion cache key) as plain JSON."""
        return config_as_json(value)

    @field_serializer("integrity_key")
    def _serialised_integrity_key(self, value: SecretStr | None) -> str | None:
        """Serialised (``to_dict``, ``to_json``, the ingestion cache key) masked: never the key."""
        return None if value is None else str(value)

    @field_serializer("link_index")
    def _serialised_link_index(self, value: LinkIndex | str | Path | None) -> str | None:
        """Serialised (``to_dict``, ``to_json``, the ingestion cache key): a path as a string, an
        in-memory index by its class name."""
        return (
            None
            if value is None
            else type(value).__name__
            if isinstance(value, LinkIndex)
            else str(value)
        )

    def __getstate__(self) -> dict[Any, Any]:
        return without_private_attributes(super().__getstate__())

    def __call__(self, nodes: Sequence[BaseNode], **kwargs: Any) -> Sequence[BaseNode]:
        if not nodes:
            return []
        offsets = [getattr(n, "start_char_idx", None) for n in nodes]
        metadatas = ordered_metadatas(
            [n.metadata for n in nodes],
            self.title_key,
            doc_ids=[n.ref_doc_id for n in nodes],
            offsets=offsets,
            successors=node_successors(nodes),
        )
        ordered = [n.model_copy(update={"metadata": m}) for n, m in zip(nodes, metadatas)]
        passages = node_passages(ordered, self.title_key, with_ids=False)
        ids = [n.node_id for n in ordered]
        read = with_offsets(metadatas, offsets)
        graphs = signed_graphs(self, passages, ids, read)
        named = document_name_fields(passages, read)
        hidden = (self.graph_key, ORDER_METADATA_KEY, DOCUMENT_NAME_KEY)
        return [
            with_metadata(n, {**name, self.graph_key: g}, hidden)
            for n, name, g in zip(ordered, named, graphs)
        ]
