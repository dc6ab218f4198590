"""Pickled state of the framework components (pydantic models with lazily built parts)."""

from __future__ import annotations

from typing import Any

__all__ = [
    "without_private_attributes",
]


def without_private_attributes(state: dict[Any, Any]) -> dict[Any, Any]:
    """A pydantic model's ``__getstate__`` output with every private attribute set to
    ``None``: the lazily built core reranker, graph service and caches (models, locks) do
    not travel, and the unpickled or copied component rebuilds them on first use."""
    private = dict(state.get("__pydantic_private__") or {})
    return {**state, "__pydantic_private__": {k: None for k in private}}
