"""CageRerank: CAGE as a LangChain ``BaseDocumentCompressor``."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

import numpy as np
from langchain_core.callbacks import Callbacks
from langchain_core.documents import BaseDocumentCompressor, Document
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import VectorStore
from pydantic import ConfigDict, Field, PrivateAttr, SecretStr, model_validator

from cage_core import CageConfig, CageReranker
from cage_core.call_checks import CheckedPool, check_query
from cage_core.graphs.cache import EmbeddingCache, embedding_key
from cage_core.integrations.fused_scores import rank_fusion_values
from cage_core.integrations.pickled_state import without_private_attributes
from cage_core.integrations.rerank_call import (
    embedded_similarities,
    lazy_reranker,
    ranked_items,
    routed_pool,
    routed_similarities,
    warn_once,
)
from cage_core.integrations.steps import Call, Steps, arun, run
from cage_core.metadata import (
    GRAPH_KEY,
    RETRIEVAL_SCORE_KEY,
    TITLE_KEY,
    is_finite_score,
)
from cage_core.names.routes import DocumentRoute
from cage_core.reranker import DEFAULT_MAX_POOL
from cage_core.scoring import cosine_matrix
from cage_langchain.ids import stored_id
from cage_langchain.store_vectors import store_embeddings, stored_vectors
from cage_langchain.structure import document_passages

__all__ = [
    "EMBEDDING_CACHE_SIZE",
    "CageRerank",
]

logger = logging.getLogger(__name__)

EMBEDDING_CACHE_SIZE = 100_000
"""Document embeddings kept per ``CageRerank`` (keyed by content hash)."""


class CageRerank(BaseDocumentCompressor):
    """Rerank retrieved documents by CAGE (see :mod:`cage_core.methods.cage` for the scores).

    The query–document similarity is, in order of preference: with ``vectorstore`` (the
    store the documents come from), the cosine of the query's vector (the store's embeddings)
    and each document's stored vector, the few documents the store does not hold embedded by
    the store's embeddings (the way behind a hybrid retriever such as ``EnsembleRetriever``,
    whose documents carry no similarity, or a fusion value at most); else the retriever's
    score in ``metadata[score_key]`` (default ``"retrieval_score"``, which
    :class:`~cage_langchain.ScoredVectorStoreRetriever` fills with the cosine) when every
    document has a real number there that is not a reciprocal-rank-fusion value
    (:mod:`cage_core.integrations.fused_scores`); else the cosine of ``embeddings`` (any
    LangChain ``Embeddings``, e.g. the vector store's); else the packaged all-MiniLM-L6-v2.
    Document embeddings are cached by content hash, so a document is embedded at most once
    per ``CageRerank``.

    Documents without a retriever score are the slow path (the query and every document
    embedded, ~1 s a query on a CPU instead of milliseconds): the first call that takes it
    logs one warning per ``CageRerank`` with the measured cost and the fix
    (``vectorstore=``, :class:`~cage_langchain.ScoredVectorStoreRetriever`); ``score_key=None``
    embeds on purpose, without the warning (:mod:`cage_core.integrations.rerank_call`).

    Returns new ``Document``s, best first, cut to ``top_n``; each has a copy of the original
    metadata plus the keys :mod:`cage_core.metadata` lists: ``relevance_score`` (a 0–1
    relevance in the fused score's order that also carries how well the pool matches the query,
    so one cutoff keeps on-topic evidence and drops off-topic pools:
    :mod:`cage_core.relevance`), ``cage_score``, ``cage_similarity``, ``cage_coherence``,
    ``cage_rank``, ``cage_via`` and ``cage_path``. A LangChain ``Document`` has no metadata
    exclusion list: LangChain's document chains show the LLM ``page_content`` only (their
    default document prompt is ``"{page_content}"``), so these keys reach a prompt only when a
    custom document prompt names them, and embeddings are never taken from metadata. The
    caller's documents are never modified. A graph stored by
    :class:`~cage_langchain.CageGraphTransformer` under ``metadata["cage_graph"]`` is used
    instead of parsing, if it was built from this very document's content. Each document's
    place in its document (``metadata["source"]`` and ``metadata["start_index"]`` of a splitter
    with ``add_start_index=True``, or ``doc_id`` / ``position``) is read by
    :func:`~cage_langchain.structure.document_passages`. Pickles and deep-copies without its
    models, which reload lazily.

    A pool that :class:`~cage_langchain.CageExpansionRetriever` routed for this very query
    (``metadata["cage_route"]``: the question names documents of the collection;
    :mod:`cage_core.integrations.document_routing`) is ranked for the question less the words
    naming them, with the documents' ``cage_route_score`` as similarities when every one has
    it (else ``embeddings`` or the packaged model embed that question and the pool), and the
    named documents' passages first; each of those gets ``cage_expanded_via`` (why it is
    there: the question names its document) and ``cage_named_document``. The pool's 0–1
    ``relevance_score`` reads the best similarity of the question as asked too (every
    document's ``metadata[score_key]``, or with a ``vectorstore`` its vectors' cosine), so
    shortening the question does not lower it (:mod:`cage_core.relevance`). A pool without a
    route for the query is ranked as if routing did not exist.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    top_n: int | None = Field(default=5, ge=0)
    """How many documents to return (the paper's context size); ``None`` returns all."""
    alpha: float | None = Field(default=None, ge=0.0, le=1.0)
    """Fusion weight α of titled pools (and of every pool under
    ``config=CageConfig.preset("paper")``); overrides ``config.alpha`` when set. It does not
    act on documents without titles (their α is ``config.untitled.alpha``), on chunks of
    split documents (the document view ranks them, by ``config.document``), nor with a
    ``method`` that sets its own α (``"paper"``: 0.7; ``"hybrid"``: 1) or reads none
    (``"grapher"``, ``"tegr"``, the baselines); each case logs so, once."""
    config: CageConfig = Field(default_factory=CageConfig)
    """The rest of the core configuration, the document view's settings included
    (``CageConfig(document=DocumentConfig(...))``: chunks of split documents). Which kinds of
    pool each setting acts on: docs/configuration.md."""
    embeddings: Embeddings | None = None
    """Embeddings for the similarity when no retriever score is given; default: the
    packaged all-MiniLM-L6-v2."""
    score_key: str | None = RETRIEVAL_SCORE_KEY
    """Metadata key holding the retriever's own query similarity (``None``: always embed)."""
    vectorstore: VectorStore | None = None
    """The store the documents come from: the similarities are then the cosines of its stored
    vectors (its embeddings embed the query and any document it does not hold), and
    ``metadata[score_key]`` is not read. Needs a store with ``embeddings``."""
    graph_key: str = GRAPH_KEY
    """Metadata key of a passage graph stored at ingest."""
    title_key: str | None = TITLE_KEY
    """Metadata key of the document title (titles let CAGE link passages that name each other)."""
    spacy_model: str | None = None
    """spaCy pipeline name or path; default: the best installed English pipeline."""
    method: str = "cage"
    """The ranking method: "cage" (default), or any name of :mod:`cage_core.methods` such as
    "grapher", "tegr", "cage-contra", "paper"."""
    max_pool: int | None = Field(default=DEFAULT_MAX_POOL, ge=1)
    """The most documents one call ranks (``None``: no bound); more raise ``ValueError``
    (:class:`~cage_core.CageReranker`, docs/limits.md)."""
    integrity_key: SecretStr | None = None
    """A secret shared by ingest and rerank: stored graphs then carry an HMAC under it and
    only graphs with a valid one are used (:mod:`cage_core.graphs.integrity`); ``None``: the
    content hash alone, a freshness check, not protection against a store others can write."""

    _reranker: CageReranker | None = PrivateAttr(default=None)
    _embedding_cache: EmbeddingCache | None = PrivateAttr(default=None)
    _warned_fallback: bool = PrivateAttr(default=False)

    @model_validator(mode="after")
    def _store_embeds(self) -> CageRerank:
        if self.vectorstore is not None and store_embeddings(self.vectorstore) is None:
            raise ValueError(
                f"vectorstore: {type(self.vectorstore).__name__} has no embeddings to embed the "
                f"query with; pass a store built with LangChain Embeddings"
            )
        return self

    @property
    def reranker(self) -> CageReranker:
        """The core reranker (created on first use; models are shared per process)."""
        return lazy_reranker(self)

    def __getstate__(self) -> dict[Any, Any]:
        return without_private_attributes(super().__getstate__())

    def compress_documents(
        self,
        documents: Sequence[Document],
        query: str,
        callbacks: Callbacks | None = None,
    ) -> Sequence[Document]:
        """Rerank ``documents`` for ``query``; see the class docstring."""
        return run(self._steps(documents, query))

    async def acompress_documents(
        self,
        documents: Sequence[Document],
        query: str,
        callbacks: Callbacks | None = None,
    ) -> Sequence[Document]:
        """Async :meth:`compress_documents`: embeddings are awaited, CAGE runs in a thread."""
        return await arun(self._steps(documents, query))

    def _steps(self, documents: Sequence[Document], query: str) -> Steps[list[Document]]:
        """One call, sync or async (:mod:`cage_core.integrations.steps`): the pool converted
        and checked once (:func:`~cage_core.integrations.rerank_call.routed_pool`), its
        similarities (class docstring), the ranking."""
        check_query(query)  # a blank query is an error whatever the pool
        if not documents or self.top_n == 0:
            return []
        texts = [d.page_content for d in documents]
        metadatas = [d.metadata for d in documents]
        passages = document_passages(documents, self.title_key)
        pool, route = routed_pool(self, query, passages, metadatas)
        sims: np.ndarray | None
        asked: np.ndarray | None = None  # a routed pool's, for the question as asked
        if self.vectorstore is not None:
            held, unheld = yield Call(lambda: self._stored(documents))
            embeddings = store_embeddings(self.vectorstore)
            assert embeddings is not None  # checked when made
            sims = yield from self._embedded(embeddings, pool.question, texts, unheld, held)
            if pool.routed:
                asked = yield from self._embedded(embeddings, pool.query, texts, unheld, held)
        else:
            sims, reason = self._retriever_similarities(metadatas, pool.routed)
            if sims is not None and pool.routed:
                asked, _ = self._retriever_similarities(metadatas)
            if sims is None:
                own = self.embeddings
                embed = None if own is None else self._embedded(own, pool.question, texts, texts)
                sims = yield from embedded_similarities(self, logger, pool, reason, _FIX, embed)
        scored = pool.with_similarities(sims, asked)
        return (yield Call(lambda: self._rerank(documents, scored, route)))

    # -- similarities -------------------------------------------------------------------
    def _stored(self, documents: Sequence[Document]) -> tuple[dict[int, np.ndarray], list[str]]:
        """The ``vectorstore``'s vectors of ``documents`` by position, and the texts of those
        it holds none for (a store whose vectors are not read: every text, warned once)."""
        assert self.vectorstore is not None
        ids = [stored_id(d, self.title_key) for d in documents]
        stored = stored_vectors(self.vectorstore, ids)
        if stored is None:
            warn_once(self, logger, _UNREAD.format(type(self.vectorstore).__name__))
        held = {n: stored[i] for n, i in enumerate(ids) if stored and i in stored}
        return held, [d.page_content for n, d in enumerate(documents) if n not in held]

    def _retriever_similarities(
        self, metadatas: list[dict[str, Any]], routed: bool = False
    ) -> tuple[np.ndarray | None, str]:
        """The retriever's scores (of a ``routed`` pool: its ``cage_route_score``), or ``None``
        and why there are none (``""``: not asked for)."""
        if self.score_key is None:
            return None, ""
        if routed:
            return routed_similarities(metadatas, "documents")
        values = [m.get(self.score_key) for m in metadatas]
        bad = sum(not is_finite_score(v) for v in values)
        if not bad:
            sims = np.asarray([float(v) for v in values], dtype=np.float64)  # type: ignore[arg-type]
            if rank_fusion_values(sims):
                return None, (
                    f"metadata[{self.score_key!r}] holds reciprocal-rank-fusion values, not "
                    f"similarities"
                )
            return sims, ""
        if bad == len(values) and all(v is None for v in values):
            return None, (
                f"the documents came without retriever scores (no metadata[{self.score_key!r}])"
            )
        return None, (
            f"metadata[{self.score_key!r}] is missing or not a finite number on {bad} of "
            f"{len(values)} documents (a hybrid retriever such as EnsembleRetriever keeps no "
            f"similarity)"
        )

    @property
    def embedding_cache(self) -> EmbeddingCache:
        """Document embeddings by content hash (``embeddings`` only)."""
        if self._embedding_cache is None:
            self._embedding_cache = EmbeddingCache(EMBEDDING_CACHE_SIZE)
        return self._embedding_cache

    def _embedded(
        self,
        embeddings: Embeddings,
        question: str,
        texts: list[str],
        unheld: list[str],
        held: dict[int, np.ndarray] | None = None,
    ) -> Steps[np.ndarray]:
        """The cosine of ``question`` with each of ``texts``: its ``held`` (stored) vector by
        position, else its embedding by ``embeddings`` (each distinct text of ``unheld`` once,
        cached by content hash); the question and the missing texts are embedded together."""
        key_of = {text: embedding_key(text, None) for text in unheld}
        cached = self.embedding_cache.get_many(list(key_of.values()))
        found = {text: cached[key] for text, key in key_of.items() if key in cached}
        missing = [text for text in key_of if text not in found]
        new, q = yield Call(
            lambda: (
                embeddings.embed_documents(missing) if missing else [],
                embeddings.embed_query(question),
            ),
            lambda: _gathered(embeddings, question, missing),
        )
        if len(new) != len(missing):
            raise ValueError(f"embeddings returned {len(new)} vectors for {len(missing)} texts")
        for text, vector in zip(missing, new):
            found[text] = np.asarray(vector, dtype=np.float64)
            self.embedding_cache.put(embedding_key(text, None), found[text])
        held = held or {}
        rows = [held[n] if n in held else found[t] for n, t in enumerate(texts)]
        return cosine_matrix(np.asarray([q], dtype=np.float64), np.stack(rows))[0]

    # -- ranking ------------------------------------------------------------------------
    def _rerank(
        self, documents: Sequence[Document], pool: CheckedPool, route: DocumentRoute | None
    ) -> list[Document]:
        items = ranked_items(self, pool, [d.metadata for d in documents], route)
        return [
            Document(
                page_content=documents[i.index].page_content,
                metadata=i.metadata,
                id=documents[i.index].id,
            )
            for i in items
        ]


_FIX = (
    "Pass CageRerank(vectorstore=store) (the store the documents come from: its stored vectors "
    "give the similarities, also behind a hybrid retriever), or retrieve with "
    "ScoredVectorStoreRetriever(vectorstore=store, k=...) instead of store.as_retriever(), or "
    "set score_key=None to embed on purpose."
)
_UNREAD = (
    "CageRerank: {}'s stored vectors are not read, so its embeddings embed every passage (the "
    "slow path); the stores whose vectors are read: InMemoryVectorStore, Chroma, FAISS, Qdrant "
    "(warned once per CageRerank)"
)


async def _gathered(
    embeddings: Embeddings, question: str, missing: list[str]
) -> tuple[list[list[float]], list[float]]:
    """The embeddings of the ``missing`` texts and of the ``question``, awaited together."""
    q, new = await asyncio.gather(
        embeddings.aembed_query(question),
        embeddings.aembed_documents(missing) if missing else _nothing(),
    )
    return new, q


async def _nothing() -> list[list[float]]:
    return []
