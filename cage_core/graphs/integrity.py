"""Optional keyed integrity for stored passage graphs: an HMAC under a key the user gives.

A stored graph (``PassageGraph.to_text()`` in vector-store metadata) carries ``sha``, the hash
of the content it was built from. Without a key that is a *freshness* check only: it catches a
graph attached to other content (a splitter's inherited graph, graphs swapped between
documents), but anyone who can write the store can compute the hash of a document and attach a
graph with any entities to it — and so move that document up a ranking. Where the store is
writable by others, give the ingest components and the reranker one secret ``integrity_key``:

    mac = HMAC-SHA256(key, "cage-graph-mac/1" ␀ canonical graph text)

where the canonical text is ``PassageGraph.to_text()`` of the graph as parsed back (so JSON
spacing or key order do not matter), which holds ``sha``: the MAC covers the graph and, through
``sha``, the content it belongs to. :func:`signed_text` stores it as one more key, ``"mac"``,
of the same flat JSON string (readers without a key ignore it). With a key, a stored graph
whose MAC is missing or wrong is ignored and its passage parsed, counted in the one summary
warning per call of :meth:`PassageGraphs.stored <cage_core.graphs.service.PassageGraphs.stored>`;
it is compared with ``hmac.compare_digest``. Keep the key out of the store and of logs (the
wrappers hold it as a pydantic ``SecretStr``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from typing import Any

from cage_core.graphs.passage_graph import PassageGraph
from cage_core.jsonl import StoredJsonError, decode_json

__all__ = [
    "MAC_FIELD",
    "graph_mac",
    "key_bytes",
    "signed_text",
    "verified",
]

MAC_FIELD = "mac"
"""The key of the MAC in a stored graph's JSON."""
_DOMAIN = b"cage-graph-mac/1\x00"


def key_bytes(key: Any) -> bytes | None:
    """``key`` as bytes (``None`` stays ``None``; a pydantic ``SecretStr``/``SecretBytes`` is
    unwrapped). Raises ``TypeError`` for anything else and ``ValueError`` for an empty key."""
    if key is None:
        return None
    secret = getattr(key, "get_secret_value", None)
    if callable(secret):
        key = secret()
    if isinstance(key, str):
        key = key.encode("utf-8")
    if not isinstance(key, bytes):
        raise TypeError(f"an integrity key must be bytes or str, got {type(key).__name__}")
    if not key:
        raise ValueError("an integrity key must not be empty")
    return key


def graph_mac(graph: PassageGraph, key: bytes) -> str:
    """The hex HMAC-SHA256 of ``graph`` under ``key`` (module docstring)."""
    return hmac.new(
        key, _DOMAIN + graph.to_text().encode("utf-8", "surrogatepass"), hashlib.sha256
    ).hexdigest()


def signed_text(graph: PassageGraph, key: bytes | None) -> str:
    """``graph.to_text()``, with its MAC under ``key`` added when there is a key."""
    if key is None:
        return graph.to_text()
    data = graph.to_dict()
    data[MAC_FIELD] = graph_mac(graph, key)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def stored_mac(data: Any) -> str | None:
    """The MAC a stored value (JSON string or mapping, already accepted by
    ``PassageGraph.from_stored``) carries, or ``None``."""
    if isinstance(data, str):
        try:
            data = decode_json(data)
        except StoredJsonError:
            return None
    value = data.get(MAC_FIELD) if isinstance(data, Mapping) else None
    return value if isinstance(value, str) else None


def verified(graph: PassageGraph, data: Any, key: bytes) -> bool:
    """Whether the stored value ``data`` of ``graph`` carries ``graph``'s MAC under ``key``."""
    mac = stored_mac(data)
    return mac is not None and hmac.compare_digest(mac, graph_mac(graph, key))
