"""The passage graph data type and its compact, versioned, JSON-safe serialisation.

A :class:`PassageGraph` is what parsing a passage yields and all that scoring needs:
node labels with their POS and entity type, one L2-normalised word vector per node
(stored as float16 values so a graph read back from JSON is bit-identical to a fresh
one), and typed directed edges carrying the verb lemma that links them.

``to_dict``/``from_dict`` give a plain ``dict`` of strings, ints and lists (vectors as
base64 little-endian float16). ``from_dict`` treats its input as untrusted: anything
malformed, oversized or of another format version raises :class:`GraphFormatError`.
"""

from __future__ import annotations

import base64
import binascii
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from cage_core.graph.relations import ENTITY_TYPES, NUM_RELATIONS, POS_TAGS

GRAPH_FORMAT_VERSION = 1
"""Bump when the graph builder or the serialised layout changes meaning."""

MAX_NODES = 20_000
"""Stored graphs claiming more nodes than this are rejected."""
MAX_EDGES = 200_000
"""Stored graphs claiming more edges than this are rejected."""
MAX_LABEL_CHARS = 512
"""Node labels and verb lemmas longer than this are rejected."""

_VECTOR_DTYPE = np.dtype("<f2")


class GraphFormatError(ValueError):
    """A serialised passage graph is malformed, oversized or of another version."""


