"""TEGR (seed 002): typed edges between candidate chunks and a similarity-weighted walk.

Edges between candidates carry a type from :data:`EDGE_TYPES`, given by a
pluggable :class:`EdgeClassifier`: :class:`RuleEdgeClassifier` (offline, rules over the
parse, the default) or :class:`LLMEdgeClassifier` (any LangChain chat model, used through
``invoke``). Edge strength is the cosine of the two chunks' embeddings when the pool has
them, else their keyword overlap; a ``contradicts`` edge uses the contradiction-inversion
score ``keyword_overlap × (1.5 − cosine)`` instead.

Walk: the ``seeds`` (:class:`TEGRConfig`) most similar chunks start with their min–max scaled
similarity; breadth-first, up to two hops, every edge u→v offers
``new_score = score_u × decay × type_weight × edge_similarity`` and v keeps the best offer.
A chunk's final score is the larger of its own scaled similarity and what it was offered.

Types can also be computed once at ingest, for whole documents, and inherited by their chunks
(:func:`inherit_chunk_edges`); pass them as ``Pool.tegr_edges`` and the walk uses them
instead of typing the candidates at query time.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

import numpy as np

from cage_core.config import UNIT, Int, Ranges, Validated, check_real
from cage_core.graphs.passage_graph import PassageGraph
from cage_core.methods.base import Pool
from cage_core.ranking.contradiction import conflicts, inversion_score, keyword_overlap, word_set
from cage_core.ranking.links import bare_title, entity_names
from cage_core.ranking.pair_index import (
    index_sets,
    overlap,
    shared_key_pairs,
    similar_set_pairs,
    substring_mentions,
)
from cage_core.scoring import cosine_matrix, min_max

__all__ = [
    "EDGE_TYPES",
    "MIN_TERM_CHARS",
    "WALK_HOPS",
    "Chunk",
    "EdgeClassifier",
    "LLMEdgeClassifier",
    "RuleEdgeClassifier",
    "TEGRConfig",
    "TEGRMethod",
    "defines",
    "inherit_chunk_edges",
    "typed_edges",
    "walk",
]

EDGE_TYPES: tuple[str, ...] = (
    "contradicts",
    "elaborates",
    "supersedes",
    "example-of",
    "defines",
    "sequence",
    "synthesizes",
)
"""TEGR's typed-edge vocabulary (seed 002)."""
WALK_HOPS = 2
MIN_TERM_CHARS = 3
"""Titles and entities shorter than this never define or name another chunk."""
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")
_EXAMPLE = re.compile(r"\b(for example|for instance|such as|e\.g\.)", re.IGNORECASE)
_SEQUENCE = re.compile(r"\b(then|later|subsequently|afterwards|followed by|next)\b", re.IGNORECASE)
_COPULA = re.compile(r"\s+(is|are|was|were)\s+(a|an|the)\b")


@dataclass(frozen=True)
class Chunk:
    """What an edge classifier sees of one candidate."""

    text: str
    title: str
    graph: PassageGraph
    words: frozenset[str] = field(init=False)
    """Lower-cased word set (:func:`~cage_core.ranking.contradiction.word_set`)."""
    entities: frozenset[str] = field(init=False)
    """Non-numeric entity names (:func:`~cage_core.ranking.links.entity_names`)."""
    lowered: str = field(init=False)
    """The text, lower-cased."""
    bare: str = field(init=False)
    """:func:`~cage_core.ranking.links.bare_title` of the title."""
    years: tuple[str, ...] = field(init=False)
    """Years the text names, as written."""
    gives_example: bool = field(init=False)
    """The text says "for example", "such as", "e.g." …"""
    tells_sequence: bool = field(init=False)
    """The text says "then", "later", "subsequently" …"""

    def __post_init__(self) -> None:
        derived = {
            "words": word_set(self.text),
            "entities": frozenset(entity_names(self.graph)),
            "lowered": self.text.lower(),
            "bare": bare_title(self.title),
            "years": tuple(_YEAR.findall(self.text)),
            "gives_example": _EXAMPLE.search(self.text) is not None,
            "tells_sequence": _SEQUENCE.search(self.text) is not None,
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)


