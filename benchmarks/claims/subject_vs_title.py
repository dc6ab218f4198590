"""How often the subject derived for an untitled passage is its real title.

    python benchmarks/claims/subject_vs_title.py [--data DIR] [--graph-store FILE] [--examples N]

For each DEV file (HotpotQA, 2Wiki, MuSiQue), every distinct passage loses its title and gets
:func:`cage_core.names.subjects.derive_subject` from its text and light graph. Printed: how
many subjects come from each rule, the share equal to the real title and the share that
contains it or is contained in it (both compared as :func:`cage_core.ranking.links.bare_title` in
whole words: lower case, trailing parenthetical dropped, punctuation ignored), and a few
misses.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from cage_core import CageReranker, Passage
from cage_core.eval.datasets import load_questions
from cage_core.names.subjects import derive_subject
from cage_core.ranking.links import bare_title
from cage_core.ranking.pair_index import words

FILES = ("hotpotqa", "2wikimultihopqa", "musique")


def comparable(name: str) -> str:
    return " ".join(words(bare_title(name)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="../shared/data")
    parser.add_argument("--graph-store", default=None)
    parser.add_argument("--examples", type=int, default=5, help="misses printed per file")
    args = parser.parse_args()
    reranker = CageReranker(graph_store=args.graph_store)
    for name in FILES:
        questions = load_questions(Path(args.data) / f"{name}.jsonl")
        pairs = sorted({(p.title, p.text) for q in questions for p in q.passages})
        passages = [Passage(text=text) for _, text in pairs]
        graphs = reranker.graphs(passages, level="light")
        origins, equal, overlapping, misses = Counter(), 0, 0, []
        for (title, _), passage, graph in zip(pairs, passages, graphs):
            subject = derive_subject(passage, graph)
            origins[subject.origin or "none"] += 1
            real, derived = comparable(title), comparable(subject.name)
            if real == derived:
                equal += 1
            elif (
                real
                and derived
                and (f" {real} " in f" {derived} " or f" {derived} " in f" {real} ")
            ):
                overlapping += 1
            elif len(misses) < args.examples:
                misses.append(f"    {title!r} -> {subject.name!r} ({subject.origin or 'none'})")
        n = len(pairs)
        print(
            f"{name}: {n} passages; subjects by rule {dict(origins)}; equal to the title "
            f"{equal / n:.3f}, containing or contained in it {overlapping / n:.3f}"
        )
        print("\n".join(misses))


if __name__ == "__main__":
    main()
