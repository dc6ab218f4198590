"""CageExpansionRetriever: a base retriever's nodes plus the nodes linked to them.

A multi-hop question's second hop is often not among a retriever's top ``k``; the link
index built at ingest (:class:`~cage_llamaindex.CageGraphExtractor` with ``link_index``, or
``cage enrich --link-index``) knows which stored nodes the retrieved ones name. This
retriever adds them before reranking, so ``CageRerank`` can rank the second hop. A question
that names documents of the collection also gets their best nodes for the question less the
words naming them (routing, :mod:`cage_core.integrations.document_routing`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from concurrent.futures import Future

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.base.embeddings.base import Embedding
from llama_index.core.callbacks import CallbackManager
from llama_index.core.indices.vector_store import VectorStoreIndex
from llama_index.core.schema import BaseNode, MetadataMode, NodeWithScore, QueryBundle

from cage_core.expansion.contract import (
    DEFAULT_ADDED_SCORE,
    DEFAULT_SIBLINGS,
    AddedScore,
    LinkIndexSource,
    Neighbours,
    added_score,
    expansion_metadata,
    expansions_for,
    fallback_score,
    in_expansion_order,
    index_neighbours,
    load_link_index,
    sibling_expansions,
    validated_added_score,
    validated_bound,
)
from cage_core.expansion.index import DEFAULT_LIMIT, DEFAULT_SEEDS, Expansion, LinkIndex
from cage_core.expansion.routing import DocumentRoute, NamedDocument, RoutingSettings
from cage_core.integrations.ahead import ahead, result_or_none
from cage_core.integrations.document_routing import (
    NAMED_DOCUMENT_KEY,
    ROUTE_KEY,
    ROUTE_SCORE_KEY,
    ROUTING_KEYS,
    best_named_chunks,
    route_for,
    route_metadata,
    routed_search_ids,
)
from cage_core.metadata import EXPANDED_VIA_KEY, EXPANSION_KEYS, TITLE_KEY
from cage_llamaindex.document_search import (
    DocumentSearch,
    chroma_collection,
    index_scores,
    restricted_retriever,
    scores_of,
    with_metadata,
)
from cage_llamaindex.structure import adjacent_node_ids

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
    (hidden from the embedding and LLM views, like the graph). Their ``score``, when every
    base node has one: the vector store's similarity of the node to the query, from the
    index's own retriever restricted to those node ids (``VectorStoreQuery.node_ids``, and
    Chroma's ``ids``; the query embedding is reused in the sync path, computed again in the
    async one), or with ``added_score="lowest"`` the lowest base score. Base nodes are
    returned as the base retriever gave them. After the linked nodes come up to
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
            linked nodes (:mod:`cage_core.expansion.contract`); 0: none.
        added_score: ``"store"`` or ``"lowest"`` (:mod:`cage_core.expansion.contract`, step 4).
        routing: how questions that name documents are routed (below); ``None``: never.
        title_key: metadata key of node titles (as the extractor's), read to tell a node's
            document where it is ``"{source}#{title}"``.

    **Routing** (on by default; :mod:`cage_core.integrations.document_routing`): when the
    question confidently names documents of the link index
    (:func:`~cage_core.expansion.routing.route_question` over :meth:`LinkIndex.documents
    <cage_core.expansion.index.LinkIndex.documents>`), each named document's best
    ``routing.chunks`` nodes for the question less its naming words come after the linked
    nodes, each once (none already in the pool), from the index's own retriever restricted to
    that document's node ids by the link index (one query with the pool's node ids); when that
    query cannot serve (over
    :data:`~cage_core.integrations.document_routing.ROUTED_SEARCH_IDS` ids, or a store that does
    not return every id), one query per document restricted by ``MetadataFilters`` on
    ``ref_doc_id`` (a node parser's nodes), or on the metadata key that holds the node's
    document (``source``, ``file_path``, with the title where the document is
    ``"{source}#{title}"``), else on its node ids, and one over the pool's node ids. They carry ``cage_expanded_via`` (the document's
    :attr:`~cage_core.expansion.routing.NamedDocument.via`) and ``cage_named_document``, and a
    score as the linked nodes get one. Then every node of the pool is a copy carrying
    ``cage_route`` (the route) and, where the store gives it, ``cage_route_score`` (its score
    for the shortened question), which :class:`~cage_llamaindex.CageRerank` ranks with; these
    keys are hidden from the embedding and LLM views. A question that names no document, or a
    link index without document records, returns exactly what it would without routing. Costs,
    for a routed question, one embedding of the shortened question (sync; the async path runs
    the routing steps in a thread) and one restricted query (else the queries above).
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
        self.title_key = title_key
        super().__init__(callback_manager=callback_manager, verbose=verbose)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        route = self.route(query_bundle.query_str)
        short = QueryBundle(query_str=route.question)  # embedded once, while the base retrieves
        embedding = self._embed_ahead(route, short)
        nodes = self.retriever.retrieve(query_bundle)
        short.embedding = result_or_none(embedding)
        expansions = self._expansions(query_bundle, nodes)
        if not expansions and not route:
            return list(nodes)
        found = self._fetch([e.id for e in expansions]) if expansions else {}
        chosen = self._chosen(expansions, found, nodes)
        named, route_scores = self._named(route, short, nodes, chosen)
        added = [node for _, node in chosen] + [n.node for _, n in named]
        scores = self._scores(query_bundle, added, nodes)
        return self._pool(query_bundle.query_str, route, nodes, chosen, named, scores, route_scores)

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        route = self.route(query_bundle.query_str)
        short = QueryBundle(query_str=route.question)
        embedding = self._embed_ahead(route, short)
        nodes = await self.retriever.aretrieve(query_bundle)
        short.embedding = await asyncio.to_thread(result_or_none, embedding)
        expansions = self._expansions(query_bundle, nodes)
        if not expansions and not route:
            return list(nodes)
        found = await self._afetch([e.id for e in expansions]) if expansions else {}
        chosen = self._chosen(expansions, found, nodes)
        named, route_scores = (
            await asyncio.to_thread(self._named, route, short, nodes, chosen) if route else ([], {})
        )
        added = [node for _, node in chosen] + [n.node for _, n in named]
        scores = await self._ascores(query_bundle, added, nodes)
        return self._pool(query_bundle.query_str, route, nodes, chosen, named, scores, route_scores)

    def _pool(
        self,
        query: str,
        route: DocumentRoute,
        nodes: Sequence[NodeWithScore],
        chosen: list[tuple[Expansion, BaseNode]],
        named: list[tuple[NamedDocument, NodeWithScore]],
        scores: dict[str, float],
        route_scores: dict[str, float],
    ) -> list[NodeWithScore]:
        """The base nodes, then the linked ones, then the named documents' nodes; with a
        route, as copies that carry it (:meth:`_routed_pool`)."""
        added = self._added(chosen, scores, nodes) + self._named_added(named, scores, nodes)
        pool = list(nodes) + added
        return self._routed_pool(query, route, pool, route_scores) if route else pool

    # -- routing (cage_core.integrations.document_routing) -------------------------------------
    def _embed_ahead(self, route: DocumentRoute, bundle: QueryBundle) -> Future[Embedding] | None:
        """The shortened question (``bundle``) embedded as the index's retriever embeds it, on
        a worker thread while the base retriever runs (:mod:`cage_core.integrations.ahead`);
        ``None`` without a route or for a store that embeds queries itself."""
        if not route or not self.index.vector_store.is_embedding_query:
            return None
        model = self.index._embed_model
        return ahead(lambda: model.get_agg_embedding_from_queries(bundle.embedding_strs))

    def route(self, query: str) -> DocumentRoute:
        """The documents ``query`` names by the link index's records (none when ``routing`` is
        ``None``)."""
        return route_for(query, self.link_index, self.routing)

    def _named(
        self,
        route: DocumentRoute,
        bundle: QueryBundle,
        nodes: Sequence[NodeWithScore],
        chosen: list[tuple[Expansion, BaseNode]],
    ) -> tuple[list[tuple[NamedDocument, NodeWithScore]], dict[str, float]]:
        """Each named document's best nodes for the shortened question (``bundle``, shared by
        every query, so it is embedded once), with their scores, less those already in the
        pool (by id: a contract's clause worded as another's is still its own); and the pool's
        scores for the shortened question. One search when it can
        (:mod:`cage_core.integrations.document_routing`, "One search"), else two."""
        if not route or self.routing is None:
            return [], {}
        pool_ids = [n.node.node_id for n in nodes] + [node.node_id for _, node in chosen]
        chunks = {d.doc_id: self.link_index.chunks_of(d.doc_id) for d in route.documents}
        ids = routed_search_ids(route, pool_ids, chunks)
        scores = self._store_scores(bundle, ids) if ids is not None else {}
        if ids is not None and len(scores) == len(ids):
            best = best_named_chunks(route, scores, chunks, pool_ids, self.routing.chunks)
            found = self._fetch([pid for _, pid in best]) if best else {}
            named = [
                (document, NodeWithScore(node=found[pid], score=scores[pid]))
                for document, pid in best
                if pid in found
            ]
            return named, scores
        taken = set(pool_ids)
        named = []
        for document in route.documents:
            for hit in self.document_search(bundle, document.doc_id, self.routing.chunks):
                if hit.node.node_id not in taken:
                    taken.add(hit.node.node_id)
                    named.append((document, hit))
        route_scores = {n.node.node_id: float(n.score) for _, n in named if n.score is not None}
        others = [i for i in dict.fromkeys(pool_ids) if i not in route_scores]
        route_scores.update(self._store_scores(bundle, others))
        return named, route_scores

    @property
    def document_search(self) -> DocumentSearch:
        """The index's retriever restricted to one document."""
        return DocumentSearch(
            self.index, self.link_index, self._fetch, self.title_key, self.callback_manager
        )

    def _named_added(
        self,
        named: list[tuple[NamedDocument, NodeWithScore]],
        scores: dict[str, float],
        nodes: Sequence[NodeWithScore],
    ) -> list[NodeWithScore]:
        fallback = fallback_score([n.score for n in nodes])
        out = []
        for document, found in named:
            copy = with_metadata(
                found.node,
                {EXPANDED_VIA_KEY: document.via, NAMED_DOCUMENT_KEY: document.doc_id},
                ROUTING_KEYS,
            )
            score = added_score(scores.get(found.node.node_id), fallback)
            out.append(NodeWithScore(node=copy, score=score))
        return out

    def _routed_pool(
        self,
        query: str,
        route: DocumentRoute,
        pool: list[NodeWithScore],
        scores: dict[str, float],
    ) -> list[NodeWithScore]:
        """Copies of ``pool`` with the route and each node's score for the shortened question
        (``scores``, by node id: :meth:`_named`'s)."""
        out = []
        for n in pool:
            extra: dict[str, object] = {ROUTE_KEY: route_metadata(query, route)}
            if n.node.node_id in scores:
                extra[ROUTE_SCORE_KEY] = scores[n.node.node_id]
            out.append(
                NodeWithScore(node=with_metadata(n.node, extra, ROUTING_KEYS), score=n.score)
            )
        return out

    # -- the steps of cage_core.expansion.contract ---------------------------------------------
    def _expansions(self, bundle: QueryBundle, nodes: Sequence[NodeWithScore]) -> list[Expansion]:
        ids = [n.node.node_id for n in nodes]
        linked = expansions_for(
            self.link_index, bundle.query_str, ids, seeds=self.seeds, limit=self.limit
        )
        by_id = {n.node.node_id: n.node for n in reversed(nodes)}  # a repeated id: the first

        def neighbours(node_id: str) -> Neighbours:
            node = by_id[node_id]
            adjacent = adjacent_node_ids(node)
            if adjacent:
                return node.ref_doc_id, adjacent
            return index_neighbours(self.link_index, node_id)

        return linked + sibling_expansions(
            [i for i in ids if i],
            neighbours,
            seeds=self.seeds,
            limit=self.siblings,
            excluded={e.id for e in linked},
        )

    def _fetch(self, ids: list[str]) -> dict[str, BaseNode]:
        found: dict[str, BaseNode] = {}
        store = self.index.vector_store
        if store.stores_text:
            try:
                found = {n.node_id: n for n in store.get_nodes(node_ids=ids)}
            except NotImplementedError:
                logger.debug("%s has no get_nodes; reading the docstore", type(store).__name__)
        rest = [i for i in ids if i not in found]
        if rest:
            found.update(
                (n.node_id, n) for n in self.index.docstore.get_nodes(rest, raise_error=False)
            )
        return found

    async def _afetch(self, ids: list[str]) -> dict[str, BaseNode]:
        found: dict[str, BaseNode] = {}
        store = self.index.vector_store
        if store.stores_text:
            try:
                found = {n.node_id: n for n in await store.aget_nodes(node_ids=ids)}
            except NotImplementedError:
                logger.debug("%s has no get_nodes; reading the docstore", type(store).__name__)
        rest = [i for i in ids if i not in found]
        if rest:
            nodes = await self.index.docstore.aget_nodes(rest, raise_error=False)
            found.update((n.node_id, n) for n in nodes)
        return found

    @staticmethod
    def _chosen(
        expansions: list[Expansion], found: dict[str, BaseNode], nodes: Sequence[NodeWithScore]
    ) -> list[tuple[Expansion, BaseNode]]:
        texts = {_text(n.node) for n in nodes}
        return in_expansion_order(expansions, found, texts, _text)

    def _store_scores(self, bundle: QueryBundle, ids: list[str]) -> dict[str, float]:
        """The index's scores of the node ``ids`` for ``bundle``
        (:func:`~cage_llamaindex.document_search.index_scores`)."""
        return index_scores(self.index, bundle, ids, self.callback_manager)

    def _scoring_retriever(self, ids: list[str]) -> BaseRetriever:
        """The index's retriever restricted to ``ids`` (all in the store)."""
        return restricted_retriever(self.index, ids, callback_manager=self.callback_manager)

    def _store_scored(self, added: list[BaseNode], nodes: Sequence[NodeWithScore]) -> bool:
        """Whether the store is asked for the added nodes' scores."""
        return (
            self.added_score == "store"
            and bool(added)
            and fallback_score([n.score for n in nodes]) is not None
        )

    def _scores(
        self,
        bundle: QueryBundle,
        added: list[BaseNode],
        nodes: Sequence[NodeWithScore],
    ) -> dict[str, float]:
        """The store's scores of the added nodes (none when a base node has no score)."""
        if not self._store_scored(added, nodes):
            return {}
        return self._store_scores(_bundle_copy(bundle), [node.node_id for node in added])

    async def _ascores(
        self,
        bundle: QueryBundle,
        added: list[BaseNode],
        nodes: Sequence[NodeWithScore],
    ) -> dict[str, float]:
        """Async :meth:`_scores`."""
        if not self._store_scored(added, nodes):
            return {}
        ids = [node.node_id for node in added]
        if chroma_collection(self.index.vector_store) is not None:  # stored vectors: no query
            return await asyncio.to_thread(self._store_scores, _bundle_copy(bundle), ids)
        try:
            found = await self._scoring_retriever(ids).aretrieve(_bundle_copy(bundle))
        except Exception as exc:
            logger.debug("the index could not score the linked nodes (%s)", exc)
            return {}
        return scores_of(found, ids)

    @staticmethod
    def _added(
        chosen: list[tuple[Expansion, BaseNode]],
        scores: dict[str, float],
        nodes: Sequence[NodeWithScore],
    ) -> list[NodeWithScore]:
        fallback = fallback_score([n.score for n in nodes])
        out = []
        for expansion, node in chosen:
            copy = node.model_copy()
            copy.metadata = expansion_metadata(node.metadata, expansion)
            for attr in ("excluded_embed_metadata_keys", "excluded_llm_metadata_keys"):
                keys = list(getattr(node, attr))
                setattr(copy, attr, keys + [k for k in EXPANSION_KEYS if k not in keys])
            out.append(
                NodeWithScore(node=copy, score=added_score(scores.get(node.node_id), fallback))
            )
        return out


def _text(node: BaseNode) -> str:
    return node.get_content(metadata_mode=MetadataMode.NONE)


def _bundle_copy(bundle: QueryBundle) -> QueryBundle:
    """A query bundle to hand the scoring retriever (which may set its embedding)."""
    return QueryBundle(
        query_str=bundle.query_str,
        image_path=bundle.image_path,
        custom_embedding_strs=bundle.custom_embedding_strs,
        embedding=bundle.embedding,
    )
