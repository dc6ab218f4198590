"""MkDocs hook: the settings table of docs/configuration.md generated from ``CageConfig``.

The marker ``<!-- config-reference -->`` is replaced, at build time, by one table row per field
of :class:`cage_core.CageConfig` and of each config nested in it (``chain.length``, ...), with
its default and the kinds of pool it acts on (:func:`cage_core.config.kinds_by_setting`, which
``tests/config/test_settings_effect.py`` checks against real rankings), so the page lists the
fields the installed version has.
"""

from __future__ import annotations

import dataclasses
from typing import Any

MARKER = "<!-- config-reference -->"


def _rows(config: Any, acts_on: dict[str, tuple[str, ...]], prefix: str = "") -> list[str]:
    rows = []
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            rows += _rows(value, acts_on, f"{prefix}{field.name}.")
            continue
        if isinstance(value, frozenset):
            value = sorted(value)
        shown = repr(value).replace("|", "\\|")
        if isinstance(value, float):
            shown = f"{value:.6g}"
        name = prefix + field.name
        kinds = ", ".join(acts_on[name]) or "none"
        rows.append(f"| `{name}` | `{shown}` | {kinds} |")
    return rows


def config_reference() -> str:
    """A Markdown table of every setting of the default ``CageConfig``, its value and the
    kinds of pool whose ranking it changes."""
    from cage_core import CageConfig
    from cage_core.config import kinds_by_setting

    rows = _rows(CageConfig(), kinds_by_setting())
    return "\n".join(["| setting | default | acts on |", "|---|---|---|", *rows])


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, config_reference())
