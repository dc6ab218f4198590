"""``cage rerank``: rerank the passages of a file for one query.

It prints a table, or with ``--json`` one JSON object per line, of the same fields under the
same names: ``rank`` (1 for the first passage, in both), ``index`` (the passage's position in
the file, from 0), ``score`` (the fused score), ``similarity`` (the embedder's cosine to the
query), ``coherence`` (the strength of the via's link), the ``path`` the pool took (its kind
and the gate that fired: one line under the table), the passage, and its ``via``: the
earlier-ranked passage it is linked to and by what (:class:`~cage_core.passage.Via`), in the
table as ``← via 'Shirley Temple' from #1`` after the passage (``#1``: that passage's rank), in
JSON as ``{"name", "kind", "rank", "index"}`` (``rank`` from 1 and ``index`` from 0, as the
passage's own), ``null`` without one. An empty query or passages file is an error (exit 2).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any, TextIO

from cage_core.call_checks import check_query
from cage_core.cli.options import add_config_options, at_least_one, config_from_args
from cage_core.cli.output import clip, via_text
from cage_core.cli.passages import MAX_PASSAGES_BYTES, read_passages
from cage_core.passage import RankedPassage, Via
from cage_core.reranker import CageReranker

__all__ = ["HELP", "add_arguments", "cmd_rerank", "via_json"]

HELP = "rerank passages from a file for one query"
"""The command's line in ``cage --help``."""


def cmd_rerank(args: argparse.Namespace, out: TextIO) -> int:
    check_query(args.query)
    at_least_one(args.top_n, "--top-n")
    config = config_from_args(args)
    passages = read_passages(args.passages, max_chars=config.max_parse_chars)
    reranker = CageReranker(config, nlp=args.spacy_model)
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
                        "via": via_json(r.via, ranked),
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
        line = (
            f"{r.rank + 1:>4} {r.index:>5} {r.score:7.3f} {r.similarity:10.3f} "
            f"{r.coherence:+9.3f}  {clip(label, 50):50} {via_text(r.via)}"
        )
        out.write(line.rstrip() + "\n")
    if ranked:
        out.write(f"path: {ranked[0].path}\n")
    return 0


def via_json(via: Via | None, ranked: Sequence[RankedPassage]) -> dict[str, Any] | None:
    """A ranked passage's via in ``--json``: its name and kind, and the linked passage's
    ``rank`` (from 1) and ``index`` in the file (from 0); ``None`` without one."""
    if via is None:
        return None
    return {
        "name": via.name,
        "kind": via.kind,
        "rank": via.rank + 1,
        "index": ranked[via.rank].index,
    }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``cage rerank``."""
    parser.add_argument("--query", "-q", required=True, help="the query (not empty)")
    parser.add_argument(
        "--passages",
        "-p",
        required=True,
        help="JSON Lines (.jsonl/.json) or text with blank-line separated "
        f"passages, UTF-8, at most {MAX_PASSAGES_BYTES // 2**20} MiB; '-' reads text from standard "
        "input; a passage longer than max_parse_chars (20,000 characters by default) is cut to it",
    )
    parser.add_argument("--top-n", type=int, default=None, help="how many to print (default all)")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print JSON Lines instead of a table (the same fields; rank counts from 1 "
        "in both, index, the passage's position in the file, from 0; via, the earlier "
        "passage it is linked to: name, kind, rank and index, or null)",
    )
    add_config_options(parser)
