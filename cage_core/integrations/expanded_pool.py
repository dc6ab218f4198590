"""The expansion retrievers' pool, written once for every framework, sync and async.

:class:`cage_langchain.CageExpansionRetriever` and :class:`cage_llamaindex.CageExpansionRetriever`
assemble the same pool (:mod:`cage_core.expansion.contract`, with routing,
:mod:`cage_core.integrations.document_routing`): for a question ``q``,

1. ``route`` = the documents ``q`` names (none when routing is off), and the question less
   their naming words embedded ahead, while
2. the base retriever runs: its results ``B``, first and unchanged;
3. ``E`` = the linked passages of ``B``'s ids, then the seeds' same-document neighbours; when
   ``E`` and ``route`` are both empty the pool is ``B`` itself;
4. ``E`` fetched from the store by id, in expansion order, less ids it lacks and texts of ``B``;
5. **citations**: the documents the first ``seeds`` results cite by an identifier, file name
   or date that another document gives itself ("as RFC 9110 defines", "see
   ``eip-1559.md``": :func:`~cage_core.names.documents.references` against the link index's
   document records), then by title ("see HTTP Proxies":
   :func:`~cage_core.expansion.title_parts.titles_cited`), at most ``cited`` of them, none a
   seed's own or a named one, each with its best chunk for ``q`` (one search restricted to
   their chunks), ``via`` ``"cites {document's name}"``;
6. with a route, each named document's best chunks for the shortened question
   (:func:`~cage_core.integrations.document_routing.best_named_chunks` over one restricted
   search, else one search per document), and every pool passage's score for it;
7. the added passages scored for ``q`` by the store (``added_score="store"``, when every base
   result has a score), else the lowest base score;
8. the pool ``B + linked + cited + named``; with a route, copies that carry it.

The framework modules translate: a :class:`PoolStore` gives ids, texts and scores of their
objects, fetches and scores by id with the framework's own store, and makes the copies.
:class:`ExpandedPool` holds the algorithm once, as a generator of
:class:`~cage_core.integrations.steps.Call` s (the steps that wait on a store or a model):
:meth:`ExpandedPool.assemble` runs each call's sync form, :meth:`ExpandedPool.aassemble`
awaits its async form (a call without one runs on a worker thread), so the two paths cannot
drift apart. It reads a retriever's settings by name (:class:`PoolSettings`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from cage_core.call_checks import check_query
from cage_core.expansion.contract import (
    AddedScore,
    Neighbours,
    added_score,
    expansion_metadata,
    expansions_for,
    fallback_score,
    in_expansion_order,
    sibling_expansions,
)
from cage_core.expansion.index import Expansion, LinkIndex
from cage_core.expansion.routing_bounds import MAX_OWNERS, RoutingSettings
from cage_core.expansion.title_parts import titles_cited
from cage_core.integrations.ahead import result_or_none
from cage_core.integrations.document_routing import (
    NAMED_DOCUMENT_KEY,
    ROUTED_SEARCH_IDS,
    ROUTING_KEYS,
    best_named_chunks,
    route_for,
    route_metadata,
    routed_search_ids,
)
from cage_core.integrations.steps import Call, Steps, arun, run
from cage_core.metadata import EXPANDED_FROM_KEY, EXPANDED_VIA_KEY, EXPANSION_KEYS
from cage_core.names.documents import references
from cage_core.names.routes import DocumentRoute, NamedDocument

__all__ = [
    "CITES_VIA",
    "DEFAULT_CITED",
    "Call",
    "ExpandedPool",
    "PoolSettings",
    "PoolStore",
    "arun",
    "run",
]

CITES_VIA = "cites"
"""How the ``via`` of a chunk a seed's citation brought begins (step 5)."""
DEFAULT_CITED = 2
"""Cited documents the framework retrievers follow at most by default, one chunk each: a bound
on the extra pool. ``benchmarks/tuning/link_weights_cv.py`` moves it to 0, 1 and 4 and keeps
it: no DEV folder question's R@3 or R@5 moves. Against 0 it changes the pool of 27 of the
folders' 124 questions and their top 5 after ``CageRerank`` in 2, both README paths
(``benchmarks/checks/expansion_bounds.py``)."""

