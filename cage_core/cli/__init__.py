"""The ``cage`` command line: demo, rerank, eval, explain, enrich, links, bench.

Modules: ``commands`` (the table of subcommands and ``main``), one module per command
(``demo``, ``rerank``, ``evaluate``, ``explain``, ``enrich``, ``links``, ``bench``) and what
they share (``options``, ``passages``, ``output``).
"""

from cage_core.cli.commands import build_parser, main

__all__ = ["build_parser", "main"]