class EdgeClassifier(Protocol):
    """Types the edge from chunk ``a`` to chunk ``b`` (``b`` <type> ``a``), or None."""

    def classify(self, a: Chunk, b: Chunk, pool: Sequence[Chunk]) -> str | None: ...


class RuleEdgeClassifier:
    """Offline rules, first match wins:

    1. contradicts — near-duplicates (overlap ≥ ``contradiction_overlap``) that each name a
       value or entity the other lacks;
    2. defines — b says "<a's title or a shared entity> is/was a|an|the …";
    3. example-of — b shares an entity with a and uses "for example", "such as", "e.g.";
    4. supersedes — they share an entity and b's latest year is later than a's;
    5. elaborates — a's entities are a non-empty proper subset of b's;
    6. sequence — they share an entity and b uses "then", "later", "subsequently", …;
    7. synthesizes — one names the other's title, or they share an entity.

    So a pair gets no type unless the two chunks share an entity, one contains the other's
    title, or their word overlap reaches ``contradiction_overlap``: :meth:`candidate_pairs`
    finds those pairs through indexes, and :func:`typed_edges` classifies only them.
    """

    def __init__(self, contradiction_overlap: float = 0.5) -> None:
        self.contradiction_overlap = contradiction_overlap

    def classify(self, a: Chunk, b: Chunk, pool: Sequence[Chunk]) -> str | None:
        shared = a.entities & b.entities
        # conflicts() needs this overlap first: checking it here skips re-reading the texts
        if overlap(a.words, b.words) >= self.contradiction_overlap and conflicts(
            [a.text, b.text], [a.graph, b.graph], self.contradiction_overlap
        ):
            return "contradicts"
        lowered_b = b.lowered
        if any(
            len(term) >= MIN_TERM_CHARS and defines(term, lowered_b) for term in {a.bare} | shared
        ):
            return "defines"
        if shared and b.gives_example:
            return "example-of"
        if shared and a.years and b.years and max(b.years) > max(a.years):
            return "supersedes"
        if a.entities and a.entities < b.entities:
            return "elaborates"
        if shared and b.tells_sequence:
            return "sequence"
        if (
            shared
            or (len(a.bare) >= MIN_TERM_CHARS and a.bare in lowered_b)
            or (len(b.bare) >= MIN_TERM_CHARS and b.bare in a.lowered)
        ):
            return "synthesizes"
        return None

    def candidate_pairs(self, chunks: Sequence[Chunk]) -> list[tuple[int, int]]:
        """Sorted ``(i, j)``, ``i < j``: a superset of the pairs :meth:`classify` types either way.

        The pairs that share an entity (index entity → chunks), where one chunk's text
        contains the other's title (one Aho–Corasick pass over the titles), or whose word
        overlap reaches ``contradiction_overlap`` (prefix filtering) — found without
        visiting the other pairs. A subclass whose ``classify`` types other pairs must
        override this too.
        """
        _, _, rows, cols = shared_key_pairs(index_sets([c.entities for c in chunks]))
        pairs = set(zip(rows.tolist(), cols.tolist()))
        titled = [j for j, c in enumerate(chunks) if len(c.bare) >= MIN_TERM_CHARS]
        for i, n in substring_mentions(
            [chunks[j].bare for j in titled], [c.lowered for c in chunks]
        ):
            if i != titled[n]:
                pairs.add((min(i, titled[n]), max(i, titled[n])))
        pairs |= similar_set_pairs([c.words for c in chunks], self.contradiction_overlap)
        return sorted(pairs)