T = TypeVar("T")
R = TypeVar("R")  # a retrieved result (a LangChain Document, a LlamaIndex NodeWithScore)
S = TypeVar("S")  # a stored passage (a LangChain Document, a LlamaIndex BaseNode)
Q = TypeVar("Q")  # a question as the store is asked it (a string, a QueryBundle)


class PoolStore(Protocol[R, S, Q]):
    """What :class:`ExpandedPool` needs of a framework: its objects read, its store asked, its
    copies made. Scores are the framework's own (the base retriever's scale)."""

    def stored_id(self, passage: S) -> str:
        """The id ``passage`` is stored under."""

    def passage(self, result: R) -> S:
        """The stored passage of ``result``."""

    def text(self, passage: S) -> str:
        """The text two copies of one passage share."""

    def score(self, result: R) -> object:
        """``result``'s score for the question (``None`` or not finite: none)."""

    def siblings(
        self, ids: Sequence[str], results: Sequence[R]
    ) -> tuple[list[str], Callable[[str], Neighbours]]:
        """The seeds of the same-document neighbours among ``ids`` (the results' ids, in
        order), and each seed's document and neighbours."""

    def fetch(self, ids: list[str]) -> Call[Mapping[str, S]]:
        """The stored passages of ``ids`` the store holds, by id."""

    def added_scores(self, question: Q, ids: list[str]) -> Call[Mapping[str, float]]:
        """The store's scores of the passages ``ids`` for ``question``."""

    def route_scores(self, question: Q, ids: list[str]) -> Mapping[str, float]:
        """The store's scores of ``ids`` for the shortened question (one restricted search)."""

    def document_search(
        self, question: Q, doc_id: str, k: int, chunk_ids: Sequence[str]
    ) -> list[tuple[S, float]]:
        """The ``k`` best chunks of document ``doc_id`` (``chunk_ids`` by the link index) for
        the shortened question, with their scores."""

    def shortened(self, route: DocumentRoute) -> Q:
        """The question less its naming words, as the store is asked it."""

    def embed_ahead(self, route: DocumentRoute, question: Q) -> Future[Any] | None:
        """The shortened question's embedding started ahead (``None``: not ahead)."""

    def embedded(self, question: Q, embedding: Any) -> None:
        """Keep the embedding started ahead with ``question`` (``None``: it failed or none)."""

    def added(
        self,
        passage: S,
        pid: str,
        extra: dict[str, Any],
        hidden: tuple[str, ...],
        score: float | None,
    ) -> R:
        """A copy of ``passage`` (stored as ``pid``) as a result with ``score``: its metadata
        gains ``extra``; ``hidden``: the keys a framework hides from its model views."""

    def routed(self, result: R, route: dict[str, Any], route_score: float | None) -> R:
        """A copy of ``result`` carrying ``route`` and its score for the shortened question."""


class PoolSettings(Protocol):
    """What :class:`ExpandedPool` reads of a retriever: the fields both frameworks'
    ``CageExpansionRetriever`` hold under these names."""

    seeds: int
    limit: int
    siblings: int
    added_score: AddedScore
    routing: RoutingSettings | None
    cited: int


Named = list[tuple[NamedDocument, S, float]]


