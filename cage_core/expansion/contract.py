"""What the LangChain and LlamaIndex expansion retrievers share: the contract, the defaults,
and every step that does not depend on the framework.

A retriever's top ``k`` often misses the second hop of a multi-hop question: the passage
about the entity a retrieved passage names, which is unlike the question. The expansion
retrievers (:class:`cage_langchain.CageExpansionRetriever`,
:class:`cage_llamaindex.CageExpansionRetriever`) wrap any base retriever and, per query:

1. return the base retriever's results first, unchanged and in their order;
2. take their ids, in order, as the candidates of :meth:`LinkIndex.expand
   <cage_core.expansion.index.LinkIndex.expand>` (``seeds`` most relevant of them expanded, at
   most ``limit`` passages added; by default the link index's cross-validated
   ``DEFAULT_SEEDS`` = 3 and ``DEFAULT_LIMIT`` = 8; results without an id cannot seed and
   are skipped, logged at debug level, as are ids the index does not know);
3. fetch each linked passage from the vector store by id and append a copy of it, in the
   expansion's order (link weight, then seed rank, then id: deterministic), with
   ``cage_expanded_via`` (the linking name) and ``cage_expanded_from`` (the seed's id) in
   its metadata (:mod:`cage_core.metadata`). An id missing from the store is skipped
   (debug log); so is a fetched passage whose text equals a base result's (an id-less
   copy of it);
4. give each added passage a query similarity on the base results' scale, so a reranker
   (``CageRerank``) reads one score for the whole pool. **The added score**, by
   ``added_score``:

   * ``"store"`` (default): the store's own relevance score of the passage for the query,
     computed as the store computes it for its search results (a search restricted to those
     ids), where the store allows that, else the lowest as below. Costs a restricted search
     and, where the base retriever's query embedding is not reused (LangChain, LlamaIndex
     async; the packaged MiniLM caches query vectors, so there it is), one more query
     embedding — a second call for an API embedding.
   * ``"lowest"``: the lowest score among the base results (:func:`fallback_score`) — an
     upper bound of the true score of a passage that the same store's top ``k`` left out.
     Free; CAGE's coherence then decides where it ranks.

   When some base result has no finite score, no added passage gets one either (the
   reranker then embeds the whole pool alike).

**Same-document neighbours.** After the linked passages (step 2), the retrievers add the
chunks next to each seed in its document, position − 1 then position + 1
(:func:`sibling_expansions`; LangChain from :meth:`LinkIndex.chunks_of
<cage_core.expansion.index.LinkIndex.chunks_of>`, LlamaIndex from the nodes' ``PREVIOUS`` /
``NEXT`` relationships, else the link index): a report's chunk that says "the company" is
then in the pool with the chunk that names it. Seeds in rank order (the same ``seeds``
first results), each passage once, none already retrieved or linked, at most ``siblings``
(:data:`DEFAULT_SIBLINGS`); fetched, de-duplicated and scored like the linked passages,
``kind="document"`` and ``via`` the seed's document id. Every added passage of kind
``"document"`` (these, and any the link index itself adds as a chunk of a seed's document)
carries ``cage_expanded_via`` = :data:`SAME_DOCUMENT_VIA`.

The link index is given as a :class:`~cage_core.expansion.index.LinkIndex` or as a path
(written by the ingest transformer/extractor or ``cage enrich --link-index``), opened once
with :meth:`LinkIndex.open <cage_core.expansion.index.LinkIndex.open>`: a SQLite link store
(``.sqlite``/``.db``: opened without loading, read per query, so millions of chunks cost
no start-up time or memory; a file swapped in at its path is read from the next query:
:func:`load_link_index`) or a JSON Lines file (loaded whole). A file that is no link
index raises :class:`~cage_core.expansion.index.LinkIndexFormatError` when the retriever is
made; invalid entries are skipped with one warning.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar

from cage_core.expansion.index import Expansion, LinkIndex
from cage_core.metadata import EXPANDED_FROM_KEY, EXPANDED_VIA_KEY, is_finite_score

__all__ = [
    "ADDED_SCORES",
    "DEFAULT_ADDED_SCORE",
    "T",
    "AddedScore",
    "LinkIndexSource",
    "added_score",
    "expansion_metadata",
    "expansions_for",
    "fallback_score",
    "in_expansion_order",
    "load_link_index",
    "validated_added_score",
    "validated_bound",
]

logger = logging.getLogger(__name__)

AddedScore = Literal["lowest", "store"]
"""How an added passage is scored (step 4 of the module docstring)."""
DEFAULT_ADDED_SCORE: AddedScore = "store"
"""How an added passage is scored by default (why: the ``expansion.added_score`` row of
``docs/provenance.md``)."""
ADDED_SCORES: tuple[AddedScore, ...] = ("lowest", "store")
SAME_DOCUMENT_VIA = "same document"
"""The ``via`` (and ``cage_expanded_via``) of a chunk added because it is next to a seed in the
seed's document."""
DEFAULT_SIBLINGS = 2
"""Same-document neighbours added at most by default: the chunk before and after the top seed
(or of the next seeds where it has fewer). Not cross-validated yet: a bound on the extra
pool, chosen so the expansion's cost stays that of ``DEFAULT_LIMIT`` + 2 passages. The link
index the ingest writes links a chunk to its neighbours itself, so at ``DEFAULT_LIMIT`` the
linked passages hold them already: on the DEV folders and the two held-out ones, both
frameworks, it changes no pool; with ``limit=0`` it adds to 278 of the 308 pools
(``benchmarks/checks/expansion_bounds.py``). It acts when ``limit`` is small or other links
fill it, or with a link index that keeps no positions but nodes that keep ``PREVIOUS`` /
``NEXT`` (LlamaIndex)."""

