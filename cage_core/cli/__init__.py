"""The ``cage`` command line: demo, rerank, eval, bench, explain, enrich.

Modules: ``bench``, ``commands``.
"""

from cage_core.cli.commands import build_parser, main

__all__ = ["build_parser", "main"]
