"""``cage demo``: rerank the bundled multi-hop questions and print both orders."""

from __future__ import annotations

import argparse
from importlib import resources
from typing import TextIO

from cage_core.cli.options import add_config_options, at_least_one, config_from_args
from cage_core.cli.output import chain_vias, clip, via_text
from cage_core.eval.datasets import load_questions
from cage_core.extractive import extractive_answer
from cage_core.passage import Passage
from cage_core.reranker import CageReranker
from cage_core.scoring import ranking

__all__ = ["DEMO_FILE", "HELP", "add_arguments", "cmd_demo"]

DEMO_FILE = "demo.jsonl"
HELP = "rerank the bundled multi-hop questions"
"""The command's line in ``cage --help``."""


def cmd_demo(args: argparse.Namespace, out: TextIO) -> int:
    at_least_one(args.top_n, "--top-n")
    path = resources.files("cage_core").joinpath("data", DEMO_FILE)
    with resources.as_file(path) as demo_path:
        questions = load_questions(demo_path)
    reranker = CageReranker(config_from_args(args), nlp=args.spacy_model)
    top = args.top_n
    out.write(
        f"CAGE demo: {len(questions)} multi-hop questions bundled with cage-rag "
        f"(HotpotQA CC BY-SA 4.0, 2WikiMultihopQA Apache-2.0). * = gold passage; "
        f"← via: the earlier CAGE passage it is linked to.\n"
    )
    total_vanilla = total_cage = total_gold = 0
    for q in questions:
        passages = [Passage(text=p.text, title=p.title) for p in q.passages]
        scores = reranker.score(q.question, passages)
        gold = set(q.gold_indices)
        vanilla = ranking(scores.similarities)[:top]
        cage = ranking(scores.fused)[:top]
        chain = chain_vias(q.question, passages, scores, cage)
        total_gold += len(gold)
        total_vanilla += len(gold & {int(i) for i in vanilla})
        total_cage += len(gold & {int(i) for i in cage})
        out.write(f"\nQ [{q.dataset}/{q.type}] {q.question}\n  answer: {', '.join(q.answers)}\n")
        out.write(
            f"  vanilla top {top} (MiniLM cosine)           | CAGE top {top} "
            f"({reranker.config.coherence} coherence, α={reranker.config.alpha:.2f})\n"
        )
        for r in range(min(top, len(passages))):
            v, c = int(vanilla[r]), int(cage[r])
            left = (
                f"{'*' if v in gold else ' '} {scores.similarities[v]:.3f} "
                f"{clip(q.passages[v].title, 26):26}"
            )
            right = (
                f"{'*' if c in gold else ' '} f={scores.fused[c]:+.3f} "
                f"rel={scores.relevance[c]:+.3f} coh={scores.coherence[c]:+.3f} "
                f"{clip(q.passages[c].title, 26):26} {via_text(chain[r])}"
            )
            out.write(f"  {r + 1}. {left} | {right}".rstrip() + "\n")
        answer = extractive_answer(
            q.question,
            [passages[int(i)].text for i in cage],
            chain=chain,
            embedder=reranker.embedder,
            nlp=reranker.parser.nlp,
        )
        out.write(f"  answer from the CAGE top {top}: {answer.render()}\n")
    out.write(
        f"\ngold passages in the top {top}: vanilla {total_vanilla}/{total_gold}, "
        f"CAGE {total_cage}/{total_gold}\n"
    )
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``cage demo``."""
    parser.add_argument("--top-n", type=int, default=5, help="passages shown per method")
    add_config_options(parser)
