"""The DEV pools of every file and setting, built once and cached, for ``beyond_cv.py``.

    python benchmarks/beyond_pools.py --data ../shared/data --graph-store graphs.sqlite \
        --out pools/ [--only dragonball-open,...]

Each pool is what ``cage eval`` ranks in that setting (the same corpus, retrieval, expansion,
shuffle and gold matching; :mod:`cage_core.eval.open_retrieval`, :mod:`cage_core.eval.runner`):

* ``<wiki>-closed``: the benchmark's own pools of HotpotQA, 2WikiMultihopQA, MuSiQue (titled)
  and RAMDocs (untitled, shuffled as ``cage eval`` shuffles it);
* ``<wiki>-open-x``: open retrieval over the file's pooled passages, no titles, cosine top 20
  plus the link index's expansion (``cage eval --open 20 --no-titles --expand``);
* ``dragonball-open`` / ``-open-x``: the DragonBall corpus, untitled chunks, top 20, without
  and with ``--expand``; ``scifact-open`` / ``-open-x``: the titled abstracts;
  ``scifact_chunks-open`` / ``-open-x``: the untitled chunks (gold by ``meta.gold_chunk_ids``).

The cache is one pickle per setting of this script's own output (local benchmark files,
never read from anywhere else); delete one to rebuild it.
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
from pathlib import Path

import numpy as np

from cage_core import CageConfig, CageReranker
from cage_core.eval.corpus import corpus_from_pools, load_corpus
from cage_core.eval.corpus_retrieval import CorpusRetriever
from cage_core.eval.datasets import load_questions
from cage_core.eval.open_retrieval import (
    DEFAULT_OPEN_K,
    ExpansionSettings,
    _CorpusState,
    expand_pool,
    gold_ids_in_corpus,
    gold_in_corpus,
    misinfo_in_corpus,
)
from cage_core.eval.runner import _permutation, _similarities
from cage_core.passage import Passage

WIKI = ("hotpotqa", "2wikimultihopqa", "musique", "ramdocs")
BEYOND = {  # setting stem: (questions file, corpus file, titles)
    "dragonball": (
        "beyond-wikipedia/dragonball.jsonl",
        "beyond-wikipedia/dragonball.corpus.jsonl",
        False,
    ),
    "scifact": ("beyond-wikipedia/scifact.jsonl", "beyond-wikipedia/scifact.corpus.jsonl", True),
    "scifact_chunks": (
        "beyond-wikipedia/scifact.jsonl",
        "beyond-wikipedia/scifact_chunks.corpus.jsonl",
        False,
    ),
}
SETTINGS = ([f"{d}-closed" for d in WIKI] + [f"{d}-open-x" for d in WIKI]
            + [f"{d}-open{x}" for d in BEYOND for x in ("", "-x")])  # fmt: skip


def _record(setting: str, q, passages, sims, graphs, gold, n_gold, misinfo) -> dict:
    return {"setting": setting, "dataset": setting.split("-")[0], "id": q.id, "type": q.type,
            "query": q.question, "passages": passages, "sims": np.asarray(sims, dtype=np.float64),
            "graphs": graphs, "gold": frozenset(gold), "n_gold": n_gold, "misinfo": misinfo}  # fmt: skip


def closed_pools(data: Path, name: str, reranker: CageReranker) -> list[dict]:
    questions = load_questions(data / f"{name}.jsonl")
    shuffled = name == "ramdocs"
    perms = [_permutation(0, q.id, len(q.passages)) if shuffled else np.arange(len(q.passages))
             for q in questions]  # fmt: skip
    pools = [[Passage(q.passages[i].text, title=q.passages[i].title) for i in perm]
             for q, perm in zip(questions, perms)]  # fmt: skip
    sims = _similarities(reranker, questions, pools)
    out = []
    for q, perm, passages, (q_sims, _) in zip(questions, perms, pools, sims):
        graphs = reranker.graphs(passages)
        position = {int(src): new for new, src in enumerate(perm)}
        labels = q.meta.get("doc_labels")
        misinfo = (frozenset(position[i] for i, lab in enumerate(labels) if lab == "misinfo")
                   if isinstance(labels, list) and len(labels) == len(q.passages) else None)  # fmt: skip
        gold = [position[i] for i in q.gold_indices]
        out.append(_record(f"{name}-closed", q, passages, q_sims, graphs, gold, len(gold), misinfo))
    return out


def open_pools(questions, state: _CorpusState, reranker: CageReranker, stem: str, *,
               expand: bool, by_id: bool) -> list[dict]:  # fmt: skip
    corpus = state.corpus
    if by_id:
        questions = [q for q in questions if gold_ids_in_corpus(q, corpus) != ()]
    vectors = np.asarray(reranker.embedder([q.question for q in questions]), dtype=np.float64)
    from cage_core.scoring import cosine_matrix

    cosines = cosine_matrix(vectors, state.embeddings)
    retriever = CorpusRetriever([p.content for p in corpus.passages], cosines, "cosine",
                                reranker.config.lexical_weight)  # fmt: skip
    index = None
    if expand:
        state.ensure_graphs(range(len(corpus)), full=False)
        index = state.ensure_link_index()
    out = []
    for row, q in enumerate(questions):
        retrieved = retriever.top(row, q.question, DEFAULT_OPEN_K)
        ids = retrieved + (expand_pool(index, corpus, q.question, retrieved, ExpansionSettings())
                           if index is not None else [])  # fmt: skip
        state.ensure_graphs(ids, full=False)
        gold = gold_in_corpus(q, corpus)
        position = {c: n for n, c in enumerate(ids)}
        misinfo = misinfo_in_corpus(q, corpus)
        out.append(_record(f"{stem}-open{'-x' if expand else ''}", q, [corpus.passages[i] for i in ids],
                           cosines[row, ids], [state.graphs[i] for i in ids],
                           [position[g] for g in gold if g in position], len(gold),
                           None if misinfo is None else frozenset(position[m] for m in misinfo
                                                                  if m in position)))  # fmt: skip
    return out


def build(data: Path, reranker: CageReranker, only: list[str] | None, out: Path) -> None:
    """Build each setting's pools and write them to ``out/<setting>.pkl`` (one file each, so
    an interrupted run keeps what it finished; a setting whose file exists is skipped)."""
    states: dict[str, _CorpusState] = {}
    out.mkdir(parents=True, exist_ok=True)
    for setting in only or SETTINGS:
        if setting not in SETTINGS:
            raise SystemExit(f"unknown setting {setting!r}; choose among {SETTINGS}")
        target = out / f"{setting}.pkl"
        if target.exists():
            continue
        start = time.perf_counter()
        stem, kind = setting.split("-", 1)
        if kind == "closed":
            made = closed_pools(data, stem, reranker)
        elif stem in WIKI:
            questions = load_questions(data / f"{stem}.jsonl")
            state = _CorpusState(corpus_from_pools(questions, titles=False), reranker)
            made = open_pools(questions, state, reranker, stem, expand=True, by_id=False)
        else:
            qfile, cfile, titles = BEYOND[stem]
            if stem not in states:
                states[stem] = _CorpusState(load_corpus(data / cfile, titles=titles), reranker)
            made = open_pools(load_questions(data / qfile), states[stem], reranker, stem,
                              expand=kind == "open-x", by_id=True)  # fmt: skip
        with target.open("wb") as handle:
            pickle.dump(made, handle, protocol=pickle.HIGHEST_PROTOCOL)
        print(
            f"{setting}: {len(made)} pools in {time.perf_counter() - start:.0f}s",
            file=sys.stderr,
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--graph-store", default=None)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    reranker = CageReranker(CageConfig(), graph_store=args.graph_store)
    build(args.data, reranker, [s for s in args.only.split(",") if s] or None, args.out)


if __name__ == "__main__":
    main()