@dataclass(frozen=True)
class ExpandedPool(Generic[R, S, Q]):
    """The pool of the module docstring for one retriever's settings (the fields of
    :class:`cage_langchain.CageExpansionRetriever` and its LlamaIndex twin)."""

    store: PoolStore[R, S, Q]
    index: LinkIndex
    settings: PoolSettings

    def assemble(self, query: str, asked: Q, base: Call[Sequence[R]]) -> list[R]:
        """The pool for ``query`` (``asked``: as the store is asked it), ``base`` the base
        retriever's call."""
        return run(self._steps(query, asked, base))

    async def aassemble(self, query: str, asked: Q, base: Call[Sequence[R]]) -> list[R]:
        """Async :meth:`assemble`: the same steps, awaited."""
        return await arun(self._steps(query, asked, base))

    def _steps(self, query: str, asked: Q, base: Call[Sequence[R]]) -> Steps[list[R]]:
        check_query(query)  # before the base retriever is asked
        store = self.store
        route = route_for(query, self.index, self.settings.routing)  # step 1
        short = store.shortened(route)
        ahead = store.embed_ahead(route, short)
        results: Sequence[R] = yield base
        store.embedded(short, (yield Call(lambda: result_or_none(ahead))))
        expansions = self._expansions(query, results)
        citing = self._citing(results, route)
        if not expansions and not route and not citing:
            return list(results)
        found: Mapping[str, S] = (
            (yield store.fetch([e.id for e in expansions])) if expansions else {}
        )
        texts = {store.text(store.passage(r)) for r in results}
        chosen = in_expansion_order(expansions, found, texts, store.text)
        cited = yield from self._cited(asked, citing, results, chosen, texts)
        named: Named[S] = []
        route_scores: Mapping[str, float] = {}
        if route:  # on a worker thread in the async form: the routing reads are sync
            taken = [p for _, p in chosen] + [p for _, _, p in cited]
            named, route_scores = yield Call(lambda: self._named(route, short, results, taken))
        fallback = fallback_score([store.score(r) for r in results])
        added: list[tuple[S, str, dict[str, Any], tuple[str, ...]]] = [
            (passage, expansion.id, expansion_metadata({}, expansion), EXPANSION_KEYS)
            for expansion, passage in chosen
        ]
        added += [
            (
                p,
                store.stored_id(p),
                {EXPANDED_VIA_KEY: via, EXPANDED_FROM_KEY: seed},
                EXPANSION_KEYS,
            )
            for via, seed, p in cited
        ]
        added += [
            (
                p,
                store.stored_id(p),
                {EXPANDED_VIA_KEY: d.via, NAMED_DOCUMENT_KEY: d.doc_id},
                ROUTING_KEYS,
            )
            for d, p, _ in named
        ]
        ids = [pid for _, pid, _, _ in added]
        scored = self.settings.added_score == "store" and fallback is not None and ids
        scores: Mapping[str, float] = (yield store.added_scores(asked, ids)) if scored else {}
        pool = list(results)
        for passage, pid, extra, hidden in added:
            score = added_score(scores.get(pid), fallback)
            pool.append(store.added(passage, pid, extra, hidden, score))
        if not route:
            return pool
        return [
            store.routed(r, route_metadata(query, route), route_scores.get(_id(store, r)))
            for r in pool
        ]

    def _expansions(self, query: str, results: Sequence[R]) -> list[Expansion]:
        """Step 3: the linked passages, then the same-document neighbours."""
        ids = [_id(self.store, r) for r in results]
        linked = expansions_for(
            self.index, query, ids, seeds=self.settings.seeds, limit=self.settings.limit
        )
        seeds, neighbours = self.store.siblings(ids, results)
        return linked + sibling_expansions(
            seeds,
            neighbours,
            seeds=self.settings.seeds,
            limit=self.settings.siblings,
            excluded={e.id for e in linked},
        )

    def _cited(
        self,
        asked: Q,
        citing: Mapping[str, tuple[str, str]],
        results: Sequence[R],
        chosen: list[tuple[Expansion, S]],
        texts: set[str],
    ) -> Steps[list[tuple[str, str, S]]]:
        """Step 5: ``(via, seed id, passage)`` of each ``citing`` document's best chunk for
        the question (the store's restricted search; its first chunk where the store gives no
        scores), less chunks already in the pool."""
        if not citing:
            return []
        store = self.store
        chunks = {doc_id: self.index.chunks_of(doc_id)[:ROUTED_SEARCH_IDS] for doc_id in citing}
        ids = [pid for doc_id in citing for pid in chunks[doc_id]]
        scores: Mapping[str, float] = yield store.added_scores(asked, ids)
        taken = {_id(store, r) for r in results} | {e.id for e, _ in chosen}
        best: dict[str, str] = {}
        for doc_id, mine in chunks.items():
            free = [j for j, pid in enumerate(mine) if pid not in taken]
            if free:
                j = min(free, key=lambda j: (-scores.get(mine[j], -math.inf), j))
                best[doc_id] = mine[j]
        found: Mapping[str, S] = (yield store.fetch(list(best.values()))) if best else {}
        return [
            (*citing[doc_id], found[pid])
            for doc_id, pid in best.items()
            if pid in found and store.text(found[pid]) not in texts
        ]

    def _citing(self, results: Sequence[R], route: DocumentRoute) -> dict[str, tuple[str, str]]:
        """``{doc_id: (via, seed id)}`` of the documents the first ``seeds`` results cite
        (module docstring, step 5), in the order they are cited, at most ``cited``."""
        if not self.settings.cited:
            return {}
        names = self.index.documents()
        out: dict[str, tuple[str, str]] = {}
        excluded = set(route.doc_ids)
        for result in results[: self.settings.seeds]:
            pid = _id(self.store, result)
            entry = self.index.entry(pid)
            excluded.add(entry.doc_id if entry is not None and entry.doc_id else "")
            text = self.store.text(self.store.passage(result))
            found = references(text)
            holders = names.documents_with([f.word for f in found])
            cites: list[tuple[str, str]] = []
            for identifier in found:
                owners = sorted(holders.get(identifier.word, ()))
                if len(owners) <= MAX_OWNERS:  # one several documents give themselves: none
                    cites += [(doc_id, identifier.shown) for doc_id in owners]
            titled = titles_cited(text, names, excluded=excluded | out.keys())
            for doc_id, shown in [*cites, *titled]:
                record = names.document(doc_id)
                if doc_id in excluded or doc_id in out or record is None:
                    continue
                out[doc_id] = (f"{CITES_VIA} {record.name or shown}", pid)
                if len(out) == self.settings.cited:
                    return out
        return out

    def _named(
        self,
        route: DocumentRoute,
        short: Q,
        results: Sequence[R],
        added: list[S],
    ) -> tuple[Named[S], Mapping[str, float]]:
        """Step 5: each named document's best chunks for the shortened question, with their
        scores, less those already in the pool (by id: a contract's clause worded as
        another's is still its own); and the pool's scores for the shortened question. One
        search when it can (:mod:`cage_core.integrations.document_routing`, "One search"),
        else two."""
        if not route or self.settings.routing is None:
            return [], {}
        store, k = self.store, self.settings.routing.chunks
        pool_ids = [_id(store, r) for r in results] + [store.stored_id(p) for p in added]
        chunks = {d.doc_id: self.index.chunks_of(d.doc_id) for d in route.documents}
        ids = routed_search_ids(route, pool_ids, chunks)
        scores = store.route_scores(short, ids) if ids is not None else {}
        if ids is not None and len(scores) == len(ids):
            best = best_named_chunks(route, scores, chunks, pool_ids, k)
            found = store.fetch([pid for _, pid in best]).sync() if best else {}
            return [(d, found[pid], scores[pid]) for d, pid in best if pid in found], scores
        taken = set(pool_ids)
        named: Named[S] = []
        for document in route.documents:
            for passage, score in store.document_search(
                short, document.doc_id, k, chunks[document.doc_id]
            ):
                pid = store.stored_id(passage)
                if pid not in taken:
                    taken.add(pid)
                    named.append((document, passage, score))
        route_scores = {store.stored_id(p): score for _, p, score in named}
        others = [pid for pid in dict.fromkeys(pool_ids) if pid not in route_scores]
        route_scores.update(store.route_scores(short, others))
        return named, route_scores


def _id(store: PoolStore[R, S, Q], result: R) -> str:
    return store.stored_id(store.passage(result))
