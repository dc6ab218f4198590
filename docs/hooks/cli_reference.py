"""MkDocs hook: the command-line reference (docs/cli.md) generated from the ``cage`` parser.

The marker ``<!-- cli-reference -->`` in a page is replaced, at build time, by the help of the
``cage`` command and of each of its subcommands, as ``cage SUBCOMMAND --help`` prints it. The
parser is found through one public function, ``cage_core.cli.build_parser`` (the package's
``cage_core.cli.commands.build_parser`` where ``cage_core.cli`` does not re-export it), so the
page follows the CLI however its commands are split into modules.
"""

from __future__ import annotations

import argparse
import importlib
import os
from typing import Any

MARKER = "<!-- cli-reference -->"
WIDTH = "100"  # argparse wraps help to $COLUMNS; a fixed width gives the same page everywhere


def _build_parser() -> argparse.ArgumentParser:
    for module_name in ("cage_core.cli", "cage_core.cli.commands"):
        module = importlib.import_module(module_name)
        build = getattr(module, "build_parser", None)
        if callable(build):
            return build()
    raise RuntimeError("no build_parser() in cage_core.cli: the CLI page cannot be generated")


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # argparse keeps subparsers only here
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def cli_reference() -> str:
    """The Markdown of the reference: ``cage --help``, then one section per subcommand."""
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        parser = _build_parser()
        parts = ["## `cage`", "", "```text", parser.format_help().rstrip(), "```", ""]
        for name, sub in _subcommands(parser).items():
            parts += [f"## `cage {name}`", "", "```text", sub.format_help().rstrip(), "```", ""]
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous
    return "\n".join(parts)


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, cli_reference())