LinkIndexSource = LinkIndex | str | os.PathLike
"""A link index, or the path of a saved one."""

T = TypeVar("T")


def load_link_index(source: LinkIndexSource) -> LinkIndex:
    """``source`` itself if it is a :class:`LinkIndex`, else the index stored at that path
    (:meth:`LinkIndex.open`: a SQLite store is opened, a JSON Lines file loaded). A SQLite
    store opened here is the retriever's own and is opened with ``reopen=True``: once another
    file was moved over it (a rebuilt store swapped in), or it was deleted and put back, the
    next query reads the file now at the path (one warning) instead of raising
    ``StoreFileChanged`` until a new retriever is made; while no file is there, each query
    raises it.

    Raises:
        TypeError: for anything else.
        FileNotFoundError: when the path does not exist.
        LinkIndexFormatError: when the file's header is missing, malformed or of another version.
    """
    if isinstance(source, LinkIndex):
        return source
    if isinstance(source, (str, os.PathLike)):
        index = LinkIndex.open(Path(source), reopen=True)
        logger.info("opened the link index of %d passages at %s", len(index), source)
        return index
    raise TypeError(
        f"link_index must be a LinkIndex or the path of a saved one, got {type(source).__name__}"
    )


def validated_bound(name: str, value: object) -> int:
    """``value`` when it is an int >= 0 (``seeds``, ``limit``); else a clear ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be an int >= 0, got {value!r}")
    return value


def validated_added_score(value: object) -> AddedScore:
    """``value`` when it is one of :data:`ADDED_SCORES`; else a clear ``ValueError``."""
    if value not in ADDED_SCORES:
        raise ValueError(f"added_score must be one of {ADDED_SCORES}, got {value!r}")
    return value


def expansions_for(
    index: LinkIndex, query: str, ids: Sequence[object], *, seeds: int, limit: int
) -> list[Expansion]:
    """Step 2 of the module docstring: the expansions of the base results' ``ids``."""
    candidates = [i for i in ids if isinstance(i, str) and i]
    if len(candidates) < len(ids):
        logger.debug(
            "%d retrieved results have no id; they cannot seed the expansion",
            len(ids) - len(candidates),
        )
    return index.expand(query, candidates, seeds=seeds, limit=limit)


Neighbours = tuple[str | None, Sequence[str]]
"""A passage's document id (or ``None``) and the ids of its neighbours in it, in order."""


