"""The options every ranking command shares: the configuration (``--preset``, ``--alpha``,
``--epochs``, ``--ablate-rule``) and the spaCy pipeline (``--spacy-model``)."""

from __future__ import annotations

import argparse
from typing import Any

from cage_core.config import PRESETS, CageConfig
from cage_core.config.kinds import with_settings
from cage_core.lang.en import STRING_RULES

__all__ = [
    "add_config_options",
    "at_least_one",
    "config_from_args",
    "positive_ints",
]


def config_from_args(args: argparse.Namespace) -> CageConfig:
    """The :class:`~cage_core.config.CageConfig` the config options name."""
    config = CageConfig.preset(args.preset)
    changes: dict[str, Any] = {
        k: v for k, v in (("alpha", args.alpha), ("encoder.epochs", args.epochs)) if v is not None
    }
    if getattr(args, "ablate_rule", None):
        changes["string_rules"] = config.string_rules - frozenset(args.ablate_rule)
    return with_settings(config, changes)


def add_config_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--preset",
        default="default",
        choices=sorted(PRESETS),
        help="named configuration (default: %(default)s)",
    )
    parser.add_argument("--alpha", type=float, help="fusion weight α in [0, 1]")
    parser.add_argument("--epochs", type=int, help="per-query training epochs")
    parser.add_argument(
        "--ablate-rule",
        action="append",
        choices=sorted(STRING_RULES),
        metavar="NAME",
        help="switch a named string rule off (repeatable; cage_core.lang.en."
        f"STRING_RULES: {', '.join(sorted(STRING_RULES))})",
    )
    parser.add_argument(
        "--spacy-model", help="spaCy pipeline name or path (default: best installed)"
    )


def positive_ints(text: str, option: str) -> tuple[int, ...]:
    """Comma-separated positive integers, e.g. ``"1,2,3,5"`` (``option`` names them in errors)."""
    try:
        values = tuple(int(k) for k in text.split(",") if k.strip())
    except ValueError:
        raise ValueError(f"{option} must be comma-separated integers, got {text!r}") from None
    if not values or any(k < 1 for k in values):
        raise ValueError(f"{option} values must be >= 1")
    return values


def at_least_one(value: int | None, option: str) -> None:
    """Raise :class:`ValueError` when a count option (``--top-n``, ``--repeats``) is below 1;
    ``None`` (not given) passes."""
    if value is not None and value < 1:
        raise ValueError(f"{option} must be >= 1, got {value}")
