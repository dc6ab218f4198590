"""The passage graph data type and its stored form: one flat, versioned JSON string.

A :class:`PassageGraph` is what parsing a passage yields: node labels with their POS and
entity type, typed directed edges carrying the verb lemma that links them, the
fingerprint of the pipeline that built it and a hash of the exact content it was built
from. Word vectors (``vectors``, used only by the R-GCN) are *not* part of the stored
form: they are derived from the labels and the pipeline's vocabulary when needed
(:mod:`cage_core.graphs.vectors`).

A graph has one of two levels (:data:`GRAPH_LEVELS`). A *light* graph holds the named
entities of the passage only (labels and types; no edges): all that bridge coherence,
GraphER, TEGR and the contradiction check read, and made by the pipeline's entity
recogniser alone. A *full* graph adds the content words and the typed edges of the
dependency parse, which the R-GCN reads. Both have the same entity nodes.

Stored form (:meth:`PassageGraph.to_text`, format version 2): one JSON string, so every
vector store's flat metadata accepts it::

    {"format": "cage-passage-graph", "version": 2, "source": "en_core_web_md-3.7.1/g2",
     "sha": "<32 hex: content_hash of the passage content>", "level": "light" | "full",
     "nodes": [[label, pos], [label, pos, entity type], ...],
     "edges": [[src, dst, relation], [src, dst, relation, verb], ...]}

:meth:`PassageGraph.from_stored` treats its input as untrusted: anything malformed,
oversized or of another format version raises :class:`GraphFormatError`. It accepts the
string or the same object already parsed into a mapping.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from cage_core.graphs.relations import ENTITY_TYPES, NUM_RELATIONS, POS_TAGS

__all__ = [
    "CONTENT_HASH_CHARS",
    "DEFAULT_MAX_PARSE_CHARS",
    "EDGES_PER_CHAR",
    "FORMAT_TAG",
    "GRAPH_FORMAT_VERSION",
    "GRAPH_LEVELS",
    "MAX_EDGES",
    "MAX_LABEL_CHARS",
    "MAX_NODES",
    "MAX_STORED_CHARS",
    "NODES_PER_CHAR",
    "STORED_CHARS_PER_CHAR",
    "GraphFormatError",
    "GraphLevel",
    "GraphLimits",
    "PassageGraph",
    "content_hash",
    "graph_limits",
    "serves",
]

GRAPH_FORMAT_VERSION = 2
"""Bump when the graph builder or the stored layout changes meaning (1: dicts with vectors)."""
FORMAT_TAG = "cage-passage-graph"

DEFAULT_MAX_PARSE_CHARS = 20_000
"""The longest text a passage graph is built from by default (``CageConfig.max_parse_chars``:
longer passages are cut before parsing); the graph limits follow from it."""
NODES_PER_CHAR = 0.25
"""A node is a distinct label from a token of the text holding a letter or digit. Measured
with en_core_web_md on 20,000-character texts: 0.04 nodes per character on Wikipedia prose,
at most 0.24 on adversarial ones (hyphenated or CJK words); the parser stops adding nodes
at the limit."""
EDGES_PER_CHAR = 0.5
"""Edges are deduplicated links between nodes. Measured as :data:`NODES_PER_CHAR`: 0.09 per
character on prose, up to 0.7 on adversarial texts (lists of numbers as subject and object:
every pair is linked); the parser stops adding edges at the limit."""
STORED_CHARS_PER_CHAR = 100
"""A stored graph is at most about 30 characters of JSON per character of text (measured as
:data:`NODES_PER_CHAR`: 2 on prose, 17 on lists of numbers)."""
MAX_LABEL_CHARS = 512
"""Node labels and verb lemmas longer than this are rejected."""
CONTENT_HASH_CHARS = 32
"""Hex digits of SHA-256 kept as the content hash (128 bits)."""
GraphLevel = Literal["light", "full"]
GRAPH_LEVELS: tuple[GraphLevel, ...] = ("light", "full")
"""Graph levels, each a superset of the one before it."""


@dataclass(frozen=True)
class GraphLimits:
    """The largest passage graph a text of ``max_chars`` characters can give: what the parser
    builds at most and what a stored graph may hold (:func:`graph_limits`)."""

    nodes: int
    edges: int
    stored_chars: int
    """Characters of the stored JSON string, checked before it is parsed."""


def graph_limits(max_chars: int = DEFAULT_MAX_PARSE_CHARS) -> GraphLimits:
    """The limits for graphs of texts of at most ``max_chars`` characters: ``max_chars ×``
    :data:`NODES_PER_CHAR` nodes, ``×`` :data:`EDGES_PER_CHAR` edges and ``×``
    :data:`STORED_CHARS_PER_CHAR` stored characters (at least those of a text of 1,000)."""
    chars = max(int(max_chars), 1_000)
    return GraphLimits(
        nodes=int(chars * NODES_PER_CHAR),
        edges=int(chars * EDGES_PER_CHAR),
        stored_chars=int(chars * STORED_CHARS_PER_CHAR),
    )


MAX_NODES = graph_limits().nodes
"""Stored graphs claiming more nodes than this are rejected (texts of the default
:data:`DEFAULT_MAX_PARSE_CHARS`; :func:`graph_limits` for others)."""
MAX_EDGES = graph_limits().edges
"""Stored graphs claiming more edges than this are rejected (as :data:`MAX_NODES`)."""
MAX_STORED_CHARS = graph_limits().stored_chars
"""Stored graph strings longer than this are rejected before they are parsed."""


def serves(level: str, needed: str) -> bool:
    """Whether a graph of ``level`` holds everything a ``needed``-level graph holds."""
    return GRAPH_LEVELS.index(level) >= GRAPH_LEVELS.index(needed)


class GraphFormatError(ValueError):
    """A stored passage graph is malformed, oversized or of another version."""


def content_hash(content: str) -> str:
    """The hash a graph carries of the exact content (``Passage.content``) it was built from."""
    digest = hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()
    return digest[:CONTENT_HASH_CHARS]


@dataclass(frozen=True, eq=False)
class PassageGraph:
    """Typed entity graph of one passage.

    Attributes:
        labels: node labels (lemma, or the merged entity text), one per distinct node.
        pos: universal POS tag of each node (one of ``POS_TAGS``).
        entity_types: entity label of each node, "" for non-entities.
        edge_src, edge_dst, edge_type: ``[m]`` int64 arrays: edge j goes
            ``edge_src[j] → edge_dst[j]`` with relation id ``edge_type[j]``.
        edge_verbs: the verb lemma of each edge ("" when no verb links it).
        source: a short fingerprint of how the graph was made (pipeline name and version,
            graph format), so caches never mix graphs from different pipelines.
        content_sha: :func:`content_hash` of the content the graph was built from ("" when
            unknown, e.g. a graph built by hand).
        level: ``"full"`` (the parse: content words and typed edges) or ``"light"`` (named
            entities only); see the module docstring.
        vectors: ``[n, d]`` float32 L2-normalised word vectors, or ``None`` when not
            attached (stored graphs; see :meth:`cage_core.graphs.parse.GraphParser.with_vectors`).
    """

    labels: tuple[str, ...]
    pos: tuple[str, ...]
    entity_types: tuple[str, ...]
    edge_src: np.ndarray
    edge_dst: np.ndarray
    edge_type: np.ndarray
    edge_verbs: tuple[str, ...]
    source: str = ""
    content_sha: str = ""
    level: GraphLevel = "full"
    vectors: np.ndarray | None = None

    def __post_init__(self) -> None:
        n, m = len(self.labels), len(self.edge_verbs)
        if self.level not in GRAPH_LEVELS:
            raise GraphFormatError(f"level must be one of {GRAPH_LEVELS}, got {self.level!r}")
        if len(self.pos) != n or len(self.entity_types) != n:
            raise GraphFormatError("labels, pos and entity_types must have one entry per node")
        for name in ("edge_src", "edge_dst", "edge_type"):
            arr = getattr(self, name)
            if arr.shape != (m,):
                raise GraphFormatError(f"{name} must have shape [{m}], got {arr.shape}")
        if m and (self.edge_src.min() < 0 or self.edge_dst.min() < 0):
            raise GraphFormatError("edge endpoints must be non-negative")
        if m and (self.edge_src.max() >= n or self.edge_dst.max() >= n):
            raise GraphFormatError("edge endpoints must index existing nodes")
        if m and (self.edge_type.min() < 0 or self.edge_type.max() >= NUM_RELATIONS):
            raise GraphFormatError(f"edge types must be in [0, {NUM_RELATIONS})")
        if self.vectors is not None:
            if self.vectors.ndim != 2 or self.vectors.shape[0] != n:
                raise GraphFormatError(
                    f"vectors must have shape [{n}, d], got {self.vectors.shape}"
                )
            if not np.isfinite(self.vectors).all():
                raise GraphFormatError("vectors must be finite")

    @property
    def num_nodes(self) -> int:
        return len(self.labels)

    @property
    def num_edges(self) -> int:
        return len(self.edge_verbs)

    def out_degree(self) -> np.ndarray:
        """Out-degree of each node, ``[n]`` int64."""
        return np.bincount(self.edge_src, minlength=self.num_nodes).astype(np.int64)

    def triples(self) -> set[tuple[str, str, str]]:
        """Edges as ``(source label, relation name, target label)``, handy for inspection."""
        from cage_core.graphs.relations import Relation

        return {
            (self.labels[s], Relation(t).name, self.labels[d])
            for s, d, t in zip(
                self.edge_src.tolist(), self.edge_dst.tolist(), self.edge_type.tolist()
            )
        }

    def with_vectors(self, vectors: np.ndarray | None) -> PassageGraph:
        """A copy with ``vectors`` attached (``None`` detaches them)."""
        return dataclasses.replace(self, vectors=vectors)

    def to_dict(self) -> dict[str, Any]:
        """The stored form as a JSON-safe mapping (see the module docstring)."""
        nodes = [
            [label, pos, ent] if ent else [label, pos]
            for label, pos, ent in zip(self.labels, self.pos, self.entity_types)
        ]
        edges = [
            [s, d, t, v] if v else [s, d, t]
            for s, d, t, v in zip(
                self.edge_src.tolist(),
                self.edge_dst.tolist(),
                self.edge_type.tolist(),
                self.edge_verbs,
            )
        ]
        return {
            "format": FORMAT_TAG,
            "version": GRAPH_FORMAT_VERSION,
            "source": self.source,
            "sha": self.content_sha,
            "level": self.level,
            "nodes": nodes,
            "edges": edges,
        }

    def to_text(self) -> str:
        """The stored form: one compact JSON string (what vector-store metadata holds)."""
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_stored(cls, data: Any, *, max_chars: int = DEFAULT_MAX_PARSE_CHARS) -> PassageGraph:
        """Rebuild a graph from :meth:`to_text` (or :meth:`to_dict`) output, validating it all,
        in time linear in its size: it may hold no more than the parser builds from a text of
        ``max_chars`` characters (``max_parse_chars``; :func:`graph_limits`).

        Raises:
            GraphFormatError: on any malformed, oversized, wrong-version or inconsistent input.
        """
        limits = graph_limits(max_chars)
        if isinstance(data, str):
            if len(data) > limits.stored_chars:
                raise GraphFormatError(
                    f"a stored graph is at most {limits.stored_chars} characters"
                )
            try:
                data = json.loads(data)
            except (ValueError, RecursionError) as exc:  # also Python's int-string limit
                raise GraphFormatError(f"a stored graph string must be JSON ({exc})") from None
        if not isinstance(data, Mapping):
            raise GraphFormatError(
                f"a stored graph must be a JSON string or a mapping, got {type(data).__name__}"
            )
        if data.get("format") != FORMAT_TAG:
            raise GraphFormatError("not a cage passage graph (missing format tag)")
        if data.get("version") != GRAPH_FORMAT_VERSION:
            raise GraphFormatError(
                f"graph format version {data.get('version')!r} is not {GRAPH_FORMAT_VERSION}"
            )
        source, sha = data.get("source"), data.get("sha")
        if not isinstance(source, str) or len(source) > MAX_LABEL_CHARS:
            raise GraphFormatError("source must be a short string")
        if not isinstance(sha, str) or len(sha) != CONTENT_HASH_CHARS or not _is_hex(sha):
            raise GraphFormatError(f"sha must be {CONTENT_HASH_CHARS} hex digits")
        level = data.get("level")
        if level not in GRAPH_LEVELS:
            raise GraphFormatError(f"level must be one of {GRAPH_LEVELS}")
        labels, pos, ents = _nodes(data.get("nodes"), limits.nodes)
        src, dst, rel, verbs = _edges(data.get("edges"), len(labels), limits.edges)
        return cls(
            labels=labels,
            pos=pos,
            entity_types=ents,
            edge_src=np.array(src, dtype=np.int64),
            edge_dst=np.array(dst, dtype=np.int64),
            edge_type=np.array(rel, dtype=np.int64),
            edge_verbs=verbs,
            source=source,
            content_sha=sha,
            level=level,
        )


def _is_hex(text: str) -> bool:
    return all(ch in "0123456789abcdef" for ch in text)


def _short_str(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= MAX_LABEL_CHARS


def _nodes(value: Any, limit: int) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    if not isinstance(value, list) or len(value) > limit:
        raise GraphFormatError(f"nodes must be a list of at most {limit} entries")
    labels, pos, ents = [], [], []
    for node in value:
        if type(node) is not list or not 2 <= len(node) <= 3:
            raise _bad_node()
        ent = node[2] if len(node) == 3 else ""
        label, tag = node[0], node[1]
        if not (_short_str(label) and type(tag) is str and type(ent) is str):
            raise _bad_node()
        if tag not in POS_TAGS:
            raise GraphFormatError("unknown POS tag in stored graph")
        if ent and ent not in ENTITY_TYPES:
            raise GraphFormatError("unknown entity type in stored graph")
        labels.append(label)
        pos.append(tag)
        ents.append(ent)
    return tuple(labels), tuple(pos), tuple(ents)


def _bad_node() -> GraphFormatError:
    return GraphFormatError(
        f"each node must be [label, pos] or [label, pos, entity type] "
        f"strings of at most {MAX_LABEL_CHARS} chars"
    )


def _edges(
    value: Any, n: int, limit: int
) -> tuple[list[int], list[int], list[int], tuple[str, ...]]:
    if not isinstance(value, list) or len(value) > limit:
        raise GraphFormatError(f"edges must be a list of at most {limit} entries")
    src, dst, rel, verbs = [], [], [], []
    for edge in value:
        if type(edge) is not list or not 3 <= len(edge) <= 4:
            raise _bad_edge()
        s, d, t = edge[0], edge[1], edge[2]
        verb = edge[3] if len(edge) == 4 else ""
        if type(s) is not int or type(d) is not int or type(t) is not int:  # bool is no int
            raise _bad_edge()
        if len(edge) == 4 and not _short_str(verb):
            raise _bad_edge()
        if not (0 <= s < n and 0 <= d < n):
            raise GraphFormatError("edge endpoints must index existing nodes")
        if not 0 <= t < NUM_RELATIONS:
            raise GraphFormatError(f"edge types must be in [0, {NUM_RELATIONS})")
        src.append(s)
        dst.append(d)
        rel.append(t)
        verbs.append(verb)
    return src, dst, rel, tuple(verbs)


def _bad_edge() -> GraphFormatError:
    return GraphFormatError("each edge must be [src, dst, type] ints, optionally + verb")
