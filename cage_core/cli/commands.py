"""The ``cage`` command: the table of its subcommands, one module each, and :func:`main`.

Each command module (``demo``, ``rerank``, ``evaluate`` for ``cage eval``, ``explain``,
``enrich``, ``links``, ``bench``) holds its ``HELP`` line, its options (``add_arguments``) and
the command itself (``cmd_<name>(args, out) -> exit code``). An error a user can act on (a bad
file, a bad value) prints one line ``cage: error: …`` on stderr and exits with code 2
(``-v`` adds the traceback). Output into a pipe whose reader has gone (``| head -1``) ends
the command quietly with :data:`CLOSED_PIPE_EXIT`.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import TextIO

from cage_core.cli import bench, demo, enrich, evaluate, explain, links, rerank
from cage_core.jsonl import DatasetFormatError

__all__ = [
    "CLOSED_PIPE_EXIT",
    "COMMANDS",
    "build_parser",
    "closed_pipe_exit",
    "main",
]

CLOSED_PIPE_EXIT = 141
"""The exit code when the output's reader closed the pipe: 128 + SIGPIPE, the code a shell
reports for a command that SIGPIPE ended (as ``yes | head -1`` ends ``yes``)."""

Command = Callable[[argparse.Namespace, TextIO], int]

COMMANDS: tuple[tuple[str, str, Callable[[argparse.ArgumentParser], None], Command], ...] = (
    ("demo", demo.HELP, demo.add_arguments, demo.cmd_demo),
    ("rerank", rerank.HELP, rerank.add_arguments, rerank.cmd_rerank),
    ("eval", evaluate.HELP, evaluate.add_arguments, evaluate.cmd_eval),
    ("explain", explain.HELP, explain.add_arguments, explain.cmd_explain),
    ("enrich", enrich.HELP, enrich.add_arguments, enrich.cmd_enrich),
    ("links", links.HELP, links.add_arguments, links.cmd_links),
    ("bench", bench.HELP, bench.add_arguments, bench.cmd_bench),
)
"""Each subcommand: its name, its help line, what adds its options, and the command."""


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``cage`` and every subcommand in :data:`COMMANDS`."""
    parser = argparse.ArgumentParser(prog="cage", description="Coherence-aware graph reranking.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress (INFO)")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, help_line, add_arguments, command in COMMANDS:
        command_parser = sub.add_parser(name, help=help_line)
        add_arguments(command_parser)
        command_parser.set_defaults(func=command)
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run ``cage`` with ``argv`` (default ``sys.argv[1:]``), printing to ``out`` (default
    stdout); return the exit code."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except ImportError:  # pragma: no cover - sentence-transformers brings transformers
        pass
    stream = out or sys.stdout
    try:
        code = int(args.func(args, stream))
        stream.flush()  # a closed pipe shows here, not at the interpreter's exit
        return code
    except BrokenPipeError:
        return closed_pipe_exit(stream)
    except (
        DatasetFormatError,
        FileNotFoundError,
        IsADirectoryError,
        UnicodeDecodeError,
        ValueError,
        TypeError,
    ) as exc:
        if args.verbose:  # -v: the whole story, for a bug report
            traceback.print_exc()
        print(f"cage: error: {exc}", file=sys.stderr)
        return 2


def closed_pipe_exit(stream: TextIO) -> int:
    """The exit code when the reader of ``stream`` went away (``cage rerank … | head -1``):
    :data:`CLOSED_PIPE_EXIT`, quietly. What is still buffered for a standard stream is sent to
    ``os.devnull``, so the interpreter's last flush raises no second :class:`BrokenPipeError`
    (the recipe of Python's ``signal`` documentation)."""
    try:
        descriptor = stream.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (a StringIO): nothing to redirect
        return CLOSED_PIPE_EXIT
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, descriptor)
    os.close(devnull)
    return CLOSED_PIPE_EXIT


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
