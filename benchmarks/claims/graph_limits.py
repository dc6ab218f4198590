"""What the largest accepted stored graphs cost (issue 40, row 15).

    nice -n 5 python benchmarks/claims/graph_limits.py [--parse]

Builds 20 stored graphs of the largest size the validator accepts for the default
``max_parse_chars`` (:func:`~cage_core.graphs.passage_graph.graph_limits`: every node an
entity, every edge with a verb) and prints their size, the time to validate all 20
(``PassageGraph.from_stored``) and the time to rank a pool of 20 passages with them as
precomputed graphs (``CageReranker.rerank(..., graphs=...)``, given similarities). With
``--parse`` it also parses adversarial 20,000-character texts with the default spaCy
pipeline and prints the nodes, edges and stored characters each gives, beside the limits.
"""

from __future__ import annotations

import argparse
import itertools
import json
import string
import time
from pathlib import Path

from cage_core.graphs.passage_graph import (
    MAX_EDGES,
    MAX_NODES,
    MAX_STORED_CHARS,
    PassageGraph,
    content_hash,
)
from cage_core.graphs.relations import NUM_RELATIONS


def words(n: int) -> list[str]:
    """``n`` distinct lower-case words: "aa", "ab", …, "aaa", …"""
    out = itertools.chain.from_iterable(
        ("".join(t) for t in itertools.product(string.ascii_lowercase, repeat=size))
        for size in range(2, 6)
    )
    return list(itertools.islice(out, n))


def largest_graph(text: str, source: str) -> str:
    """A stored graph of ``MAX_NODES`` entity nodes and ``MAX_EDGES`` verb edges."""
    labels = [w.capitalize() for w in words(MAX_NODES)]
    nodes = [[label, "PROPN", "PERSON"] for label in labels]
    edges = [
        [i % MAX_NODES, (i * 7 + 1) % MAX_NODES, i % NUM_RELATIONS, "meet"]
        for i in range(MAX_EDGES)
    ]
    graph = {
        "format": "cage-passage-graph",
        "version": 2,
        "source": source,
        "sha": content_hash(text),
        "level": "full",
        "nodes": nodes,
        "edges": edges,
    }
    return json.dumps(graph, separators=(",", ":"))


def adversarial_texts() -> dict[str, str]:
    names = [w.capitalize() for w in words(8000)]

    def lists(size: int) -> str:
        return " ".join(
            ", ".join(names[j : j + size])
            + " and Zed saw "
            + ", ".join(names[j + size : j + 2 * size])
            + " and Zod."
            for j in range(0, 8000 - 2 * size, 2 * size)
        )

    demo = Path(__file__).parents[2] / "cage_core" / "data" / "demo.jsonl"
    prose = " ".join(
        dict.fromkeys(
            p["text"]
            for line in demo.read_text(encoding="utf-8").splitlines()
            for p in json.loads(line).get("passages", [])
        )
    )
    return {
        "demo passages (prose)": prose,
        "two lists of 700 names": lists(700),
        "lists of numbers": ", ".join(str(i) for i in range(1000, 3000))
        + " and 5 saw "
        + ", ".join(str(i) for i in range(3000, 5000))
        + " and 7.",
        "hyphenated words": "-".join(words(6000)),
        "CJK characters": " ".join(chr(0x4E00 + i) for i in range(10000)),
        "numbers": " ".join(str(i) for i in range(10000)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--parse", action="store_true")
    args = parser.parse_args()
    from cage_core import CageReranker

    reranker = CageReranker()
    passages = [f"Passage {i} about Marie Curie." for i in range(20)]
    stored = [largest_graph(p, reranker.fingerprint) for p in passages]
    print(
        f"limits: {MAX_NODES} nodes, {MAX_EDGES} edges, {MAX_STORED_CHARS} stored chars; "
        f"largest graph {len(stored[0]):,} chars"
    )
    start, cpu = time.perf_counter(), time.process_time()
    graphs = [PassageGraph.from_stored(s) for s in stored]
    cpu = time.process_time() - cpu
    print(f"validate 20: {time.perf_counter() - start:.2f} s ({cpu:.2f} s CPU)")
    start, cpu = time.perf_counter(), time.process_time()
    reranker.rerank(
        "Where was Marie Curie born?",
        passages,
        query_similarities=[i / 20 for i in range(20)],
        graphs=graphs,
    )
    cpu = time.process_time() - cpu
    print(f"rank 20: {time.perf_counter() - start:.2f} s ({cpu:.2f} s CPU)")
    if args.parse:
        for name, text in adversarial_texts().items():
            text = text[:20_000]
            g = reranker.parser.parse([text], level="full")[0]
            print(
                f"{name:>24}: {len(text):>6} chars, {g.num_nodes:>5} nodes, "
                f"{g.num_edges:>6} edges, "
                f"{len(g.to_text()):>7} stored chars"
            )


if __name__ == "__main__":
    main()
