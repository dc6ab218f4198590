"""``cage links``: copy a link index between JSON Lines and a SQLite link store."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

__all__ = ["HELP", "add_arguments", "cmd_links"]

HELP = (
    "copy a link index: JSON Lines <-> SQLite link store "
    "(import an old .jsonl once, or export a store)"
)
"""The command's line in ``cage --help``."""


def cmd_links(args: argparse.Namespace, out: TextIO) -> int:
    """Copy a link index between its two forms (chosen by suffix): import an old JSON Lines
    file into a SQLite store once, export a store, or copy one store into another."""
    from itertools import islice

    from cage_core.expansion.index import STORE_SUFFIXES, LinkIndex, is_store_path
    from cage_core.expansion.store import WRITE_BATCH_ENTRIES
    from cage_core.expansion.store_import import import_jsonl

    source, target = Path(args.source), Path(args.target)
    if not (is_store_path(target) or target.suffix == ".jsonl"):
        raise ValueError(
            f"{target}: a link index is written as a SQLite store "
            f"({'/'.join(STORE_SUFFIXES)}) or JSON Lines (.jsonl); name it with one of those"
        )
    if source.resolve() == target.resolve():
        raise ValueError("the source and the target are the same file")
    if is_store_path(target) and not is_store_path(source):
        copied = import_jsonl(source, target)  # streamed: the file is never held whole
    elif not is_store_path(target):
        with LinkIndex.open(source) as index:
            index.save(target)
            copied = len(index)
    else:
        copied = 0
        with LinkIndex.open(source) as index, LinkIndex.open(target, create=True) as into:
            entries = index.entries()
            while batch := list(islice(entries, 10 * WRITE_BATCH_ENTRIES)):
                copied += into.add_entries(batch)
    out.write(f"copied {copied} link entries from {source} to {target}\n")
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``cage links``."""
    parser.add_argument("source", help="a .jsonl link index or a .sqlite/.db link store")
    parser.add_argument(
        "target",
        help="where to copy it (the form follows the suffix; a store "
        "is created or its entries with the same ids replaced)",
    )
