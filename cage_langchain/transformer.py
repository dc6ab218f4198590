"""CageGraphTransformer: compute passage graphs once, at ingest, into document metadata."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from langchain_core.documents import BaseDocumentTransformer, Document
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from cage_core import CageConfig, CageReranker
from cage_core.metadata import GRAPH_KEY, TITLE_KEY, passage_from_metadata


class CageGraphTransformer(BaseDocumentTransformer, BaseModel):
    """Store each document's CAGE passage graph in ``metadata["cage_graph"]``.

    The graph is ``PassageGraph.to_dict()`` output: versioned, JSON-safe, about 1 KB per
    node (word vectors as float16). :class:`~cage_langchain.CageRerank` uses it instead of
    parsing the document at query time, so a passage is parsed once, at ingest. Returns
    new documents; the inputs are not modified. Use the same ``spacy_model`` and ``config``
    as the reranker: a graph built by another pipeline is ignored (and re-parsed) there.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    config: CageConfig = Field(default_factory=CageConfig)
    graph_key: str = GRAPH_KEY
    title_key: str | None = TITLE_KEY
    spacy_model: str | None = None

    _reranker: CageReranker | None = PrivateAttr(default=None)

    @property
    def reranker(self) -> CageReranker:
        if self._reranker is None:
            self._reranker = CageReranker(self.config, nlp=self.spacy_model)
        return self._reranker

    def transform_documents(self, documents: Sequence[Document], **kwargs: Any) -> Sequence[Document]:
        if not documents:
            return []
        graphs = self.reranker.graphs(
            [passage_from_metadata(d.page_content, d.metadata, self.title_key) for d in documents])
        return [
            Document(page_content=d.page_content, id=d.id,
                     metadata={**d.metadata, self.graph_key: g.to_dict()})  # fmt: skip
            for d, g in zip(documents, graphs)
        ]

    async def atransform_documents(
        self, documents: Sequence[Document], **kwargs: Any
    ) -> Sequence[Document]:
        return await asyncio.to_thread(self.transform_documents, documents, **kwargs)
