"""``cage explain``: a PNG of the scores and the coherence matrix, and the ranking with its
evidence chain."""

from __future__ import annotations

import argparse
from typing import TextIO

from cage_core.cli.options import add_config_options, config_from_args
from cage_core.cli.output import chain_vias, clip, via_text
from cage_core.cli.passages import read_passages
from cage_core.reranker import CageReranker
from cage_core.scoring import ranking

__all__ = ["HELP", "add_arguments", "cmd_explain"]

HELP = "render scores and the coherence matrix to a PNG"
"""The command's line in ``cage --help``."""


def cmd_explain(args: argparse.Namespace, out: TextIO) -> int:
    from cage_core.heatmap import render_heatmap

    passages = read_passages(args.passages)
    reranker = CageReranker(config_from_args(args), nlp=args.spacy_model)
    scores = reranker.score(args.query, passages)
    path = render_heatmap(args.query, passages, scores, args.out)
    out.write(f"wrote {path} ({len(passages)} passages)\n")
    order = ranking(scores.fused)
    chain = chain_vias(args.query, passages, scores, order)
    out.write("ranking and evidence chain (← via: the earlier passage it is linked to):\n")
    for r, i in enumerate(order):
        p = passages[int(i)]
        label = clip(f"{p.title}: {p.text}" if p.title else p.text, 50)
        out.write(
            f"{r + 1:>4}. f={scores.fused[i]:+.3f} {label:50} {via_text(chain[r])}".rstrip() + "\n"
        )
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``cage explain``."""
    parser.add_argument("--query", "-q", required=True)
    parser.add_argument("--passages", "-p", required=True, help="as for cage rerank")
    parser.add_argument("--out", "-o", default="cage-explain.png", help="PNG path")
    add_config_options(parser)
