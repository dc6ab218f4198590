"""A document's chunk order, numbered at ingest where the splitter kept no offset.

The document view and the expansion read a chunk's place in its document
(:attr:`Passage.position <cage_core.passage.Passage.position>`); without an explicit position
it is the rank of the chunk's character offset (LangChain ``start_index`` from a splitter with
``add_start_index=True``, LlamaIndex ``start_char_idx``) among the chunks of the same document
(:mod:`cage_core.metadata`). A splitter that kept no offset leaves that rank unknown, yet the
ingest components (:class:`cage_langchain.CageGraphTransformer`,
:class:`cage_llamaindex.CageGraphExtractor`) see a document's chunks in order, as the splitter
returned them. :func:`ordered_metadatas` writes that order down, so a chunk gets the same
position with and without the offset and every ranking is the same:

* a document of the call (a chunk's document as :func:`~cage_core.metadata.chunk_place` reads
  it) *needs an order* when none of its chunks in the call has an explicit ``position`` /
  ``chunk_index`` and one of them has no offset;
* every chunk of such a document gets ``metadata["cage_chunk_order"]``
  (:data:`~cage_core.metadata.ORDER_METADATA_KEY`) = its 0-based place in the document's
  sequence: the call's order of the document's chunks, except that a chunk whose successor
  (``successors``: LlamaIndex's ``NEXT`` / ``PREVIOUS`` relationships) is in the call is
  followed by it, so a document's chunks given out of order keep the splitter's order when
  the framework records it. A chain starts at each chunk no other chunk of the call names as
  its successor, in call order (a cycle of malformed relationships: at its first chunk);
* every other chunk loses a ``cage_chunk_order`` it carried (from an earlier ingest): the
  value this call writes is the only one kept, so ingesting twice writes the same metadata.

Readers rank ``cage_chunk_order`` where present, before the offset
(:func:`~cage_core.metadata.chunk_place`): the positions are then the rank of the splitter's
order among the pool's chunks of one document, exactly what the offsets give when the splitter
keeps them. The order is that of one call: give a document's chunks to one call (as
``split_documents`` / ``get_nodes_from_documents`` return them). Chunks of one document given
in several calls are each numbered from 0, so two chunks from different calls compare by
their numbers alone (ties: pool order): their positions are then unreliable, as they are for a
document split into chunks out of order where the framework records no successor. Keep the
offset (``add_start_index=True``), or give each chunk its ``position``, for such ingests.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cage_core.metadata import ORDER_METADATA_KEY, chunk_place

__all__ = [
    "chunk_orders",
    "ordered_metadatas",
]


def chunk_orders(
    metadatas: Sequence[Mapping[str, Any]],
    title_key: str | None,
    *,
    doc_ids: Sequence[object] | None = None,
    offsets: Sequence[object] | None = None,
    successors: Sequence[int | None] | None = None,
) -> list[int | None]:
    """The ``cage_chunk_order`` of each chunk (module docstring), ``None`` where none is written.

    ``doc_ids`` and ``offsets`` are the framework's own document ids and offsets per chunk (as
    :func:`~cage_core.metadata.passages_from_metadata` takes them); ``successors[i]`` the list
    index of the chunk the framework says follows chunk ``i`` (``None``: unknown)."""
    n = len(metadatas)
    if any(len(x) != n for x in (doc_ids, offsets, successors) if x is not None):
        raise ValueError("metadatas and the optional doc_ids, offsets, successors differ in length")
    places = []
    for i, metadata in enumerate(metadatas):
        title = metadata.get(title_key) if title_key else None
        places.append(
            chunk_place(
                {k: v for k, v in metadata.items() if k != ORDER_METADATA_KEY},
                doc_id=None if doc_ids is None else doc_ids[i],
                offset=None if offsets is None else offsets[i],
                title=title if isinstance(title, str) else "",
            )
        )
    documents: dict[str, list[int]] = {}
    for i, place in enumerate(places):
        if place.doc_id is not None:
            documents.setdefault(place.doc_id, []).append(i)
    out: list[int | None] = [None] * n
    for chunks in documents.values():
        if any(places[i].position is not None for i in chunks):
            continue
        if all(places[i].order is not None for i in chunks):
            continue
        for rank, i in enumerate(_sequence(chunks, successors)):
            out[i] = rank
    return out


def _sequence(chunks: list[int], successors: Sequence[int | None] | None) -> list[int]:
    """``chunks`` (list indices, ascending) in their document's order (module docstring)."""
    inside = set(chunks)
    following = {}
    if successors is not None:
        following = {
            i: successors[i] for i in chunks if successors[i] in inside and successors[i] != i
        }
    named = set(following.values())
    starts = [i for i in chunks if i not in named] + chunks  # then what a cycle left unvisited
    sequence: list[int] = []
    seen: set[int] = set()
    for start in starts:
        current: int | None = start
        while current is not None and current not in seen:
            seen.add(current)
            sequence.append(current)
            current = following.get(current)
    return sequence


def ordered_metadatas(
    metadatas: Sequence[Mapping[str, Any]],
    title_key: str | None,
    *,
    doc_ids: Sequence[object] | None = None,
    offsets: Sequence[object] | None = None,
    successors: Sequence[int | None] | None = None,
) -> list[dict[str, Any]]:
    """Copies of ``metadatas`` with ``cage_chunk_order`` set or removed as the module docstring
    says (the inputs are untouched); arguments as :func:`chunk_orders`."""
    orders = chunk_orders(
        metadatas, title_key, doc_ids=doc_ids, offsets=offsets, successors=successors
    )
    out = []
    for metadata, order in zip(metadatas, orders):
        copy = {k: v for k, v in metadata.items() if k != ORDER_METADATA_KEY}
        if order is not None:
            copy[ORDER_METADATA_KEY] = order
        out.append(copy)
    return out
