"""The passages a list of LlamaIndex nodes stands for, with their document structure.

A node parser (``SentenceSplitter``, ``MarkdownNodeParser``, ...) links each node to its
document (the ``SOURCE`` relationship, ``node.ref_doc_id``), to its neighbours (``PREVIOUS``
and ``NEXT``, when they come from the same document) and records its character offset
(``start_char_idx``). :func:`node_passages` turns these into :attr:`Passage.doc_id
<cage_core.passage.Passage.doc_id>` (``ref_doc_id``, else the metadata keys of
:mod:`cage_core.metadata`) and :attr:`Passage.position
<cage_core.passage.Passage.position>` (an explicit ``position`` / ``chunk_index`` metadata
value, else the rank of ``start_char_idx`` among the list's nodes of the same document);
:func:`adjacent_node_ids` gives the ids of a node's neighbours, which the expansion
retriever adds. Nodes without them are each their own document. :func:`with_metadata` copies a
node with metadata keys hidden from its embedding and LLM views (the extractor's and the
expansion retriever's copies).

Where a node has no ``start_char_idx`` (a parser that records none, or a chunk it could not
find verbatim in its document), :class:`~cage_llamaindex.CageGraphExtractor` writes each node's
order in its document (``metadata["cage_chunk_order"]``, :mod:`cage_core.integrations.chunk_order`),
following ``PREVIOUS`` / ``NEXT`` (:func:`node_successors`); it is ranked here in place of the
offset, so the positions are the same with and without ``start_char_idx``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from llama_index.core.schema import BaseNode, MetadataMode, NodeRelationship, RelatedNodeInfo

from cage_core.metadata import passages_from_metadata
from cage_core.passage import Passage

__all__ = [
    "adjacent_node_ids",
    "node_passages",
    "node_successors",
    "with_metadata",
]


def node_passages(
    nodes: Sequence[BaseNode], title_key: str | None, *, with_ids: bool = True
) -> list[Passage]:
    """The passages of ``nodes``: text (``MetadataMode.NONE``), title
    (``metadata[title_key]``), ``node_id`` when ``with_ids``, and ``doc_id`` / ``position``
    resolved over the whole list."""
    return passages_from_metadata(
        [n.get_content(metadata_mode=MetadataMode.NONE) for n in nodes],
        [n.metadata for n in nodes],
        title_key,
        [n.node_id for n in nodes] if with_ids else None,
        doc_ids=[n.ref_doc_id for n in nodes],
        offsets=[getattr(n, "start_char_idx", None) for n in nodes],
    )


def node_successors(nodes: Sequence[BaseNode]) -> list[int | None]:
    """For each node, the list index of the node that follows it in its document: its ``NEXT``
    node, else the node naming it as ``PREVIOUS``, when that node is in ``nodes`` (the first
    such; ``None`` otherwise)."""
    index: dict[str, int] = {}
    for i, node in enumerate(nodes):
        index.setdefault(node.node_id, i)
    out: list[int | None] = [None] * len(nodes)
    for i, node in enumerate(nodes):
        following = _related_id(node, NodeRelationship.NEXT)
        if following is not None and index.get(following, i) != i:
            out[i] = index[following]
    for i, node in enumerate(nodes):
        before = _related_id(node, NodeRelationship.PREVIOUS)
        j = None if before is None else index.get(before)
        if j is not None and j != i and out[j] is None:
            out[j] = i
    return out


def _related_id(node: BaseNode, relation: NodeRelationship) -> str | None:
    related = node.relationships.get(relation)
    return related.node_id if isinstance(related, RelatedNodeInfo) and related.node_id else None


def adjacent_node_ids(node: BaseNode) -> list[str]:
    """The ids of ``node``'s ``PREVIOUS`` and ``NEXT`` nodes, in that order (the ones present;
    a relationship that is not a single related node is ignored)."""
    out = []
    for relation in (NodeRelationship.PREVIOUS, NodeRelationship.NEXT):
        related = _related_id(node, relation)
        if related is not None and related not in out:
            out.append(related)
    return out


def with_metadata(node: BaseNode, extra: Mapping[str, object], hidden: Sequence[str]) -> BaseNode:
    """A copy of ``node`` whose metadata gains ``extra``, the ``hidden`` keys added to its
    ``excluded_embed_metadata_keys`` and ``excluded_llm_metadata_keys``."""
    copy = node.model_copy()
    copy.metadata = {**node.metadata, **extra}
    for attr in ("excluded_embed_metadata_keys", "excluded_llm_metadata_keys"):
        keys = list(getattr(node, attr))
        setattr(copy, attr, keys + [k for k in hidden if k not in keys])
    return copy
