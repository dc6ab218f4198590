"""``cage rerank``: rerank the passages of a file for one query.

It prints a table, or with ``--json`` one JSON object per line, of the same fields under the
same names: ``rank`` (1 for the first passage, in both), ``index`` (the passage's position in
the file, from 0), ``score`` (the fused score), ``similarity`` (the embedder's cosine to the
query), ``coherence``, the ``path`` the pool took (its kind and the gate that fired: one line
under the table) and the passage. An empty query or passages file is an error (exit 2).
"""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from cage_core.cli.options import add_config_options, at_least_one, check_query, config_from_args
from cage_core.cli.output import clip
from cage_core.cli.passages import MAX_PASSAGES_BYTES, read_passages
from cage_core.reranker import CageReranker

__all__ = ["HELP", "add_arguments", "cmd_rerank"]

HELP = "rerank passages from a file for one query"
"""The command's line in ``cage --help``."""


def cmd_rerank(args: argparse.Namespace, out: TextIO) -> int:
    check_query(args.query)
    at_least_one(args.top_n, "--top-n")
    passages = read_passages(args.passages)
    reranker = CageReranker(config_from_args(args), nlp=args.spacy_model)
    ranked = reranker.rerank(args.query, passages, top_n=args.top_n)
    if args.json:
        for r in ranked:
            out.write(
                json.dumps(
                    {
                        "rank": r.rank + 1,
                        "index": r.index,
                        "id": r.id,
                        "title": r.title,
                        "score": r.score,
                        "similarity": r.similarity,
                        "coherence": r.coherence,
                        "path": str(r.path),
                        "text": r.text,
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
        return 0
    out.write(
        f"{'rank':>4} {'index':>5} {'score':>7} {'similarity':>10} {'coherence':>9}  passage\n"
    )
    for r in ranked:
        label = f"{r.title}: {r.text}" if r.title else r.text
        out.write(
            f"{r.rank + 1:>4} {r.index:>5} {r.score:7.3f} {r.similarity:10.3f} "
            f"{r.coherence:+9.3f}  {clip(label, 70)}\n"
        )
    if ranked:
        out.write(f"path: {ranked[0].path}\n")
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``cage rerank``."""
    parser.add_argument("--query", "-q", required=True, help="the query (not empty)")
    parser.add_argument(
        "--passages",
        "-p",
        required=True,
        help="JSON Lines (.jsonl/.json) or text with blank-line separated "
        f"passages, UTF-8, at most {MAX_PASSAGES_BYTES // 2**20} MiB; '-' reads text from standard "
        "input",
    )
    parser.add_argument("--top-n", type=int, default=None, help="how many to print (default all)")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print JSON Lines instead of a table (the same fields; rank counts from 1 "
        "in both, index, the passage's position in the file, from 0)",
    )
    add_config_options(parser)
