"""``cage enrich``: passage graphs (and a link index) for a corpus, in process or on Ray.

The input is a regular file (it is read twice: counted, then streamed) with at least one row;
``--output`` names its format by its suffix (:data:`OUTPUT_SUFFIXES`) and ``--link-index`` its
own (a link store or JSON Lines); another suffix is refused before anything is read (exit 2).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TextIO

from cage_core.cli.options import add_config_options, config_from_args

__all__ = ["HELP", "OUTPUT_SUFFIXES", "add_arguments", "check_paths", "cmd_enrich"]

HELP = "passage graphs for a corpus (in process or on Ray)"
"""The command's line in ``cage --help``."""

OUTPUT_SUFFIXES = (".jsonl", ".parquet")
"""The formats ``--output`` writes: JSON Lines or Parquet."""


def _integrity_key(variable: str | None) -> bytes | None:
    """The secret in environment variable ``variable`` (``None``: no key). A secret is never
    a command-line argument: those are visible to every user of the machine (``ps``)."""
    if variable is None:
        return None
    value = os.environ.get(variable)
    if not value:
        raise ValueError(
            f"--integrity-key-env {variable}: the environment variable is unset or "
            "empty (export the secret the rerankers are given as integrity_key)"
        )
    return value.encode("utf-8")


def check_paths(source: Path, target: Path, links_target: Path | None) -> None:
    """Raise :class:`ValueError` unless ``source`` is a regular file and each output's suffix
    names a format the command writes."""
    from cage_core.expansion.index import STORE_SUFFIXES, is_store_path

    if target.suffix not in OUTPUT_SUFFIXES:
        raise ValueError(
            f"--output {target}: cage enrich writes JSON Lines (.jsonl) or Parquet (.parquet); "
            "name the file with one of those suffixes"
        )
    if links_target is not None and not (
        is_store_path(links_target) or links_target.suffix == ".jsonl"
    ):
        raise ValueError(
            f"--link-index {links_target}: a link index is a SQLite store "
            f"({'/'.join(STORE_SUFFIXES)}) or JSON Lines (.jsonl); name it with one of those"
        )
    if source.exists() and not source.is_file():
        raise ValueError(f"--input {source}: not a regular file (the input is read twice)")


def cmd_enrich(args: argparse.Namespace, out: TextIO) -> int:
    import time

    from cage_core.expansion.index import link_store_path
    from cage_core.integrations.enrich import (
        LinkWriter,
        RowWriter,
        count_rows,
        enrich_local,
        enrich_ray,
        iter_row_batches,
        progress_bar,
    )

    source, target = Path(args.input), Path(args.output)
    links_target = None
    if args.link_index is True:
        if not args.graph_store:
            raise ValueError(
                "--link-index without a path needs --graph-store (it is written next to it)"
            )
        links_target = link_store_path(args.graph_store)
    elif args.link_index:
        links_target = Path(args.link_index)
    check_paths(source, target, links_target)
    config = config_from_args(args)
    key = _integrity_key(args.integrity_key_env)
    total = count_rows(source)
    if not total:
        raise ValueError(f"--input {source}: no rows (it is empty)")
    if args.ray_address:
        batches = enrich_ray(
            source,
            config,
            args.spacy_model,
            args.batch_size,
            args.ray_address,
            args.workers,
            args.level,
            args.graph_store,
            key,
        )
    else:
        batches = enrich_local(
            iter_row_batches(source, args.batch_size),
            config,
            args.spacy_model,
            args.level,
            args.graph_store,
            key,
        )
    links = LinkWriter(links_target) if links_target is not None else None
    start = time.perf_counter()
    with progress_bar(total, args.no_progress) as progress, RowWriter(target) as rows:
        for batch in batches:  # each batch written to every sink as it comes: nothing held whole
            if links is not None:
                links.write(batch, rows.rows)
            rows.write(batch)
            progress(len(batch))
    seconds = time.perf_counter() - start
    out.write(
        f"enriched {rows.rows} passages in {seconds:.1f}s "
        f"({rows.rows / max(seconds, 1e-9):.1f} passages/s) -> {target}\n"
    )
    if args.graph_store:
        out.write(f"stored {rows.rows} graphs in {args.graph_store}\n")
    if links is not None:
        out.write(links.close() + "\n")
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``cage enrich``."""
    parser.add_argument(
        "--input", "-i", required=True, help="JSON Lines or Parquet with 'text' [, 'title']"
    )
    parser.add_argument(
        "--output",
        "-o",
        required=True,
        help="output .jsonl or .parquet, the format its suffix names (adds 'cage_graph')",
    )
    parser.add_argument(
        "--ray-address", help="run on Ray: a cluster address, or 'local' for a local instance"
    )
    parser.add_argument("--workers", type=int, default=2, help="Ray actors (default: %(default)s)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument(
        "--graph-store", help="also fill this SQLite graph store (a server then starts warm)"
    )
    parser.add_argument(
        "--link-index",
        nargs="?",
        const=True,
        metavar="PATH",
        help="also write the link index (names -> passages, for candidate expansion) "
        "to PATH: a SQLite link store (.sqlite/.db; written per batch) or "
        "JSON Lines (.jsonl; written at the end); without PATH, a store next "
        "to --graph-store (graphs.sqlite -> graphs.links.sqlite)",
    )
    parser.add_argument(
        "--level",
        choices=["light", "full"],
        help="graph level: light (entities; what the default ranks with, ~2x faster) "
        "or full (the parse, for the R-GCN presets); default: the preset's",
    )
    parser.add_argument(
        "--integrity-key-env",
        metavar="VAR",
        help="sign every graph written (the column and --graph-store) with an HMAC under "
        "the secret in environment variable VAR, the integrity_key the rerankers check; "
        "only stored graphs signed under it are read",
    )
    parser.add_argument("--no-progress", action="store_true")
    add_config_options(parser)
