"""What following citations by title costs per seed (issue 45, item 3;
``cage_core.expansion.title_parts.titles_cited``).

    python benchmarks/claims/title_citation_cost.py [--documents 50000] [--texts 300]
        [--words 80] [--integrity-key KEY]

Builds a SQLite link store (in a temporary directory) holding ``--documents`` document records
read by ``document_record`` from openings ``"# {title}\\n\\n{60 words}"``: titles of 2–6 words
drawn from a vocabulary of 20,000 made-up words and ten English ones (a seeded draw). Then
times (wall clock, median and p95) ``titles_cited`` on ``--texts`` seed texts of ``--words``
drawn words (80: a 500-character chunk) that write one stored document's title and 10 more
words, against the store's document names (a store with ``--integrity-key`` checks each
word it finds: the slow case), and counts the texts in which it finds a title: a title whose
every word is in more than four titles names none, and one written after the seed's first
128 distinct words is not read, so not every written title is cited.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from cage_core.expansion.documents import document_record
from cage_core.expansion.index import LinkIndex
from cage_core.expansion.title_parts import titles_cited

VOCABULARY = [f"w{i:05d}" for i in range(20_000)] + "the of and a to in for on with by".split()
BATCH = 5_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=50_000)
    parser.add_argument("--texts", type=int, default=300)
    parser.add_argument("--words", type=int, default=80, help="drawn words before the title")
    parser.add_argument("--integrity-key", default=None, help="the store's integrity key")
    args = parser.parse_args()
    rng = random.Random(0)

    def drawn(n: int) -> str:
        return " ".join(rng.choice(VOCABULARY) for _ in range(n))

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "links.sqlite"
        index = LinkIndex.open(path, create=True, integrity_key=args.integrity_key)
        start = time.perf_counter()
        for first in range(0, args.documents, BATCH):
            index.add_documents(
                document_record(
                    f"docs/d{d}.md", opening=f"# {drawn(rng.randint(2, 6)).title()}\n\n{drawn(60)}"
                )
                for d in range(first, min(first + BATCH, args.documents))
            )
        print(f"{args.documents:,} document records written in {time.perf_counter() - start:.1f} s")
        names = index.documents()
        texts = []
        for _ in range(args.texts):
            record = names.document(f"docs/d{rng.randrange(args.documents)}.md")
            assert record is not None
            texts.append(f"{drawn(args.words)} see {record.name} {drawn(10)}")
        seconds, cited = [], 0
        for text in texts:
            start = time.perf_counter()
            cited += bool(titles_cited(text, names))
            seconds.append(time.perf_counter() - start)
        seconds.sort()
        print(
            f"titles_cited per seed text: median {1000 * statistics.median(seconds):.2f} ms, "
            f"p95 {1000 * seconds[int(0.95 * len(seconds))]:.2f} ms; "
            f"a title cited in {cited}/{len(texts)} texts"
        )


if __name__ == "__main__":
    main()