class LLMEdgeClassifier:
    """Asks a chat model (anything with ``invoke(str)``, e.g. a LangChain chat model)."""

    PROMPT = (
        "How does passage B relate to passage A? Answer with exactly one of: "
        + ", ".join(EDGE_TYPES)
        + ", none.\n\nA: {a}\n\nB: {b}\n\nRelation:"
    )

    def __init__(self, model: Any) -> None:
        if not hasattr(model, "invoke"):
            raise TypeError("the LLM edge classifier needs a chat model with invoke()")
        self.model = model

    def classify(self, a: Chunk, b: Chunk, pool: Sequence[Chunk]) -> str | None:
        reply = self.model.invoke(self.PROMPT.format(a=a.text, b=b.text))
        text = str(getattr(reply, "content", reply)).strip().lower()
        for edge_type in EDGE_TYPES:
            if text.startswith(edge_type):
                return edge_type
        return None


def defines(term: str, text: str) -> bool:
    """``text`` says "<term> is/are/was/were a/an/the …" (``term`` anywhere, as written)."""
    start = text.find(term)
    while start >= 0:
        if _COPULA.match(text, start + len(term)):
            return True
        start = text.find(term, start + 1)
    return False


def typed_edges(chunks: Sequence[Chunk], classifier: EdgeClassifier) -> dict[tuple[int, int], str]:
    """Types of the unordered pairs ``(i, j)``, ``i < j`` (either direction may carry it).

    In ``(i, j)`` order. A classifier with a ``candidate_pairs(chunks)`` method (sorted
    pairs, a superset of those it types, e.g. :class:`RuleEdgeClassifier`) is asked about
    those pairs only; any other about every pair.
    """
    candidates = getattr(classifier, "candidate_pairs", None)
    k = len(chunks)
    pairs = (
        candidates(chunks)
        if candidates is not None
        else ((i, j) for i in range(k) for j in range(i + 1, k))
    )
    edges: dict[tuple[int, int], str] = {}
    for i, j in pairs:
        t = classifier.classify(chunks[i], chunks[j], chunks) or classifier.classify(
            chunks[j], chunks[i], chunks
        )
        if t is not None:
            edges[(i, j)] = t
    return edges


def inherit_chunk_edges(
    document_edges: dict[tuple[int, int], str],
    chunk_documents: Sequence[int],
    chunk_texts: Sequence[str],
    chunk_vectors: np.ndarray | None = None,
    top_k: int = 3,
) -> dict[tuple[int, int], str]:
    """Pass document-level edge types down to chunks, as TEGR does at ingest.

    For each typed document pair (typed once, e.g. by :class:`LLMEdgeClassifier` over whole
    documents), every pair of their chunks is scored by ``cosine + keyword_overlap`` (cosine
    of ``chunk_vectors`` when given, else 0) and the ``top_k`` best pairs inherit the type —
    no classifier call per chunk pair. Returns edges keyed by chunk index pairs ``(i, j)``,
    ``i < j``.
    """
    words = [word_set(t) for t in chunk_texts]
    cos = cosine_matrix(chunk_vectors, chunk_vectors) if chunk_vectors is not None else None
    by_document: dict[int, list[int]] = {}
    for chunk, document in enumerate(chunk_documents):
        by_document.setdefault(document, []).append(chunk)
    inherited: dict[tuple[int, int], str] = {}
    for (doc_a, doc_b), edge_type in document_edges.items():
        pairs = []
        for i in by_document.get(doc_a, []):
            for j in by_document.get(doc_b, []):
                similarity = float(cos[i, j]) if cos is not None else 0.0
                pairs.append(
                    (similarity + keyword_overlap(words[i], words[j]), min(i, j), max(i, j))
                )
        for _, i, j in sorted(pairs, key=lambda p: (-p[0], p[1], p[2]))[:top_k]:
            inherited.setdefault((i, j), edge_type)
    return inherited


