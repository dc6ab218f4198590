"""The SQLite link store expands exactly as the in-memory (JSON Lines) link index on DEV.

    nice -n 10 python benchmarks/checks/link_store_dev_check.py [--data FILE ...]
        [--graph-store FILE] [--limit N]

Per DEV file (default: every ``*.jsonl`` of ``../shared/data`` and its
``beyond-wikipedia`` folder that holds questions), the corpus ``cage eval --open`` builds
from the pools (``corpus_from_pools``, titles on), light graphs from the graph store (default:
the package's, ``~/.cache/cage-rag/graphs.sqlite``; parsed and stored when missing), and three link
indexes of it:

1. in memory, as ``cage eval --expand`` builds it (``LinkIndex.build``);
2. a SQLite store written through the ingest path: ``add_entries`` in batches of 100;
3. a SQLite store imported from the in-memory index's JSON Lines file (``import_jsonl``).

For every question, the candidates are its BM25 top 20 over the corpus (what
``cage eval --open 20 --retriever bm25`` retrieves) and, separately, its pool in file order;
each is expanded with the default seeds and limit and with ``seeds=5, limit=20``
(``expand_pool``, the step ``cage eval --expand`` runs). Printed: per file, the expansions
compared and how many differ (0 expected); the pool CAGE reranks is the retrieved passages
plus these expansions, so equal expansions give equal rankings.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cage_core.eval.corpus import corpus_from_pools
from cage_core.eval.corpus_retrieval import CorpusRetriever
from cage_core.eval.datasets import load_questions
from cage_core.eval.open_retrieval import ExpansionSettings, expand_pool
from cage_core.expansion.index import LinkIndex
from cage_core.expansion.store_import import import_jsonl
from cage_core.graphs.service import PassageGraphs
from cage_core.graphs.store import default_store_path

DATA = Path("../shared/data")
"""The DEV files, relative to the repository root (run from there)."""
SETTINGS = (ExpansionSettings(), ExpansionSettings(seeds=5, limit=20))


def dev_files() -> list[Path]:
    files = sorted(DATA.glob("*.jsonl")) + sorted((DATA / "beyond-wikipedia").glob("*.jsonl"))
    return [f for f in files if not f.name.endswith(".corpus.jsonl")]


def check(path: Path, graphs: PassageGraphs, folder: Path, limit: int | None) -> tuple[int, int]:
    questions = load_questions(path)[:limit]
    corpus = corpus_from_pools(questions, titles=True)
    made = graphs.graphs(list(corpus.passages), level="light")
    memory = LinkIndex.build((p.id or str(i), p, made[i]) for i, p in enumerate(corpus.passages))
    written = LinkIndex.open(folder / f"{path.stem}.sqlite", create=True)
    entries = list(memory.entries())
    for start in range(0, len(entries), 100):
        written.add_entries(entries[start : start + 100])
    memory.save(folder / f"{path.stem}.links.jsonl")
    import_jsonl(folder / f"{path.stem}.links.jsonl", folder / f"{path.stem}.imported.sqlite")
    imported = LinkIndex.open(folder / f"{path.stem}.imported.sqlite")
    texts = [p.content for p in corpus.passages]
    bm25 = CorpusRetriever(texts, np.zeros((len(questions), len(texts))), "bm25")
    compared = differ = 0
    for row, question in enumerate(questions):
        pool = [i for i in (corpus.find(p) for p in question.passages) if i is not None]
        for retrieved in (bm25.top(row, question.question, 20), pool):
            for settings in SETTINGS:
                expected = expand_pool(memory, corpus, question.question, retrieved, settings)
                for store in (written, imported):
                    compared += 1
                    differ += (
                        expand_pool(store, corpus, question.question, retrieved, settings)
                        != expected
                    )
    written.close()
    imported.close()
    return compared, differ


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", nargs="*", type=Path, help=f"DEV files (default: {DATA}'s)")
    parser.add_argument("--graph-store", default=str(default_store_path()), help="graph store")
    parser.add_argument("--limit", type=int, help="the first N questions of each file")
    args = parser.parse_args()
    graphs = PassageGraphs(store=args.graph_store, cache_size=0)
    total = bad = 0
    with tempfile.TemporaryDirectory() as folder:
        for path in args.data or dev_files():
            compared, differ = check(path, graphs, Path(folder), args.limit)
            print(
                f"{path.name}: {compared} expansions compared, {differ} differ "
                f"({graphs.parse_count} passages parsed so far)",
                flush=True,
            )
            total, bad = total + compared, bad + differ
    print(f"all files: {total} expansions compared, {bad} differ")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
