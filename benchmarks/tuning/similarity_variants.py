"""Two variants of the dense similarity on the DEV folders: pseudo-relevance feedback and the
best sentence of a chunk (issue 45: a fuller pool, a better order).

    python benchmarks/tuning/similarity_variants.py [--data DIR] [--folders NAME,...]

Each folder's files split by the README's splitter (``crossval.dev_folders.load_chunks``),
every chunk and question embedded by the packaged MiniLM (unit vectors, cosine = dot).

**First stage** (MiniLM over all of a folder's chunks, nothing of CAGE): per question the
cosine's top 20 (the README's k), 25 and 30, and the top 20 plus the first 5 other chunks of a
second search with

- ``feedback m β``: Rocchio's query ``q + β · c``, ``c`` the mean of the top ``m`` chunks'
  vectors (dense pseudo-relevance feedback: the pool reaches the neighbours of what it found);
- ``residual m β``: ``q − β (q·ĉ) ĉ``, the question less ``β`` of its part along those chunks'
  mean direction (what the top chunks do not cover, as a second ask would search it);

and the chunks ranked by ``sentence w``: ``(1 − w) · cos(q, chunk) + w · max cos(q, sentence)``
over the chunk's sentences (split after ``.!?`` and before a list item, heading, quote or
table line; parts under 20 characters dropped; a chunk with none is its one sentence).
Printed pooled: R@5, the gold share of the searched chunks (the top 20 for the ``sentence``
rows) and the two-document questions with every gold chunk among them; per folder the first
two.

**Reranked** (the LangChain README path: ``crossval.dev_folders.langchain_ingest``,
``ScoredVectorStoreRetriever`` k=20, ``CageExpansionRetriever``, ``CageRerank()``): the same
expanded pool with the similarity the reranker reads (``cage_retrieval_score``, and a routed
pool's ``cage_route_score`` for the shortened question) replaced by the ``sentence w`` blend:
R@5, the gold share of the pool and the two-document questions' all@5. ``w = 0`` is the
README path itself.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # this tree's cage_core
sys.path.insert(0, str(ROOT / "benchmarks"))  # crossval

from crossval.dev_folders import (
    DATA,
    gold_ids,
    is_two_document,
    langchain_ingest,
    load_chunks,
    parsed_folder_specs,
    recall,
)

K = 20
ADDED = 5
FEEDBACK = ((3, 0.5), (3, 1.0), (5, 0.5), (5, 1.0))  # (m, β)
FIRST_STAGE_WEIGHTS = (0.25, 0.5, 1.0)
RERANKED_WEIGHTS = (0.0, 0.25, 0.5)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n\s*\n|\n(?=\s*[-*#>|])")
MIN_SENTENCE = 20

Row = tuple[float, float, bool | None]  # R@5, gold share searched, every gold part searched


class FolderVectors(NamedTuple):
    """A folder's MiniLM unit vectors, embedded once for both passes."""

    chunks: np.ndarray  # one row a chunk
    sentences: np.ndarray  # one row a sentence (:func:`sentences`), the chunks' in order
    owners: np.ndarray  # the chunk of each sentence row
    questions: dict[str, np.ndarray]  # question id -> its vector

    def parts(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Chunk id -> its sentences' rows (every chunk has one at least)."""
        cuts = np.flatnonzero(np.diff(self.owners)) + 1
        return dict(zip(ids, np.split(self.sentences, cuts), strict=True))


def sentences(text: str) -> list[str]:
    """The chunk's sentences (module docstring); the chunk itself when none is long enough."""
    parts = [p.strip() for p in SENTENCE_END.split(text) if p and len(p.strip()) >= MIN_SENTENCE]
    return parts or [text]


def unit(vectors: Any) -> np.ndarray:
    v = np.asarray(vectors, dtype=np.float64)
    return v / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), 1e-12)


def top(scores: np.ndarray, k: int) -> list[int]:
    return [int(i) for i in np.argsort(-scores, kind="stable")[:k]]


