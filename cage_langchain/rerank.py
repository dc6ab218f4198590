"""CageRerank: CAGE as a LangChain ``BaseDocumentCompressor``."""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Sequence

import numpy as np
from langchain_core.callbacks import Callbacks
from langchain_core.documents import BaseDocumentCompressor, Document
from langchain_core.embeddings import Embeddings
from pydantic import ConfigDict, Field, PrivateAttr

from cage_core import CageConfig, CageReranker
from cage_core.metadata import GRAPH_KEY, TITLE_KEY, passage_from_metadata, ranked_metadata
from cage_core.reranker import configured_reranker
from cage_core.scoring import cosine_matrix

logger = logging.getLogger(__name__)


class CageRerank(BaseDocumentCompressor):
    """Rerank retrieved documents by CAGE's fused relevance and between-passage coherence.

    ``f_i = α·sim(q, d_i) + (1−α)·s_i/(k−1)``. ``sim`` is, in order of preference: the
    retriever's score in ``metadata[score_key]`` (when ``score_key`` is set and every
    document has a finite one), the cosine of ``embeddings`` (any LangChain ``Embeddings``,
    e.g. the vector store's), or the packaged all-MiniLM-L6-v2.

    Returns new ``Document``s, best first, cut to ``top_n``; each has a copy of the
    original metadata plus ``relevance_score`` (the fused score), ``cage_relevance``,
    ``cage_coherence`` and ``cage_rank``. The caller's documents are never modified. A
    graph stored by :class:`~cage_langchain.CageGraphTransformer` under
    ``metadata["cage_graph"]`` is used instead of parsing the document again.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    top_n: int | None = Field(default=5, ge=0)
    """How many documents to return (the paper's context size); ``None`` returns all."""
    alpha: float | None = Field(default=None, ge=0.0, le=1.0)
    """Fusion weight α; overrides ``config.alpha`` when set."""
    config: CageConfig = Field(default_factory=CageConfig)
    """The rest of the core configuration."""
    embeddings: Embeddings | None = None
    """Embeddings for sim(q, d); default: the packaged all-MiniLM-L6-v2."""
    score_key: str | None = None
    """Metadata key holding the retriever's own query similarity, used instead of embedding."""
    graph_key: str = GRAPH_KEY
    """Metadata key of a passage graph stored at ingest."""
    title_key: str | None = TITLE_KEY
    """Metadata key of the document title (titles let CAGE link passages that name each other)."""
    spacy_model: str | None = None
    """spaCy pipeline name or path; default: the best installed English pipeline."""
    method: str = "cage"
    """The ranking method: "cage" (default), or any name of :mod:`cage_core.methods` such as
    "grapher", "tegr", "cage-contra", "paper"."""

    _reranker: CageReranker | None = PrivateAttr(default=None)

    @property
    def reranker(self) -> CageReranker:
        """The core reranker (created on first use; models are shared per process)."""
        if self._reranker is None:
            self._reranker = configured_reranker(self.config, alpha=self.alpha,
                                                 nlp=self.spacy_model, method=self.method)
        return self._reranker

    def compress_documents(
        self,
        documents: Sequence[Document],
        query: str,
        callbacks: Callbacks | None = None,
    ) -> Sequence[Document]:
        """Rerank ``documents`` for ``query``; see the class docstring."""
        if not documents:
            return []
        sims = self._retriever_similarities(documents)
        if sims is None and self.embeddings is not None:
            sims = _cosines(self.embeddings.embed_query(query),
                            self.embeddings.embed_documents([d.page_content for d in documents]))  # fmt: skip
        return self._rerank(documents, query, sims)

    async def acompress_documents(
        self,
        documents: Sequence[Document],
        query: str,
        callbacks: Callbacks | None = None,
    ) -> Sequence[Document]:
        """Async :meth:`compress_documents`: embeddings are awaited, CAGE runs in a thread."""
        if not documents:
            return []
        sims = self._retriever_similarities(documents)
        if sims is None and self.embeddings is not None:
            q, d = await asyncio.gather(
                self.embeddings.aembed_query(query),
                self.embeddings.aembed_documents([doc.page_content for doc in documents]),
            )
            sims = _cosines(q, d)
        return await asyncio.to_thread(self._rerank, documents, query, sims)

    def _retriever_similarities(self, documents: Sequence[Document]) -> np.ndarray | None:
        if self.score_key is None:
            return None
        values = [d.metadata.get(self.score_key) for d in documents]
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
               for v in values):  # fmt: skip
            return np.asarray(values, dtype=np.float64)
        logger.warning("metadata[%r] is missing or not a finite number on some documents; "
                       "embedding the query and documents instead", self.score_key)  # fmt: skip
        return None

    def _rerank(
        self, documents: Sequence[Document], query: str, sims: np.ndarray | None
    ) -> list[Document]:
        reranker = self.reranker
        passages = [passage_from_metadata(d.page_content, d.metadata, self.title_key, d.id)
                    for d in documents]
        graphs = [reranker.stored_graph(d.metadata.get(self.graph_key)) for d in documents]
        ranked = reranker.rerank(query, passages, top_n=self.top_n, query_similarities=sims,
                                 graphs=graphs)  # fmt: skip
        return [
            Document(
                page_content=documents[r.index].page_content,
                metadata=ranked_metadata(documents[r.index].metadata, r),
                id=documents[r.index].id,
            )
            for r in ranked
        ]


def _cosines(query_vector: Sequence[float], doc_vectors: Sequence[Sequence[float]]) -> np.ndarray:
    return cosine_matrix(np.asarray([query_vector], dtype=np.float64),
                         np.asarray(doc_vectors, dtype=np.float64))[0]  # fmt: skip