@dataclass(frozen=True, eq=False)
class PassageGraph:
    """Typed entity graph of one passage.

    Attributes:
        labels: node labels (lemma, or the merged entity text), one per distinct node.
        pos: universal POS tag of each node (one of ``POS_TAGS``).
        entity_types: entity label of each node, "" for non-entities.
        vectors: ``[n, d]`` float32 array of L2-normalised word vectors (float16-exact).
        edge_src, edge_dst, edge_type: ``[m]`` int64 arrays: edge j goes
            ``edge_src[j] → edge_dst[j]`` with relation id ``edge_type[j]``.
        edge_verbs: the verb lemma of each edge ("" when no verb links it).
        source: a short fingerprint of how the graph was made (pipeline name and version),
            so caches never mix graphs from different pipelines.
    """

    labels: tuple[str, ...]
    pos: tuple[str, ...]
    entity_types: tuple[str, ...]
    vectors: np.ndarray
    edge_src: np.ndarray
    edge_dst: np.ndarray
    edge_type: np.ndarray
    edge_verbs: tuple[str, ...]
    source: str = ""

    def __post_init__(self) -> None:
        n, m = len(self.labels), len(self.edge_verbs)
        if len(self.pos) != n or len(self.entity_types) != n:
            raise GraphFormatError("labels, pos and entity_types must have one entry per node")
        if self.vectors.ndim != 2 or self.vectors.shape[0] != n:
            raise GraphFormatError(f"vectors must have shape [{n}, d], got {self.vectors.shape}")
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
        from cage_core.graph.relations import Relation

        return {
            (self.labels[s], Relation(t).name, self.labels[d])
            for s, d, t in zip(self.edge_src.tolist(), self.edge_dst.tolist(), self.edge_type.tolist())
        }

    def to_dict(self) -> dict[str, Any]:
        """Compact JSON-safe form; the inverse of :meth:`from_dict`."""
        vec = np.ascontiguousarray(self.vectors, dtype=_VECTOR_DTYPE)
        return {
            "format": "cage-passage-graph",
            "version": GRAPH_FORMAT_VERSION,
            "source": self.source,
            "labels": list(self.labels),
            "pos": list(self.pos),
            "ents": list(self.entity_types),
            "dim": int(self.vectors.shape[1]),
            "vectors": base64.b64encode(vec.tobytes()).decode("ascii"),
            "edges": [
                [int(s), int(d), int(t)]
                for s, d, t in zip(self.edge_src, self.edge_dst, self.edge_type)
            ],
            "verbs": list(self.edge_verbs),
        }

    @classmethod
    def from_dict(cls, data: Any, *, expected_dim: int | None = None) -> PassageGraph:
        """Rebuild a graph from :meth:`to_dict` output, validating every field.

        Raises:
            GraphFormatError: on any malformed, oversized, wrong-version or inconsistent input.
        """
        if not isinstance(data, Mapping):
            raise GraphFormatError(f"a stored graph must be a mapping, got {type(data).__name__}")
        if data.get("format") != "cage-passage-graph":
            raise GraphFormatError("not a cage passage graph (missing format tag)")
        if data.get("version") != GRAPH_FORMAT_VERSION:
            raise GraphFormatError(
                f"graph format version {data.get('version')!r} is not {GRAPH_FORMAT_VERSION}"
            )
        labels = _str_list(data.get("labels"), "labels", MAX_NODES)
        n = len(labels)
        pos = _str_list(data.get("pos"), "pos", MAX_NODES)
        ents = _str_list(data.get("ents"), "ents", MAX_NODES)
        if len(pos) != n or len(ents) != n:
            raise GraphFormatError("labels, pos and ents must have the same length")
        if any(p not in POS_TAGS for p in pos):
            raise GraphFormatError("unknown POS tag in stored graph")
        if any(e and e not in ENTITY_TYPES for e in ents):
            raise GraphFormatError("unknown entity type in stored graph")
        dim = data.get("dim")
        if isinstance(dim, bool) or not isinstance(dim, int) or not 1 <= dim <= 4096:
            raise GraphFormatError(f"dim must be an int in [1, 4096], got {dim!r}")
        if expected_dim is not None and dim != expected_dim:
            raise GraphFormatError(f"vector width {dim} is not the expected {expected_dim}")
        raw = data.get("vectors")
        if not isinstance(raw, str) or len(raw) > 4 * math.ceil(n * dim * 2 / 3) + 4:
            raise GraphFormatError("vectors must be a base64 string of n × dim float16 values")
        try:
            buf = base64.b64decode(raw.encode("ascii"), validate=True)
        except (binascii.Error, UnicodeEncodeError) as exc:
            raise GraphFormatError(f"vectors are not valid base64: {exc}") from None
        if len(buf) != n * dim * _VECTOR_DTYPE.itemsize:
            raise GraphFormatError(f"vectors hold {len(buf)} bytes, expected {n * dim * 2}")
        vectors = np.frombuffer(buf, dtype=_VECTOR_DTYPE).reshape(n, dim).astype(np.float32)
        edges = data.get("edges")
        if not isinstance(edges, list) or len(edges) > MAX_EDGES:
            raise GraphFormatError(f"edges must be a list of at most {MAX_EDGES} triples")
        for e in edges:
            if (
                not isinstance(e, list)
                or len(e) != 3
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in e)
            ):
                raise GraphFormatError("each edge must be a [src, dst, type] list of ints")
        verbs = _str_list(data.get("verbs"), "verbs", MAX_EDGES)
        if len(verbs) != len(edges):
            raise GraphFormatError("verbs must have one entry per edge")
        source = data.get("source", "")
        if not isinstance(source, str) or len(source) > MAX_LABEL_CHARS:
            raise GraphFormatError("source must be a short string")
        arr = np.array(edges, dtype=np.int64).reshape(-1, 3)
        return cls(
            labels=tuple(labels),
            pos=tuple(pos),
            entity_types=tuple(ents),
            vectors=vectors,
            edge_src=arr[:, 0].copy(),
            edge_dst=arr[:, 1].copy(),
            edge_type=arr[:, 2].copy(),
            edge_verbs=tuple(verbs),
            source=source,
        )


def _str_list(value: Any, name: str, limit: int) -> list[str]:
    if not isinstance(value, list) or len(value) > limit:
        raise GraphFormatError(f"{name} must be a list of at most {limit} strings")
    if not all(isinstance(v, str) and len(v) <= MAX_LABEL_CHARS for v in value):
        raise GraphFormatError(f"{name} must hold strings of at most {MAX_LABEL_CHARS} chars")
    return list(value)


def empty_graph(dim: int, source: str = "") -> PassageGraph:
    """The graph of a passage with no content words: no nodes, no edges."""
    return PassageGraph(
        labels=(),
        pos=(),
        entity_types=(),
        vectors=np.zeros((0, dim), dtype=np.float32),
        edge_src=np.zeros(0, dtype=np.int64),
        edge_dst=np.zeros(0, dtype=np.int64),
        edge_type=np.zeros(0, dtype=np.int64),
        edge_verbs=(),
        source=source,
    )
