"""The DEV pools of every file and setting, as ``cage eval`` ranks them.

Each pool is what ``cage eval`` ranks in that setting (the same corpus, retrieval, expansion,
shuffle and gold matching; :mod:`cage_core.eval.open_retrieval`, :mod:`cage_core.eval.runner`):

* ``<wiki>-closed``: the benchmark's own pools of HotpotQA, 2WikiMultihopQA, MuSiQue (titled)
  and RAMDocs (untitled, shuffled as ``cage eval`` shuffles it);
* ``<wiki>-open-x``: open retrieval over the file's pooled passages, no titles, cosine top 20
  plus the link index's expansion (``cage eval --open 20 --no-titles --expand``);
* ``dragonball-open`` / ``-open-x``: the DragonBall corpus, untitled chunks, top 20, without
  and with ``--expand``; ``scifact-open`` / ``-open-x``: the titled abstracts;
  ``scifact_chunks-open`` / ``-open-x``: the untitled chunks (gold by ``meta.gold_chunk_ids``).

A pool is a dict (:mod:`crossval.pool_files` writes and reads it).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cage_core import CageReranker
from cage_core.eval.corpus_retrieval import CorpusRetriever
from cage_core.eval.datasets import EvalQuestion, load_questions
from cage_core.eval.open_retrieval import (
    DEFAULT_OPEN_K,
    CorpusState,
    ExpansionSettings,
    expand_pool,
    gold_ids_in_corpus,
    gold_in_corpus,
    misinfo_in_corpus,
)
from cage_core.eval.runner import pool_permutation, pool_similarities
from cage_core.graphs.passage_graph import PassageGraph
from cage_core.passage import Passage
from cage_core.scoring import cosine_matrix

__all__ = ["BEYOND", "SETTINGS", "WIKI", "closed_pools", "open_pools", "pool_record"]

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
SETTINGS = (
    [f"{d}-closed" for d in WIKI]
    + [f"{d}-open-x" for d in WIKI]
    + [f"{d}-open{x}" for d in BEYOND for x in ("", "-x")]
)


def pool_record(
    setting: str,
    q: EvalQuestion,
    passages: list[Passage],
    sims: Sequence[float] | np.ndarray,
    graphs: list[PassageGraph],
    gold: Sequence[int],
    n_gold: int,
    misinfo: frozenset[int] | None,
) -> dict[str, Any]:
    """One pool as the tuning scripts read it (:mod:`crossval.pool_files`)."""
    return {
        "setting": setting,
        "dataset": setting.split("-")[0],
        "id": q.id,
        "type": q.type,
        "query": q.question,
        "passages": passages,
        "sims": np.asarray(sims, dtype=np.float64),
        "graphs": graphs,
        "gold": frozenset(gold),
        "n_gold": n_gold,
        "misinfo": misinfo,
    }


def closed_pools(
    data: Path, name: str, reranker: CageReranker, limit: int | None = None
) -> list[dict[str, Any]]:
    """The ``<name>-closed`` pools of the file ``data/<name>.jsonl`` (its first ``limit``
    questions)."""
    questions = load_questions(data / f"{name}.jsonl")[:limit]
    shuffled = name == "ramdocs"
    perms = [
        pool_permutation(0, q.id, len(q.passages)) if shuffled else np.arange(len(q.passages))
        for q in questions
    ]
    pools = [
        [Passage(q.passages[i].text, title=q.passages[i].title) for i in perm]
        for q, perm in zip(questions, perms)
    ]
    sims = pool_similarities(reranker, questions, pools)
    out = []
    for q, perm, passages, (q_sims, _) in zip(questions, perms, pools, sims):
        graphs = reranker.graphs(passages)
        position = {int(src): new for new, src in enumerate(perm)}
        labels = q.meta.get("doc_labels")
        misinfo = (
            frozenset(position[i] for i, lab in enumerate(labels) if lab == "misinfo")
            if isinstance(labels, list) and len(labels) == len(q.passages)
            else None
        )
        gold = [position[i] for i in q.gold_indices]
        record = pool_record(
            f"{name}-closed", q, passages, q_sims, graphs, gold, len(gold), misinfo
        )
        out.append(record)
    return out


def open_pools(
    questions: list[EvalQuestion],
    state: CorpusState,
    reranker: CageReranker,
    stem: str,
    *,
    expand: bool,
    by_id: bool,
) -> list[dict[str, Any]]:
    """The ``<stem>-open`` (or ``-open-x`` with ``expand``) pools of ``questions`` over the
    corpus of ``state``: the cosine top 20, then the link index's expansion. With ``by_id``,
    a question whose listed gold ids the corpus lacks is left out (as ``cage eval`` does)."""
    corpus = state.corpus
    if by_id:
        questions = [q for q in questions if gold_ids_in_corpus(q, corpus) != ()]
    vectors = np.asarray(reranker.embedder([q.question for q in questions]), dtype=np.float64)
    cosines = cosine_matrix(vectors, state.embeddings)
    retriever = CorpusRetriever(
        [p.content for p in corpus.passages], cosines, "cosine", reranker.config.lexical_weight
    )
    index = None
    if expand:
        state.ensure_graphs(range(len(corpus)), full=False)
        index = state.ensure_link_index()
    out = []
    for row, q in enumerate(questions):
        retrieved = retriever.top(row, q.question, DEFAULT_OPEN_K)
        extra = (
            expand_pool(index, corpus, q.question, retrieved, ExpansionSettings())
            if index is not None
            else []
        )
        ids = retrieved + extra
        state.ensure_graphs(ids, full=False)
        gold = gold_in_corpus(q, corpus)
        position = {c: n for n, c in enumerate(ids)}
        misinfo = misinfo_in_corpus(q, corpus)
        out.append(
            pool_record(
                f"{stem}-open{'-x' if expand else ''}",
                q,
                [corpus.passages[i] for i in ids],
                cosines[row, ids],
                [state.graphs[i] for i in ids],
                [position[g] for g in gold if g in position],
                len(gold),
                None
                if misinfo is None
                else frozenset(position[m] for m in misinfo if m in position),
            )
        )
    return out
