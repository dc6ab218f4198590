"""What routing found for a question: the documents it names, and the question without the
words that name them.

Routing reads a question at query time against the document records ingest wrote
(:func:`~cage_core.expansion.routing.route_question`); the ranking reads what it found as
part of the pool (:meth:`CageReranker.checked_pool(route=...)
<cage_core.reranker.CageReranker.checked_pool>`, :mod:`cage_core.ranking.named_documents`).
These records are what both share, below both, so that query time imports nothing of ingest
time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "NAMED_DOCUMENT_VIA",
    "DocumentRoute",
    "NamedDocument",
    "named_documents_by_id",
]

NAMED_DOCUMENT_VIA = "the question names its document"
"""How a ``via`` begins for a passage that is in the pool because its document is named."""


@dataclass(frozen=True)
class NamedDocument:
    """A document the question names.

    doc_id: the document.
    name: its display name (:class:`~cage_core.expansion.documents.DocumentRecord`).
    score: what its naming words count (:mod:`cage_core.expansion.routing`, step 1).
    naming_words: the question's words that name it (step 3), in question order.
    """

    doc_id: str
    name: str
    score: float
    naming_words: tuple[str, ...]

    @property
    def via(self) -> str:
        """The ``via`` of a passage in the pool because of this document: what named it."""
        shown = self.name or self.doc_id
        return f"{NAMED_DOCUMENT_VIA}: {shown} (named by {' '.join(self.naming_words)})"


@dataclass(frozen=True)
class DocumentRoute:
    """What routing found for one question.

    documents: the named documents, best first; empty when the question names none
        confidently (then ``question`` is the question as asked).
    question: the question without the words that name the documents.
    """

    documents: tuple[NamedDocument, ...]
    question: str

    @property
    def doc_ids(self) -> tuple[str, ...]:
        return tuple(document.doc_id for document in self.documents)

    def __bool__(self) -> bool:
        return bool(self.documents)


def named_documents_by_id(route: DocumentRoute) -> Mapping[str, NamedDocument]:
    """The route's named documents by ``doc_id``."""
    return {document.doc_id: document for document in route.documents}
