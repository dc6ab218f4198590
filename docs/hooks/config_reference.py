"""MkDocs hook: the settings table of docs/configuration.md generated from ``CageConfig``.

The marker ``<!-- config-reference -->`` is replaced, at build time, by one table row per field
of :class:`cage_core.CageConfig` and of each config nested in it (``chain.length``, ...), with
its default, so the page lists the fields the installed version has.
"""

from __future__ import annotations

import dataclasses
from typing import Any

MARKER = "<!-- config-reference -->"


def _rows(config: Any, prefix: str = "") -> list[str]:
    rows = []
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            rows += _rows(value, f"{prefix}{field.name}.")
            continue
        if isinstance(value, frozenset):
            value = sorted(value)
        shown = repr(value).replace("|", "\\|")
        if isinstance(value, float):
            shown = f"{value:.6g}"
        rows.append(f"| `{prefix}{field.name}` | `{shown}` |")
    return rows


def config_reference() -> str:
    """A Markdown table of every setting of the default ``CageConfig`` and its value."""
    from cage_core import CageConfig

    return "\n".join(["| setting | default |", "|---|---|", *_rows(CageConfig())])


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, config_reference())
