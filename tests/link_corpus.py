"""Generated link-index entries the link-store tests share: passages about people, each
titled with its person and a light graph of person, place and organisation names drawn with
Zipf frequencies (honorifics and middle names, so that sub-spans and short forms link too)."""

from __future__ import annotations

import random
import sqlite3
from dataclasses import replace

from graphs import entity_graph

from cage_core import Passage
from cage_core.expansion.index import LinkEntry, LinkIndex, LinkWeights, entry_for
from cage_core.graphs.passage_graph import PassageGraph, content_hash

FIRST = ["John", "Mary", "James", "Anna", "Robert", "Elena", "Charles", "Sofia", "Pierre", "Li"]
LAST = ["Smith", "Curie", "Mathew", "Temple", "Gosling", "Stemmle", "Novak", "Okafor", "Wei"]
PLACES = ["Cork", "Warsaw", "Paris", "Lincoln's Inn", "Whitechapel", "Kyoto", "Lagos", "Lima"]
QUERIES = [
    "Where was John Smith buried?",
    "Who taught Mary Curie in Warsaw?",
    "Which club did Sir Robert A. Stemmle found in Paris?",
]


def _people(rng: random.Random, count: int) -> list[str]:
    names = []
    for i in range(count):
        first, last = FIRST[i % len(FIRST)], LAST[(i // len(FIRST)) % len(LAST)]
        middle = f" {rng.choice('ABCDE')}." if rng.random() < 0.3 else ""
        honorific = "Sir " if rng.random() < 0.15 else ""
        names.append(f"{honorific}{first}{middle} {last}")
    return names


def corpus(n: int = 400, seed: int = 0) -> dict[str, tuple[Passage, PassageGraph]]:
    """``n`` passages ``p0..``: each about one person (its title), naming ~8 others, places
    and organisations; names drawn with Zipf weights (a few very common, most rare)."""
    rng = random.Random(seed)
    people = _people(rng, n)
    named = people + PLACES
    weights = [1 / (rank + 1) for rank in range(len(named))]
    out = {}
    for i in range(n):
        ents = {people[i]: "PERSON"}
        for name in rng.choices(named, weights, k=rng.randint(4, 12)):
            ents.setdefault(name, "GPE" if name in PLACES else "PERSON")
        ents[str(1800 + i % 200)] = "DATE"  # numeric: never a mention
        title = people[i] if rng.random() < 0.8 else ""  # some untitled: derived subjects
        passage = Passage(f"{people[i]} met {', '.join(ents)}.", title=title)
        graph = replace(
            entity_graph(list(ents.items()), light=True), content_sha=content_hash(passage.content)
        )  # storable, as parsed ones are
        out[f"p{i}"] = (passage, graph)
    return out


def entries(n: int = 400, seed: int = 0, doc_size: int = 5) -> list[LinkEntry]:
    """The entries of :func:`corpus`, chunks of documents of ``doc_size`` passages."""
    return [
        replace(entry_for(pid, p, g), doc_id=f"doc{i // doc_size}", position=i % doc_size)
        for i, (pid, (p, g)) in enumerate(corpus(n, seed).items())
    ]


def both(tmp_path, batch, **weights):
    memory = LinkIndex(LinkWeights(**weights) if weights else None)
    memory.add_entries(batch)
    store = LinkIndex.open(
        tmp_path / "links.sqlite", create=True, weights=LinkWeights(**weights) if weights else None
    )
    store.add_entries(batch)
    return memory, store


def candidate_lists(ids: list[str], count: int = 150, seed: int = 1) -> list[list[str]]:
    rng = random.Random(seed)
    lists = [rng.sample(ids, rng.randint(1, 20)) for _ in range(count)]
    return lists + [["unknown", *ids[:3]], [], ["p0", "p0", "p1"]]


def stored_counts(path) -> dict[str, tuple[int, int]]:
    with sqlite3.connect(path) as conn:
        return {n: (k, m) for n, k, m in conn.execute("SELECT name, keyed, mentioned FROM names")}


def recount(index: LinkIndex) -> dict[str, tuple[int, int]]:
    counts: dict[str, list[int]] = {}
    for entry in index.entries():
        for name in entry.keys:
            counts.setdefault(name, [0, 0])[0] += 1
        for name in entry.mentions:
            counts.setdefault(name, [0, 0])[1] += 1
    return {n: (k, m) for n, (k, m) in counts.items()}
