"""The passages a list of LangChain documents stands for, with their document structure.

A text splitter keeps each chunk's document in ``metadata["source"]`` (set by the loaders)
and, with ``add_start_index=True``, its character offset in ``metadata["start_index"]``;
:func:`document_passages` turns these into :attr:`Passage.doc_id
<cage_core.passage.Passage.doc_id>` and :attr:`Passage.position
<cage_core.passage.Passage.position>` by the rules of :mod:`cage_core.metadata` (keys
``doc_id``, ``document_id``, ``source``, ``file_path`` in that order; an explicit
``position`` or ``chunk_index``, else the rank of ``(page, start_index)`` among the list's
chunks of the same document). Documents without them are each their own document. A splitter
without ``add_start_index`` keeps no offset: :class:`~cage_langchain.CageGraphTransformer`
then writes each chunk's order in its document (``metadata["cage_chunk_order"]``,
:mod:`cage_core.integrations.chunk_order`), ranked here in place of ``start_index``.
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.documents import Document

from cage_core.metadata import passages_from_metadata
from cage_core.passage import Passage

__all__ = [
    "document_passages",
]


def document_passages(
    documents: Sequence[Document], title_key: str | None, *, with_ids: bool = True
) -> list[Passage]:
    """The passages of ``documents``: text, title (``metadata[title_key]``), ``Document.id``
    when ``with_ids``, and ``doc_id`` / ``position`` resolved over the whole list."""
    return passages_from_metadata(
        [d.page_content for d in documents],
        [d.metadata for d in documents],
        title_key,
        [d.id for d in documents] if with_ids else None,
    )