def second_search(make_query: Callable[[np.ndarray, np.ndarray], np.ndarray], m: int):
    """A search that keeps the top :data:`K` and adds the first :data:`ADDED` other chunks of
    the query ``make_query(q, c)``, ``c`` the mean of the top ``m`` chunks' vectors."""

    def search(q: np.ndarray, chunks: np.ndarray) -> tuple[list[int], list[int]]:
        first = top(chunks @ q, K)
        again = unit(make_query(q, chunks[first[:m]].mean(axis=0)))
        held = set(first)
        extra = [i for i in top(chunks @ again, K + ADDED * 4) if i not in held][:ADDED]
        return first, first + extra

    return search


def first_stage_searches() -> dict[str, Callable[..., tuple[list[int], list[int]]]]:
    """Name -> ``search(q, chunks) -> (order for R@5, chunks searched)``."""
    searches: dict[str, Callable[..., tuple[list[int], list[int]]]] = {}
    for k in (K, K + 5, K + 10):
        searches[f"top {k}"] = lambda q, c, k=k: (top(c @ q, k), top(c @ q, k))
    for m, beta in FEEDBACK:
        searches[f"feedback {m} {beta}"] = second_search(lambda q, c, b=beta: q + b * c, m)
        searches[f"residual {m} {beta}"] = second_search(
            lambda q, c, b=beta: q - b * (q @ unit(c)) * unit(c), m
        )
    return searches


def folder_vectors(spec: dict, chunks: list, embed: Callable) -> FolderVectors:
    """The folder's chunks, their sentences and its questions, embedded."""
    owners, texts = [], []
    for i, chunk in enumerate(chunks):
        for sentence in sentences(chunk.page_content):
            owners.append(i)
            texts.append(sentence)
    questions = spec["questions"]
    asked = unit(embed([q["question"] for q in questions]))
    return FolderVectors(
        chunks=unit(embed([c.page_content for c in chunks])),
        sentences=unit(embed(texts)),
        owners=np.asarray(owners),
        questions={q["id"]: v for q, v in zip(questions, asked, strict=True)},
    )


def first_stage(spec: dict, chunks: list, vectors: FolderVectors) -> dict[str, dict[str, Row]]:
    """Per question, per first-stage variant: (R@5, gold share searched, all gold searched)."""
    gold = gold_ids(spec, chunks)
    ids = [c.id for c in chunks]
    searches = first_stage_searches()
    out: dict[str, dict[str, Row]] = {}
    for question in spec["questions"]:
        g = gold.get(question["id"]) or []
        if not g:
            continue
        q = vectors.questions[question["id"]]
        two = is_two_document(question)
        cosines = vectors.chunks @ q
        best = np.full(len(chunks), -np.inf)
        np.maximum.at(best, vectors.owners, vectors.sentences @ q)
        found = {name: search(q, vectors.chunks) for name, search in searches.items()}
        for w in FIRST_STAGE_WEIGHTS:
            order = top((1 - w) * cosines + w * best, K)
            found[f"sentence {w}"] = (order, order)
        row = {}
        for name, (order, searched) in found.items():
            held = {ids[i] for i in searched}
            share = sum(x in held for x in g) / len(g)
            row[name] = (recall([ids[i] for i in order], g), share, share == 1 if two else None)
        out[question["id"]] = row
    return out


