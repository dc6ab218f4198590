"""``cage explain``: a PNG of the scores and the coherence matrix, and the ranking with its
evidence chain.

The picture numbers passages by their order in the file, from 1, and so does the printed
list: each line is ``rank. #N f=… passage ← via 'name' from #M``, ``#N`` the passage's number
in the picture, ``#M`` that of the earlier passage it is linked to.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

import numpy as np

from cage_core.call_checks import check_query
from cage_core.cli.options import add_config_options, config_from_args
from cage_core.cli.output import chain_vias, clip
from cage_core.cli.passages import read_passages
from cage_core.passage import Via
from cage_core.reranker import CageReranker
from cage_core.scoring import ranking

__all__ = ["HELP", "PICTURE_SUFFIX", "add_arguments", "cmd_explain", "via_number_text"]

HELP = "render scores and the coherence matrix to a PNG"
"""The command's line in ``cage --help``."""

PICTURE_SUFFIX = ".png"
"""The one format ``--out`` writes."""


def via_number_text(via: Via | None, order: np.ndarray) -> str:
    """``"← via 'Warsaw' from #2"``: the linked passage by its number in the picture (its
    position in the file, from 1), not by its rank."""
    return "" if via is None else f"← via '{via.name}' from #{int(order[via.rank]) + 1}"


def cmd_explain(args: argparse.Namespace, out: TextIO) -> int:
    from cage_core.heatmap import render_heatmap

    check_query(args.query)
    if Path(args.out).suffix.lower() != PICTURE_SUFFIX:
        raise ValueError(f"--out {args.out}: cage explain writes a PNG; name it *.png")
    config = config_from_args(args)
    passages = read_passages(args.passages, max_chars=config.max_parse_chars)
    reranker = CageReranker(config, nlp=args.spacy_model)
    scores = reranker.score(args.query, passages)
    path = render_heatmap(args.query, passages, scores, args.out)
    out.write(f"wrote {path} ({len(passages)} passages)\n")
    order = ranking(scores.fused)
    chain = chain_vias(args.query, passages, scores, order)
    out.write(f"path: {scores.path}\n")
    out.write(
        "ranking and evidence chain (#N: passage N of the file, as numbered in the picture; "
        "← via: the earlier passage it is linked to):\n"
    )
    for r, i in enumerate(order):
        p = passages[int(i)]
        label = clip(f"{p.title}: {p.text}" if p.title else p.text, 50)
        number = f"#{int(i) + 1}"
        out.write(
            f"{r + 1:>4}. {number:>4} f={scores.fused[i]:+.3f} {label:50} "
            f"{via_number_text(chain[r], order)}".rstrip()
            + "\n"
        )
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``cage explain``."""
    parser.add_argument("--query", "-q", required=True, help="the query (not empty)")
    parser.add_argument("--passages", "-p", required=True, help="as for cage rerank")
    parser.add_argument(
        "--out", "-o", default="cage-explain.png", help="the picture to write (a .png path)"
    )
    add_config_options(parser)
