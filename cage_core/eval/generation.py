"""Downstream answers for EM/F1: any LangChain chat model, loaded by import path.

``cage_core`` never imports LangChain itself: the model class is imported from the
``module:Class`` path the user gives and used through its ``invoke(str)`` method, whose
result's ``content`` (or the result itself, if a string) is the answer.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

from cage_core.passage import Passage

__all__ = [
    "PROMPT",
    "generate_answer",
    "load_generator",
]

PROMPT = (
    "Answer the question using only the passages below. Reply with the answer alone, "
    "as a short phrase, with no explanation.\n\n{context}\n\nQuestion: {question}\nAnswer:"
)


def load_generator(spec: str, kwargs: dict[str, Any] | None = None) -> Any:
    """Instantiate ``module.path:ClassName(**kwargs)``."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"generator must look like 'package.module:ClassName', got {spec!r}")
    try:
        cls = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"cannot import generator {spec!r}: {exc}") from None
    model = cls(**(kwargs or {}))
    if not hasattr(model, "invoke"):
        raise ValueError(f"generator {spec!r} has no invoke() method (not a LangChain chat model?)")
    return model


def generate_answer(model: Any, question: str, passages: Sequence[Passage]) -> str:
    context = "\n\n".join(f"[{i + 1}] {p.content}" for i, p in enumerate(passages))
    result = model.invoke(PROMPT.format(context=context, question=question))
    content = getattr(result, "content", result)
    return content.strip() if isinstance(content, str) else str(content).strip()
