"""The generated parts of the docs (docs/hooks/) list what the installed package has: every
``cage`` subcommand with its options, and every ``CageConfig`` setting with its default."""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
from pathlib import Path

from cage_core import CageConfig
from cage_core.cli import build_parser

HOOKS = Path(__file__).resolve().parents[2] / "docs" / "hooks"


def _hook(name: str):
    spec = importlib.util.spec_from_file_location(f"docs_hook_{name}", HOOKS / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cli_page_has_a_section_per_subcommand_with_its_options():
    page = _hook("cli_reference").cli_reference()
    subparsers = next(
        a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)
    )
    for name, parser in subparsers.choices.items():
        assert f"## `cage {name}`" in page
        for action in parser._actions:
            assert all(option in page for option in action.option_strings)


def test_cli_page_replaces_only_its_marker():
    hook = _hook("cli_reference")
    assert hook.on_page_markdown("# No marker\n") == "# No marker\n"
    assert hook.MARKER not in hook.on_page_markdown(f"# CLI\n\n{hook.MARKER}\n")


def test_config_table_has_a_row_per_setting():
    table = _hook("config_reference").config_reference()
    config = CageConfig()
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        if dataclasses.is_dataclass(value):
            for nested in dataclasses.fields(value):
                assert f"| `{field.name}.{nested.name}` |" in table
        else:
            assert f"| `{field.name}` |" in table
    assert "| `chain.length` | `3` | titled, untitled |" in table
    assert "| `alpha` | `0.333333` | titled, paper |" in table
    assert "| `document.anchors` | `2` | document |" in table
