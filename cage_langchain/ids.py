"""The id a LangChain document is (or will be) stored under, as the link index keys it.

:class:`~cage_langchain.CageGraphTransformer` gives a document without an id the stable
:func:`~cage_core.passage_ids.content_id` of its title and text; the expansion retriever
reads the id back with :func:`stored_id` from wherever the store's integration puts it
(:func:`cage_core.passage_ids.document_id`: ``Document.id``, ``metadata["_id"]``, else the
content id).
"""

from __future__ import annotations

from langchain_core.documents import Document

from cage_core.passage_ids import document_id

__all__ = [
    "stored_id",
]


def stored_id(doc: Document, title_key: str | None) -> str:
    """The id ``doc`` is stored under (module docstring; its title: ``metadata[title_key]``
    when it is a string)."""
    title = doc.metadata.get(title_key) if title_key else None
    title = title if isinstance(title, str) else ""
    return document_id(doc.id, doc.metadata, doc.page_content, title)