def reranked(
    spec: dict, chunks: list, vectors: FolderVectors, embed: Callable
) -> dict[str, dict[str, Row]]:
    """Per question, per ``sentence w``: (R@5 after ``CageRerank``, gold share of the expanded
    pool, all@5 of a two-document question)."""
    from cage_core.integrations.document_routing import ROUTE_KEY, ROUTE_SCORE_KEY
    from cage_core.metadata import RETRIEVAL_SCORE_KEY
    from cage_langchain import CageExpansionRetriever, CageRerank, ScoredVectorStoreRetriever

    gold = gold_ids(spec, chunks)
    _, store, links = langchain_ingest(chunks)
    base = ScoredVectorStoreRetriever(vectorstore=store, k=K)
    expand = CageExpansionRetriever(base_retriever=base, vectorstore=store, link_index=links)
    cage = CageRerank(top_n=None)
    parts = vectors.parts([c.id for c in chunks])
    out: dict[str, dict[str, Row]] = {}
    for question in spec["questions"]:
        g = gold.get(question["id"]) or []
        if not g:
            continue
        text = question["question"]
        pool = expand.invoke(text)
        route = next((d.metadata[ROUTE_KEY] for d in pool if ROUTE_KEY in d.metadata), None)
        queries = {RETRIEVAL_SCORE_KEY: vectors.questions[question["id"]]}
        if route is not None:
            queries[ROUTE_SCORE_KEY] = unit(embed([route["question"]]))[0]
        # per passage, per score key it carries: (the chunk's cosine, its best sentence's)
        cosines = []
        for doc in pool:
            chunk = unit(store.store[doc.id]["vector"])
            keys = [k for k in queries if k == RETRIEVAL_SCORE_KEY or k in doc.metadata]
            cosines.append(
                {
                    k: (float(chunk @ queries[k]), float((parts[doc.id] @ queries[k]).max()))
                    for k in keys
                }
            )
        share = len({d.id for d in pool} & set(g)) / len(g)
        row = {}
        for w in RERANKED_WEIGHTS:
            docs = []
            for doc, pair in zip(pool, cosines, strict=True):
                doc = doc.model_copy(deep=True)
                if w:
                    for key, (cosine, best) in pair.items():
                        doc.metadata[key] = (1 - w) * cosine + w * best
                docs.append(doc)
            order = [d.id for d in cage.compress_documents(docs, text)]
            two = all(x in order[:5] for x in g) if is_two_document(question) else None
            row[f"sentence {w}"] = (recall(order, g), share, two)
        out[question["id"]] = row
    return out


def report(title: str, results: dict[str, dict[str, dict[str, Row]]], share: str) -> None:
    """The pooled row of every variant, then R@5 / the gold share per folder."""
    names = list(next(iter(next(iter(results.values())).values())))
    print(f"\n{title}\n")
    print(f"| variant | R@5 | {share} | two-document questions, all |")
    print("|---|---|---|---|")
    pooled = [row for folder in results.values() for row in folder.values()]
    for name in names:
        two = [r[name][2] for r in pooled if r[name][2] is not None]
        r5, held = np.mean([r[name][0] for r in pooled]), np.mean([r[name][1] for r in pooled])
        print(f"| {name} | {r5:.3f} | {held:.3f} | {sum(two)}/{len(two)} |")
    print("\n| folder (R@5 / gold share) | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for folder, by_question in results.items():
        rows = list(by_question.values())
        cells = [
            f"{np.mean([r[n][0] for r in rows]):.3f} / {np.mean([r[n][1] for r in rows]):.3f}"
            for n in names
        ]
        print(f"| {folder} | " + " | ".join(cells) + " |")


def main(argv: Sequence[str] | None = None) -> None:
    from cage_core.models import default_embedder

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help="the folder of folder specs")
    parser.add_argument("--folders", default="", help="comma-separated (all)")
    args = parser.parse_args(argv)
    paths = parsed_folder_specs(parser, args.data, args.folders)
    embed = default_embedder()
    first: dict[str, dict[str, dict[str, Row]]] = {}
    again: dict[str, dict[str, dict[str, Row]]] = {}
    for path in paths:
        start = time.perf_counter()
        spec, chunks = load_chunks(path)
        vectors = folder_vectors(spec, chunks, embed)
        first[path.stem] = first_stage(spec, chunks, vectors)
        again[path.stem] = reranked(spec, chunks, vectors, embed)
        print(f"{path.stem}: {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    report("First stage: MiniLM over every chunk of the folder", first, "gold share searched")
    report("Reranked: the LangChain README path, expanded", again, "gold share of the pool")


if __name__ == "__main__":
    main()