def walk(
    initial: np.ndarray,
    edges: dict[tuple[int, int], float],
    seeds: Sequence[int] | np.ndarray,
    decay: float,
    hops: int = WALK_HOPS,
) -> np.ndarray:
    """Best offer reaching each chunk from the seeds (see the module docstring).

    ``edges`` maps an unordered pair to ``type_weight × edge_similarity``.
    """
    k = len(initial)
    best = np.zeros(k)
    best[list(seeds)] = initial[list(seeds)]
    neighbours: dict[int, list[tuple[int, float]]] = {i: [] for i in range(k)}
    for (i, j), w in edges.items():
        neighbours[i].append((j, w))
        neighbours[j].append((i, w))
    frontier = list(seeds)
    for _ in range(hops):
        nxt = []
        for u in frontier:
            for v, w in neighbours[u]:
                offer = best[u] * decay * w
                if offer > best[v]:
                    best[v] = offer
                    nxt.append(v)
        frontier = nxt
    return best


@dataclass(frozen=True)
class TEGRConfig(Validated):
    """TEGR's settings.

    Attributes:
        decay: walk decay per hop; in [0, 1].
        seeds: how many of the most similar chunks start the walk.
        type_weights: edge-type weights, as ``(type, weight)`` pairs over :data:`EDGE_TYPES`
            (a type not listed weighs 0).
        contradiction_overlap: word overlap from which :class:`RuleEdgeClassifier` can type
            two chunks ``contradicts``.
    """

    decay: float = 0.7
    seeds: int = 3
    type_weights: tuple[tuple[str, float], ...] = (
        ("contradicts", 0.6),
        ("elaborates", 1.0),
        ("supersedes", 0.8),
        ("example-of", 0.7),
        ("defines", 1.0),
        ("sequence", 0.8),
        ("synthesizes", 0.9),
    )
    contradiction_overlap: float = 0.5

    RANGES: ClassVar[Ranges] = {"decay": UNIT, "seeds": Int(1, 1000), "contradiction_overlap": UNIT}
    """The accepted value of each field but ``type_weights`` (checked pair by pair)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        for pair in self.type_weights:
            if not isinstance(pair, tuple) or len(pair) != 2 or pair[0] not in EDGE_TYPES:
                raise ValueError(
                    f"type_weights entries must be (type, weight) with type in "
                    f"{EDGE_TYPES}, got {pair!r}"
                )
            check_real(f"type_weights[{pair[0]}]", pair[1], low=0.0, high=100.0)


@dataclass(frozen=True)
class TEGRMethod:
    config: TEGRConfig = TEGRConfig()
    classifier: EdgeClassifier | None = None
    name: str = "tegr"
    needs_graphs: bool = True

    def score(self, pool: Pool) -> np.ndarray:
        if pool.graphs is None:
            raise ValueError("tegr needs the pool's passage graphs")
        k = len(pool.passages)
        if k == 0:
            return np.zeros(0)
        sims = np.asarray(pool.similarities, dtype=np.float64)
        initial = min_max(sims)
        chunks = [Chunk(p.text, p.title, g) for p, g in zip(pool.passages, pool.graphs)]
        classifier = self.classifier or RuleEdgeClassifier(self.config.contradiction_overlap)
        vectors = pool.passage_vectors
        cos = cosine_matrix(vectors, vectors) if vectors is not None else None
        weights = dict(self.config.type_weights)
        strengths = {}
        # Edge types computed at ingest (e.g. inherited from documents) win over typing now.
        edges = pool.tegr_edges or typed_edges(chunks, classifier)
        for (i, j), t in edges.items():
            overlap = keyword_overlap(chunks[i].words, chunks[j].words)
            similarity = float(cos[i, j]) if cos is not None else overlap
            strength = inversion_score(overlap, similarity) if t == "contradicts" else similarity
            strengths[(i, j)] = weights.get(t, 0.0) * max(strength, 0.0)
        seeds = np.argsort(-sims, kind="stable")[: self.config.seeds]
        return np.maximum(initial, walk(initial, strengths, seeds, self.config.decay))