def index_neighbours(index: LinkIndex, passage_id: str) -> Neighbours:
    """``passage_id``'s document and the ids of the passages at position − 1 and + 1 of it, in
    that order, by the index's entries (:meth:`LinkIndex.chunks_of
    <cage_core.expansion.index.LinkIndex.chunks_of>`); no neighbours when its entry has no
    document or no position. Of several entries at one position, the first by id. Reads the
    entries next to the seed in ``chunks_of``'s order only, so a long document costs a few
    entry reads, not one per chunk."""
    entry = index.entry(passage_id)
    if entry is None or entry.doc_id is None or entry.position is None:
        return (None if entry is None else entry.doc_id), []
    ids, p = index.chunks_of(entry.doc_id), entry.position
    if passage_id not in ids:
        return entry.doc_id, []

    def position(j: int) -> int | None:
        chunk = index.entry(ids[j])
        return None if chunk is None else chunk.position

    out: list[str] = []
    i = ids.index(passage_id)
    j = i - 1
    while j >= 0 and position(j) == p:  # other entries at the seed's own position
        j -= 1
    if j >= 0 and position(j) == p - 1:
        while j > 0 and position(j - 1) == p - 1:
            j -= 1
        out.append(ids[j])
    j = i + 1
    while j < len(ids) and position(j) == p:
        j += 1
    if j < len(ids) and position(j) == p + 1:
        out.append(ids[j])
    return entry.doc_id, out


def sibling_expansions(
    seed_ids: Sequence[str],
    neighbours: Callable[[str], Neighbours],
    *,
    seeds: int,
    limit: int,
    excluded: Collection[str] = (),
) -> list[Expansion]:
    """The same-document neighbours of the first ``seeds`` of ``seed_ids`` (module docstring):
    for each seed in order, the ids ``neighbours(seed)`` gives, in its order, each once, none
    of ``excluded`` nor a seed, at most ``limit``; kind ``"document"``, ``via`` the seed's
    document id ("" when unknown), weight 0 (they come after the weighted links)."""
    validated_bound("seeds", seeds)
    validated_bound("limit", limit)
    chosen = list(dict.fromkeys(seed_ids))[:seeds]
    seen = set(excluded) | set(seed_ids)
    out: list[Expansion] = []
    for seed in chosen:
        doc_id, ids = neighbours(seed)
        for pid in ids:
            if len(out) == limit:
                return out
            if isinstance(pid, str) and pid and pid not in seen:
                seen.add(pid)
                out.append(
                    Expansion(id=pid, via=doc_id or "", seed=seed, weight=0.0, kind="document")
                )
    return out


def in_expansion_order(
    expansions: Sequence[Expansion],
    found: Mapping[str, T],
    retrieved_texts: set[str],
    text_of: Callable[[T], str],
) -> list[tuple[Expansion, T]]:
    """Step 3 of the module docstring: the fetched items (``found``: id → document or node) in
    the order of ``expansions``, less ids missing from the store and items whose text
    (``text_of(item)``) is among ``retrieved_texts``."""
    out = []
    missing = duplicates = 0
    for expansion in expansions:
        item = found.get(expansion.id)
        if item is None:
            missing += 1
        elif text_of(item) in retrieved_texts:
            duplicates += 1
        else:
            out.append((expansion, item))
    if missing:
        logger.debug("%d linked passage ids are not in the vector store; skipped", missing)
    if duplicates:
        logger.debug("%d linked passages repeat a retrieved text; skipped", duplicates)
    return out


def fallback_score(scores: Sequence[object]) -> float | None:
    """The lowest of the base results' ``scores`` when every one is finite (step 4 of the
    module docstring); ``None`` when one is not, or there are none."""
    if not scores or not all(is_finite_score(s) for s in scores):
        return None
    return min(float(s) for s in scores)  # type: ignore[arg-type]


def added_score(store_score: object, fallback: float | None) -> float | None:
    """The score of an added passage (step 4 of the module docstring)."""
    if fallback is None or not is_finite_score(store_score):
        return fallback
    return float(store_score)  # type: ignore[arg-type]


def expansion_metadata(metadata: Mapping[str, Any], expansion: Expansion) -> dict[str, Any]:
    """A copy of ``metadata`` with the expansion's linking name (:data:`SAME_DOCUMENT_VIA` for
    a chunk of the seed's document) and seed id added."""
    via = SAME_DOCUMENT_VIA if expansion.kind == "document" else expansion.via
    return {**metadata, EXPANDED_VIA_KEY: via, EXPANDED_FROM_KEY: expansion.seed}
