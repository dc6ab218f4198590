"""The DEV pools of every file and setting, built once and written, for the tuning scripts.

    python benchmarks/tuning/beyond_pools.py --data ../shared/data --graph-store graphs.sqlite \\
        --out pools/ [--only dragonball-open,...] [--limit N]

The settings and pools are :mod:`crossval.dev_pools`'s (what ``cage eval`` ranks in each
setting); ``beyond_cv.py``, ``document_view_variants.py`` read them. Each setting goes to
``<out>/<setting>.json.gz`` (:mod:`crossval.pool_files`: gzipped JSON, graphs in their stored
form, no pickle); a setting whose file exists is skipped, so an interrupted run keeps what it
finished. ``--limit N`` keeps the first N questions of each file (and, in the Wikipedia open
settings, a corpus of their passages only): a smoke run, not the figures.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: crossval
from crossval.dev_pools import BEYOND, SETTINGS, WIKI, closed_pools, open_pools
from crossval.pool_files import SUFFIX, write_pools

from cage_core import CageConfig, CageReranker
from cage_core.eval.corpus import corpus_from_pools, load_corpus
from cage_core.eval.datasets import load_questions
from cage_core.eval.open_retrieval import CorpusState


def build(
    data: Path, reranker: CageReranker, only: list[str] | None, out: Path, limit: int | None
) -> None:
    """Build each setting's pools and write them to ``out/<setting>.json.gz`` (one file each,
    so an interrupted run keeps what it finished; a setting whose file exists is skipped)."""
    states: dict[str, CorpusState] = {}
    out.mkdir(parents=True, exist_ok=True)
    for setting in only or SETTINGS:
        if setting not in SETTINGS:
            raise SystemExit(f"unknown setting {setting!r}; choose among {SETTINGS}")
        target = out / f"{setting}{SUFFIX}"
        if target.exists():
            continue
        start = time.perf_counter()
        stem, kind = setting.split("-", 1)
        if kind == "closed":
            made = closed_pools(data, stem, reranker, limit)
        elif stem in WIKI:
            questions = load_questions(data / f"{stem}.jsonl")[:limit]
            state = CorpusState(corpus_from_pools(questions, titles=False), reranker)
            made = open_pools(questions, state, reranker, stem, expand=True, by_id=False)
        else:
            qfile, cfile, titles = BEYOND[stem]
            if stem not in states:
                states[stem] = CorpusState(load_corpus(data / cfile, titles=titles), reranker)
            questions = load_questions(data / qfile)[:limit]
            made = open_pools(
                questions, states[stem], reranker, stem, expand=kind == "open-x", by_id=True
            )
        write_pools(target, made)
        seconds = time.perf_counter() - start
        print(f"{setting}: {len(made)} pools in {seconds:.0f}s", file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="the DEV files' folder")
    parser.add_argument("--graph-store", default=None, help="SQLite graph store to reuse")
    parser.add_argument("--out", type=Path, required=True, help="folder of the pool files")
    parser.add_argument("--only", default="", help=f"comma-separated settings of {SETTINGS}")
    parser.add_argument("--limit", type=int, help="the first N questions of each file (smoke)")
    args = parser.parse_args()
    reranker = CageReranker(CageConfig(), graph_store=args.graph_store)
    only = [s for s in args.only.split(",") if s] or None
    build(args.data, reranker, only, args.out, args.limit)


if __name__ == "__main__":
    main()
