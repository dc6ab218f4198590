"""The ingest components' one step: each passage's graph, signed, and its link entry.

:class:`cage_langchain.CageGraphTransformer` and :class:`cage_llamaindex.CageGraphExtractor`
read their documents' or nodes' passages (text, title, document and position:
:func:`~cage_core.metadata.passages_from_metadata`) and ids, and hand them to
:func:`signed_graphs`, which reads the component's settings by name (:class:`GraphSettings`):

1. the integrity key is read first (:func:`~cage_core.graphs.integrity.key_bytes`), so a bad
   one raises before anything is parsed or written;
2. each passage's graph is parsed at the level its ranking method reads
   (:func:`~cage_core.reranker.method_graph_level`);
3. with a ``link_index``, each passage's entry is added to it, with its document's record
   (:func:`~cage_core.expansion.ingest.index_documents`);
4. each graph is returned as the text stored in metadata, signed under the key when there is
   one (:func:`~cage_core.graphs.integrity.signed_text`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from cage_core.config import CageConfig
from cage_core.expansion.contract import LinkIndexSource
from cage_core.expansion.ingest import index_documents
from cage_core.graphs.integrity import key_bytes, signed_text
from cage_core.graphs.service import PassageGraphs
from cage_core.passage import Passage
from cage_core.reranker import method_graph_level

__all__ = [
    "GraphSettings",
    "signed_graphs",
]


class GraphSettings(Protocol):
    """What :func:`signed_graphs` reads of an ingest component: the fields both frameworks'
    components hold under these names."""

    @property
    def config(self) -> CageConfig:
        """The configuration of the reranker that reads the graphs."""

    @property
    def method(self) -> str:
        """The ranking method the graphs are for (it decides the graph level)."""

    @property
    def link_index(self) -> LinkIndexSource | None:
        """Where each passage's link entry is added; ``None``: nowhere."""

    @property
    def integrity_key(self) -> Any:
        """The secret the graphs are signed under (``None``: unsigned)."""

    @property
    def graph_service(self) -> PassageGraphs:
        """Where the graphs come from."""


def signed_graphs(
    settings: GraphSettings,
    passages: Sequence[Passage],
    ids: Sequence[str],
    metadatas: Sequence[Mapping[str, Any]],
) -> list[str]:
    """The stored text of each passage's graph, its entry added to the link index (module
    docstring); ``ids`` and ``metadatas``: each passage's id and metadata, in order."""
    key = key_bytes(settings.integrity_key)
    level = method_graph_level(settings.config, settings.method)
    graphs = settings.graph_service.graphs(passages, level=level)
    if settings.link_index is not None:
        index_documents(settings.link_index, zip(ids, passages, graphs, metadatas))
    return [signed_text(graph, key) for graph in graphs]
