"""CageExpansionRetriever: a base retriever's nodes plus the nodes linked to them.

Why and how (the second hop, routing): :mod:`cage_core.expansion.contract` and
:mod:`cage_core.integrations.document_routing`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from typing import Any

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.callbacks import CallbackManager
from llama_index.core.indices.vector_store import VectorStoreIndex
from llama_index.core.schema import BaseNode, MetadataMode, NodeWithScore, QueryBundle

from cage_core.expansion.contract import (
    DEFAULT_ADDED_SCORE,
    DEFAULT_SIBLINGS,
    AddedScore,
    LinkIndexSource,
    Neighbours,
    index_neighbours,
    load_link_index,
    validated_added_score,
    validated_bound,
)
from cage_core.expansion.index import DEFAULT_LIMIT, DEFAULT_SEEDS, LinkIndex
from cage_core.expansion.routing import RoutingSettings
from cage_core.integrations.ahead import ahead
from cage_core.integrations.document_routing import (
    ROUTE_KEY,
    ROUTE_SCORE_KEY,
    ROUTING_KEYS,
    route_for,
)
from cage_core.integrations.expanded_pool import DEFAULT_CITED, ExpandedPool, PoolStore
from cage_core.integrations.steps import Call, Steps, arun, run
from cage_core.metadata import TITLE_KEY
from cage_core.names.routes import DocumentRoute
from cage_llamaindex.document_search import DocumentSearch
from cage_llamaindex.index_vectors import COSINE_KEY, id_cosines, index_cosines
from cage_llamaindex.structure import adjacent_node_ids, with_metadata

__all__ = [
    "CageExpansionRetriever",
]

logger = logging.getLogger(__name__)


class CageExpansionRetriever(BaseRetriever):
    """``retriever``'s nodes, then the nodes of ``index`` linked to them.

    The contract (order, bounds, skipped nodes and ids, metadata, the added nodes' score) is
    that of :mod:`cage_core.expansion.contract`. Added nodes are copies of the index's nodes
    (fetched by id from the vector store when it keeps the text, e.g. Chroma, else from the
    index's docstore) whose metadata gains ``cage_expanded_via`` and ``cage_expanded_from``
    (hidden from the embedding and LLM views, like the graph). **Scores are cosines**: every
    node of the pool, base nodes included, is handed on as a copy whose ``score`` is the
    cosine of its vector and the query's, the scale :class:`~cage_llamaindex.CageRerank`'s
    0–1 score was calibrated on, whatever the store's own scale (Chroma's ``exp(−distance)``,
    FAISS's distance) or the base retriever's (a fusion value): the vectors the index's store
    holds, only nodes it holds none for embedded by the index's ``embed_model``
    (:mod:`cage_llamaindex.index_vectors`); the same value is in ``metadata["cage_cosine"]``
    (hidden like the graph), which ``CageRerank`` reads, so it needs no ``index=`` behind this
    retriever. The added nodes are scored so before the pool is cut (the query embedding
    reused), or with ``added_score="lowest"`` take the lowest base node's cosine; the base
    nodes keep the base retriever's order. After the linked nodes come up to
    ``siblings`` nodes next to a seed in its document: its ``PREVIOUS`` then ``NEXT`` node
    (as a node parser links them), else the link index's neighbours (``doc_id`` /
    ``position``), with ``cage_expanded_via="same document"``.

    Args:
        retriever: any retriever over ``index``'s nodes (e.g. ``index.as_retriever()``).
        index: the ``VectorStoreIndex`` the linked nodes are fetched from.
        link_index: a :class:`~cage_core.expansion.index.LinkIndex` or the path of a saved one,
            read here (a bad header raises
            :class:`~cage_core.expansion.index.LinkIndexFormatError`; invalid entries are
            skipped with one warning).
        seeds: how many base nodes (most relevant first) are expanded.
        limit: how many linked nodes are added at most.
        siblings: how many same-document neighbours of the seeds are added at most, after the
            linked nodes (:mod:`cage_core.expansion.contract`); 0: none. At the default
            ``limit`` the linked nodes usually hold them already (the extractor's link index
            links adjacent chunks): then it changes nothing
            (:data:`~cage_core.expansion.contract.DEFAULT_SIBLINGS`).
        added_score: ``"store"`` or ``"lowest"`` (:mod:`cage_core.expansion.contract`, step 4).
        routing: how questions that name documents are routed (below); ``None``: never.
        cited: how many documents the seeds cite by identifier ("RFC 9110") or title are
            followed, each to its best node for the question
            (:mod:`cage_core.integrations.expanded_pool`, step 5); 0: none.
        title_key: metadata key of node titles (as the extractor's), read to tell a node's
            document where it is ``"{source}#{title}"``.

    **Routing** (on by default): a question that names documents of the link index also gets
    each named document's best ``routing.chunks`` nodes for the question less its naming
    words, with ``cage_expanded_via`` and ``cage_named_document``; every node of the pool is
    then a copy carrying ``cage_route`` and, where the store gives it, ``cage_route_score``,
    which :class:`~cage_llamaindex.CageRerank` ranks with; these keys are hidden from the
    embedding and LLM views (the steps: :mod:`cage_core.integrations.expanded_pool`; the keys:
    :mod:`cage_core.integrations.document_routing`). The named documents' nodes and the pool
    are scored by the index's own retriever restricted to their node ids, else one query per
    document restricted by ``MetadataFilters`` (:mod:`cage_llamaindex.document_search`); the
    shortened question is embedded once, ahead (sync; the async path runs the routing steps
    in a thread). A question that names no document returns exactly what it would without
    routing.
    """

    def __init__(
        self,
        retriever: BaseRetriever,
        index: VectorStoreIndex,
        link_index: LinkIndexSource,
        *,
        seeds: int = DEFAULT_SEEDS,
        limit: int = DEFAULT_LIMIT,
        siblings: int = DEFAULT_SIBLINGS,
        added_score: AddedScore = DEFAULT_ADDED_SCORE,
        routing: RoutingSettings | None = RoutingSettings(),  # noqa: B008 - frozen
        cited: int = DEFAULT_CITED,
        title_key: str | None = TITLE_KEY,
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
    ) -> None:
        if not isinstance(retriever, BaseRetriever):
            raise TypeError(
                f"retriever must be a LlamaIndex BaseRetriever, got {type(retriever).__name__}"
            )
        if not isinstance(index, VectorStoreIndex):
            raise TypeError(f"index must be a VectorStoreIndex, got {type(index).__name__}")
        self.retriever = retriever
        self.index = index
        self.link_index: LinkIndex = load_link_index(link_index)
        self.seeds = validated_bound("seeds", seeds)
        self.limit = validated_bound("limit", limit)
        self.siblings = validated_bound("siblings", siblings)
        self.added_score = validated_added_score(added_score)
        if routing is not None and not isinstance(routing, RoutingSettings):
            raise TypeError(
                f"routing must be RoutingSettings or None, got {type(routing).__name__}"
            )
        self.routing = routing
        self.cited = validated_bound("cited", cited)
        self.title_key = title_key
        super().__init__(callback_manager=callback_manager, verbose=verbose)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        base, call = self._base(query_bundle)
        pool = self._pool().assemble(query_bundle.query_str, query_bundle, call)
        return self._with_cosines(pool, len(base), query_bundle)

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        base, call = self._base(query_bundle)
        pool = await self._pool().aassemble(query_bundle.query_str, query_bundle, call)
        return await asyncio.to_thread(self._with_cosines, pool, len(base), query_bundle)

    def _base(
        self, query_bundle: QueryBundle
    ) -> tuple[list[NodeWithScore], Call[list[NodeWithScore]]]:
        """The base retriever's call, and the list its nodes are kept in once it ran."""
        base: list[NodeWithScore] = []

        def retrieved() -> list[NodeWithScore]:
            base.extend(self.retriever.retrieve(query_bundle))
            return base

        async def aretrieved() -> list[NodeWithScore]:
            base.extend(await self.retriever.aretrieve(query_bundle))
            return base

        return base, Call(retrieved, aretrieved)

    def _with_cosines(
        self, pool: list[NodeWithScore], based: int, query_bundle: QueryBundle
    ) -> list[NodeWithScore]:
        """Copies of the pool's nodes (the first ``based`` the base retriever's) whose
        ``score`` and ``metadata["cage_cosine"]`` (hidden) are their cosine to the query
        (:func:`~cage_llamaindex.index_vectors.index_cosines`: the stored vectors, only nodes
        without one embedded); with ``added_score="lowest"`` the added nodes get the lowest
        base cosine. The pool as it is, logged at debug level, when that fails."""
        scored = pool if self.added_score == "store" else pool[:based]
        if not scored:
            return pool
        try:
            found, _ = index_cosines(
                self.index, scored, query_bundle.query_str, query_bundle.embedding
            )
        except Exception as exc:
            logger.debug("the pool's cosines could not be computed (%s)", exc)
            return pool
        cosines = [float(c) for c in found]
        cosines += [min(cosines)] * (len(pool) - len(cosines))
        return [
            NodeWithScore(node=with_metadata(n.node, {COSINE_KEY: c}, (COSINE_KEY,)), score=c)
            for n, c in zip(pool, cosines)
        ]

    def route(self, query: str) -> DocumentRoute:
        """The documents ``query`` names by the link index's records (none when ``routing`` is
        ``None``)."""
        return route_for(query, self.link_index, self.routing)

    @property
    def document_search(self) -> DocumentSearch:
        """The index's retriever restricted to one document."""
        return DocumentSearch(
            self.index, self.link_index, _Index(self).nodes, self.title_key, self.callback_manager
        )

    def _pool(self) -> ExpandedPool[NodeWithScore, BaseNode, QueryBundle]:
        """The pool of :mod:`cage_core.integrations.expanded_pool` over this index."""
        return ExpandedPool(_Index(self), self.link_index, self)


class _Index(PoolStore[NodeWithScore, BaseNode, QueryBundle]):
    """The retriever's index as :class:`~cage_core.integrations.expanded_pool.PoolStore` reads
    it: nodes by ``node_id``, scores on ``NodeWithScore.score``."""

    def __init__(self, retriever: CageExpansionRetriever) -> None:
        self.retriever = retriever
        self.index = retriever.index
        self.callback_manager = retriever.callback_manager

    def stored_id(self, passage: BaseNode) -> str:
        return passage.node_id

    def passage(self, result: NodeWithScore) -> BaseNode:
        return result.node

    def text(self, passage: BaseNode) -> str:
        return passage.get_content(metadata_mode=MetadataMode.NONE)

    def score(self, result: NodeWithScore) -> object:
        return result.score

    def siblings(
        self, ids: Sequence[str], results: Sequence[NodeWithScore]
    ) -> tuple[list[str], Callable[[str], Neighbours]]:
        """A seed's ``PREVIOUS`` and ``NEXT`` nodes, as a node parser links them; else the
        link index's neighbours."""
        by_id = {n.node.node_id: n.node for n in reversed(results)}  # a repeated id: the first
        link_index = self.retriever.link_index

        def neighbours(node_id: str) -> Neighbours:
            node = by_id[node_id]
            adjacent = adjacent_node_ids(node)
            if adjacent:
                return node.ref_doc_id, adjacent
            return index_neighbours(link_index, node_id)

        return [i for i in ids if i], neighbours

    def fetch(self, ids: list[str]) -> Call[Mapping[str, BaseNode]]:
        return Call(lambda: self.nodes(ids), lambda: arun(self._nodes(ids)))

    def nodes(self, ids: list[str]) -> dict[str, BaseNode]:
        """The nodes of ``ids`` from the vector store when it keeps the text, else (and for
        those it lacks) from the docstore."""
        return run(self._nodes(ids))

    def _nodes(self, ids: list[str]) -> Steps[dict[str, BaseNode]]:
        """:meth:`nodes`' steps (:mod:`cage_core.integrations.steps`)."""
        found: dict[str, BaseNode] = {}
        store, docstore = self.index.vector_store, self.index.docstore
        if store.stores_text:
            try:
                stored = yield Call(
                    lambda: store.get_nodes(node_ids=ids), lambda: store.aget_nodes(node_ids=ids)
                )
                found = {n.node_id: n for n in stored}
            except NotImplementedError:
                logger.debug("%s has no get_nodes; reading the docstore", type(store).__name__)
        rest = [i for i in ids if i not in found]
        if rest:
            kept = yield Call(
                lambda: docstore.get_nodes(rest, raise_error=False),
                lambda: docstore.aget_nodes(rest, raise_error=False),
            )
            found.update((n.node_id, n) for n in kept)
        return found

    def added_scores(self, question: QueryBundle, ids: list[str]) -> Call[Mapping[str, float]]:
        """The cosines of ``ids`` for the question (:func:`~cage_llamaindex.index_vectors.
        id_cosines` of a copy of the bundle, which it may give an embedding; the query
        embedding reused; a worker thread in the async path)."""
        return Call(lambda: self.route_scores(dataclasses.replace(question), ids))

    def route_scores(self, question: QueryBundle, ids: list[str]) -> Mapping[str, float]:
        return id_cosines(self.index, question, ids)

    def document_search(
        self, question: QueryBundle, doc_id: str, k: int, chunk_ids: Sequence[str]
    ) -> list[tuple[BaseNode, float]]:
        """The document's best nodes by the store's restricted search, each with its cosine
        for the (shortened) question, on the scale of :meth:`route_scores`."""
        hits = [
            n for n in self.retriever.document_search(question, doc_id, k) if n.score is not None
        ]
        if not hits:
            return []
        cosines, _ = index_cosines(self.index, hits, question.query_str, question.embedding)
        return [(n.node, float(c)) for n, c in zip(hits, cosines)]

    def shortened(self, route: DocumentRoute) -> QueryBundle:
        """One bundle for every routed query: the question is embedded once."""
        return QueryBundle(query_str=route.question)

    def embed_ahead(self, route: DocumentRoute, question: QueryBundle) -> Future[Any] | None:
        """The shortened question embedded as the index's retriever embeds it, on a worker
        thread while the base retriever runs (:mod:`cage_core.integrations.ahead`); ``None``
        without a route or for a store that embeds queries itself."""
        if not route or not self.index.vector_store.is_embedding_query:
            return None
        model = self.index._embed_model
        return ahead(lambda: model.get_agg_embedding_from_queries(question.embedding_strs))

    def embedded(self, question: QueryBundle, embedding: Any) -> None:
        question.embedding = embedding

    def added(
        self,
        passage: BaseNode,
        pid: str,
        extra: dict[str, Any],
        hidden: tuple[str, ...],
        score: float | None,
    ) -> NodeWithScore:
        return NodeWithScore(node=with_metadata(passage, extra, hidden), score=score)

    def routed(
        self, result: NodeWithScore, route: dict[str, Any], route_score: float | None
    ) -> NodeWithScore:
        extra: dict[str, object] = {ROUTE_KEY: route}
        if route_score is not None:
            extra[ROUTE_SCORE_KEY] = route_score
        return NodeWithScore(
            node=with_metadata(result.node, extra, ROUTING_KEYS), score=result.score
        )
