"""How a routed pool orders its named documents' passages: 5-fold CV over ALL DEV files pooled.

    python benchmarks/tuning/named_order_cv.py --data ../shared/data \\
        [--graph-store graphs.sqlite] [--json named_order_cv.json]

When a question names documents, routing ranks the pool for the shortened question and lifts
the named documents' passages above the others
(:func:`~cage_core.ranking.named_documents.named_first`). A question that names one document
may still need a passage of another (the DEV folders' two-document questions); one that needs
only its document (CUAD) wants the named passages first. The choices compared, each a rule on
the pool's scores (``cage``'s fused score ``f``, the relevance term ``r`` = ``hybrid``'s):

- ``all``: every named passage above every other, in ``f`` order (the rule before λ);
- ``lead L`` (L = 1 … 5): the named passages' best ``L`` by ``f`` above every other; the rest
  of the pool, named or not, in ``f`` order;
- ``… by relevance``: the same, the lifted named passages ordered by ``r`` instead of ``f``;
- ``all by f + λ r`` (λ = 0.5, 1, 2, 4; today's rule: λ = 0.5, ``NAMED_RELEVANCE_WEIGHT``;
  ``z``: each standardised over the pool first, λ = 0.5, 1): every named
  passage first, ordered by CAGE's fused score plus λ times its own relevance term
  (``PoolScores.relevance``): within one named document the chunks' links say less, the
  question's match more;
- ``two asks: lead L`` (L = 1 … 5): ``lead L`` for a question routed to one document that
  asks two or more things (``crossval.questions.asked_parts``: "What does the contract code
  size limit proposal allow, and how is the newer limit on initcode derived from it?"), whose
  other part another document may answer; ``all`` for every other question;
- ``…, the first passage 5th``: the rule named, then the pool's first passage (the
  retriever's best for the question as asked: the pools list the retrieved passages first, in
  the retriever's order), when it is below the top 5, put 5th (the rest move down one); with
  ``two asks:``, only for a question routed to one document that asks two things;
- ``two asks: …, the best other 5th``: for a question routed to one document that asks two
  things, the pool's best passage by ``f`` of no named document, when below the top 5, put
  5th (instead of the first passage); ``…, the first other 5th``: the first passage of no
  named document in the pool's order (the retriever's best outside the named documents)
  instead; ``…, the first passage and … in the top 5``: both, each one below the top 5 put in
  its last places (first passage first); ``…, the best other by own relevance 5th`` / ``…
  by r 5th``: the best passage of no named document by CAGE's own relevance term or by
  ``r`` instead of ``f``; ``…, each ask's lexical best other 5th``: instead, each ask's best
  passage of no named document by the pool's BM25 of the ask
  (:func:`~cage_core.ranking.pool_bm25.pool_bm25`; ``crossval.questions.asks``), when the ask
  shares a word with one; ``…, the best other and each ask's lexical best other in the top
  5``: both;
- ``all by r, two asks f + 0.5 r``: a question that asks one thing (``asked_parts``) has its
  named passages ordered by ``r`` (a look-up in the documents it names), one that asks more
  by ``f + 0.5 r``; alone and with ``two asks: …, the first passage 5th`` (as are λ = 2, 4 and
  ``by relevance``) or ``…, the best other 5th``;
- ``two asks: all by f + λ h, the best other 5th`` (λ = 0.5, 1, 2, 4): the shipped rule with
  ``hybrid``'s relevance ``r`` in the blend in place of CAGE's own term (``h`` for hybrid);
- ``two asks: all by f + 0.5 r, r >= τ, the best other 5th`` (τ = −0.5, 0, 0.5): the
  shipped rule, but only the named passages whose own relevance term (z-scored over the pool)
  is at least τ lead; the others are ranked among the rest;
- ``… @lw W``: the pool scored by ``cage`` with ``document.lexical_weight`` = W (0.5, 1; 1.5,
  the shipped, as a check that the column reproduces that choice's column), with the rule
  shipped before the best other passage (``two asks: all by f + 0.5 r, the first passage
  5th``);
- ``each ask's best at 5``: ``all``, then, for a question routed to one document that asks two
  or more things, each ask's best passage of the pool (``crossval.questions.asks``; MiniLM
  cosine of the ask and the passage's text), when it is of no named document and below the
  top 5, put 5th (the rest move down one): the named document answers the ask that names
  it, another document may answer the other.

DEV files and pools — every routed question of:

- the beyond-Wikipedia files whose chunks carry a ``doc_id`` (CUAD, DragonBall, SciFact
  chunks), pools as ``cage eval --open 20 --expand`` builds them (as in ``routing_cv.py``);
- the DEV folders (``benchmarks/data/dev_folders``), through the LlamaIndex README path of
  ``benchmarks/claims/dev_folders.py`` (``CageExpansionRetriever`` then ``CageRerank``; the
  script reads the pool, ``f`` and the named mask at the reranker's own call: the pool scored
  for the question the reranker ranks it for, ``f`` of the passages of no named document
  for the question as asked, as :func:`~cage_core.ranking.named_documents.named_pool_order`
  orders them).

A question routing does not fire for ranks the same under every choice; it counts in each
file's mean with its one figure. Questions go to folds by a hash of their id
(``crossval.fold_of``), never by file; each fold is ranked by the choice with the best mean over
the files of ``R@3 + R@5`` on the other folds, among the choices under which no file's mean is
below ``all``'s (a choice that helps one domain and hurts another is a loss). Printed: per file,
routed questions, each choice's R@3 / R@5, the out-of-fold figures, the fold choices and the
choice made on all folds.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))  # crossval
sys.path.insert(0, str(ROOT))  # this tree's cage_core

from crossval.choice import cross_validate, group_objective
from crossval.dev_folders import DATA as FOLDERS
from crossval.dev_folders import DOCUMENT_CORPORA as FILES
from crossval.dev_folders import gold_ids, llamaindex_methods, load_chunks
from crossval.folds import fold_array
from crossval.questions import asked_parts, asks

from cage_core import CageConfig
from cage_core.eval.corpus import load_corpus
from cage_core.eval.corpus_retrieval import CorpusRetriever
from cage_core.eval.datasets import load_questions
from cage_core.eval.metrics import recall_at_k
from cage_core.eval.open_retrieval import (
    CorpusState,
    ExpansionSettings,
    expand_pool,
    gold_ids_in_corpus,
    gold_in_corpus,
)
from cage_core.eval.open_routing import RoutedPools
from cage_core.expansion.routing import RoutingSettings, route_question
from cage_core.graphs.store import GraphStore
from cage_core.methods import get_method
from cage_core.methods.base import Pool
from cage_core.methods.scores import pool_scores
from cage_core.ranking.pool_bm25 import pool_bm25
from cage_core.reranker import CageReranker
from cage_core.scoring import cosine_matrix, ranking

K = 20
LEADS = (None, 1, 2, 3, 4, 5)  # None: every named passage leads
EACH_ASK = (None, "f", "each ask")
ONE_ASK_R = "r, two asks f + 0.5 r"  # a one-ask question's named passages by relevance
ROUTED_LEXICAL = (0.5, 1.0, 1.5)  # document.lexical_weight of a routed pool (1.5: the shipped)
MATCHED = ("-0.5", "0", "0.5")  # a named passage leads only when its own r is at least this
BLENDS = ("f + 0.5 r", "f + r", "f + 2 r", "f + 4 r", "z f + 0.5 z r", "z f + z r")
CHOICES = [
    *[(lead, by, "") for by in ("f", "r") for lead in LEADS],
    *[(None, by, "") for by in BLENDS],
    *[(lead, "f", "two asks") for lead in LEADS[1:]],
    EACH_ASK,
    *[(None, by, "first") for by in ("f", "f + 0.5 r")],
    (None, "f + 0.5 r", "two asks: first"),
    *[(None, by, "two asks: first") for by in ("f + 2 r", "f + 4 r", "r", ONE_ASK_R)],
    (None, ONE_ASK_R, ""),
    *[(None, f"f + 0.5 r @lw{lw}", "two asks: first") for lw in ROUTED_LEXICAL],
    (None, "f + 0.5 r", "two asks: other"),
    (None, "f + 0.5 r", "two asks: first, other"),
    (None, "f + 0.5 r", "two asks: retrieved other"),
    (None, "f + 0.5 r", "two asks: first, retrieved other"),
    (None, "f + 0.5 r", "two asks: own other"),
    (None, "f + 0.5 r", "two asks: r other"),
    (None, "f + 0.5 r", "two asks: lexical other"),
    (None, "f + 0.5 r", "two asks: other, lexical other"),
    (None, ONE_ASK_R, "two asks: other"),
    *[(None, f"f + {w} h", "two asks: other") for w in ("0.5", "1", "2", "4")],
    *[(None, f"f + 0.5 r, r >= {t}", "two asks: other") for t in MATCHED],
]  # (lead, order of the lifted, "": every question / "two asks": only a two-ask question
# routed to one document / "each ask", "first": module docstring)
ASK_RANK = 4  # 0-based: 5th


def label(choice: tuple[int | None, str, str]) -> str:
    lead, by, only = choice
    if only == "each ask":
        return "each ask's best at 5"
    name = "all" if lead is None else f"lead {lead}"
    by_label = {"f": "", "r": " by relevance"}.get(by, f" by {by}")
    if only.endswith("first"):
        prefix = "two asks: " if only.startswith("two asks") else ""
        return prefix + name + by_label + ", the first passage 5th"
    if only.endswith("other"):
        other = "the first other" if "retrieved" in only else "the best other"
        if "own other" in only or "r other" in only:
            other += " by own relevance" if "own" in only else " by r"
        if "lexical" in only:
            other = "each ask's lexical best other"
        kept = (
            f", the first passage and {other} in the top 5"
            if "first," in only
            else f", the best other and {other} in the top 5"
            if "other," in only
            else f", {other} 5th"
        )
        return "two asks: " + name + by_label + kept
    return (f"{only}: " if only else "") + name + by_label


def blended(fused: np.ndarray, own: np.ndarray, by: str) -> np.ndarray:
    """The key of a ``BLENDS`` choice: ``f + λ·r`` of CAGE's fused score and its own relevance
    term, each standardised over the pool first for the ``z`` ones."""
    numbers = [float(w) for w in by.split() if w[0].isdigit()]
    weight = numbers[0] if numbers else 1.0  # "f + 2 r": 2; "z f + z r": 1
    if by.startswith("z"):
        return zscore(fused) + weight * zscore(own)
    return fused + weight * own


def zscore(x: np.ndarray) -> np.ndarray:
    spread = float(x.std())
    return (x - x.mean()) / (spread if spread > 0 else 1.0)


def order(
    fused: np.ndarray, relevance: np.ndarray, named: np.ndarray, choice, own: np.ndarray
) -> np.ndarray:
    """The pool's order (indices, best first) under ``choice`` (module docstring)."""
    lead, by, _ = choice
    named_rows = np.flatnonzero(named)
    if ", r >= " in by:  # only the named passages that match lead (MATCHED)
        by, floor = by.split(", r >= ")
        named_rows = named_rows[own[named_rows] >= float(floor)]
    if len(named_rows) == 0 or len(named_rows) == len(named):
        return ranking(fused)
    leaders = named_rows[ranking(fused[named_rows])][: lead or len(named_rows)]
    key = {"f": fused, "r": relevance}.get(by)
    if key is None:
        key = blended(fused, relevance if by.endswith(" h") else own, by)
    leaders = leaders[ranking(key[leaders])]
    rest = np.setdiff1d(np.arange(len(fused)), leaders)
    return np.concatenate([leaders, rest[ranking(fused[rest])]])


def asks_two(q: dict[str, Any]) -> bool:
    """Whether routed question ``q`` is routed to one document and asks two or more things."""
    return q["documents"] == 1 and asked_parts(q["question"]) >= 2


def with_asks(
    rows: np.ndarray, ask_best: Sequence[int], named: np.ndarray, place: int = ASK_RANK
) -> np.ndarray:
    """``rows`` (a pool's order) with each of ``ask_best`` (each ask's best passage) that is
    not named and not in the top 5 put at 0-based ``place`` (5th), in ask order (module
    docstring)."""
    out = list(rows)
    for j in ask_best:
        if not named[j] and out.index(j) > ASK_RANK:
            out.remove(j)
            out.insert(place, j)
    return np.asarray(out)


def other_passage(fused: np.ndarray, named: np.ndarray, by_retriever: bool) -> list[int]:
    """The pool's best passage of no named document, by ``fused`` or (``by_retriever``) the
    first in the pool's order (the retriever's best); none when every passage is named."""
    others = np.flatnonzero(~named)
    if len(others) == 0:
        return []
    return [int(others[0] if by_retriever else others[ranking(fused[others])[0]])]


def kept_in_top(rows: np.ndarray, kept: list[int]) -> np.ndarray:
    """``rows`` with each of ``kept`` that is below the top 5 put in its last places, in
    ``kept``'s order (those already in the top 5 stay)."""
    out = list(rows)
    below = [j for j in dict.fromkeys(kept) if out.index(j) > ASK_RANK]
    for j in below:
        out.remove(j)
    for n, j in enumerate(below):
        out.insert(ASK_RANK + 1 - len(below) + n, j)
    return np.asarray(out)


def figures(routed: list[dict[str, Any]]) -> np.ndarray:
    """``[C, N, 2]``: R@3 / R@5 of each choice on each routed question."""
    out = np.zeros((len(CHOICES), len(routed), 2))
    for n, q in enumerate(routed):
        ids = np.asarray(q["ids"], dtype=object)
        two_ask = asks_two(q)
        for c, choice in enumerate(CHOICES):
            if choice[2] in ("two asks", "each ask") and not two_ask:
                choice = (None, "f", "")
            if choice[2].startswith("two asks: ") and not two_ask:
                choice = (None, choice[1], "")
            fused, own = q["fused"], q["own"]
            if "@lw" in choice[1]:  # the pool scored with another document.lexical_weight
                by, lw = choice[1].split(" @lw")
                fused, own = q[f"fused lw{lw}"], q[f"own lw{lw}"]
                choice = (choice[0], by, choice[2])
            if choice[1] == ONE_ASK_R:
                by = "f + 0.5 r" if asked_parts(q["question"]) >= 2 else "r"
                choice = (choice[0], by, choice[2])
            rows = order(fused, q["relevance"], q["named"], choice, own)
            if choice == EACH_ASK:
                rows = with_asks(rows, q["ask_best"], np.asarray(q["named"], dtype=bool))
            only = choice[2]
            if only.endswith("other"):  # the first passage and/or a passage of no named document
                named = np.asarray(q["named"], dtype=bool)
                key = {"own": q["own"], "r": q["relevance"]}.get(only.split()[-2], q["fused"])
                other = other_passage(key, named, "retrieved" in only)
                if "lexical" in only:
                    lexical = [j for j in q["ask_lexical"] if not named[j]]
                    other = (other if "other," in only else []) + lexical
                rows = kept_in_top(rows, ([0] if "first," in only else []) + other)
            elif "first" in only:  # the pool's first: the retriever's best as asked
                rows = with_asks(rows, [0], np.zeros(len(rows), dtype=bool))
            ranked = list(ids[rows])
            out[c, n] = [recall_at_k(ranked, q["gold"], 3), recall_at_k(ranked, q["gold"], 5)]
    return out


def corpus_questions(
    data: Path, questions_path: str, corpus_path: str, reranker: CageReranker
) -> tuple[list[dict[str, Any]], list[tuple[str, np.ndarray]]]:
    """Routed questions of one beyond-Wikipedia file (their pools' scores), and every other
    question's (id, [R@3, R@5]) under ``cage``, as ``routing_cv.py`` builds the pools."""
    corpus = load_corpus(data / corpus_path, titles=False)
    state = CorpusState(corpus, reranker)
    questions = [
        q for q in load_questions(data / questions_path) if gold_ids_in_corpus(q, corpus) != ()
    ]
    golds = [gold_in_corpus(q, corpus) for q in questions]
    vectors = np.asarray(reranker.embedder([q.question for q in questions]), dtype=np.float64)
    cosines = cosine_matrix(vectors, state.embeddings)
    first_stage = CorpusRetriever([p.content for p in corpus.passages], cosines, "cosine", 0.0)
    retrieved = [first_stage.top(row, q.question, K) for row, q in enumerate(questions)]
    cage, hybrid = get_method("cage", reranker.config), get_method("hybrid", reranker.config)
    state.ensure_graphs(range(len(corpus)), full=False)
    link_index = state.ensure_link_index()
    pools = [
        ids + expand_pool(link_index, corpus, q.question, ids, ExpansionSettings())
        for q, ids in zip(questions, retrieved)
    ]
    settings = RoutingSettings()
    routes = [route_question(q.question, state.documents.names, settings) for q in questions]
    todo = [r.question for r in routes if r]
    rows = cosine_matrix(np.asarray(reranker.embedder(todo), dtype=np.float64), state.embeddings)
    routed_pools = RoutedPools.build(
        routes, pools, state.documents, rows.reshape(len(todo), len(corpus)), settings.chunks
    )
    routed, unrouted = [], []
    for row, (q, route) in enumerate(zip(questions, routes)):
        ids = routed_pools.pools.get(row, pools[row])
        query = route.question if route else q.question
        pool = Pool(
            query=query,
            passages=[corpus.passages[i] for i in ids],
            similarities=routed_pools.similarities.get(row, cosines[row])[ids],
            key=q.id,
            graphs=[state.graphs[i] for i in ids],
            passage_vectors=state.embeddings[ids],
        )
        scored = pool_scores(cage, pool)
        fused = np.asarray(scored.fused, dtype=np.float64)
        if not route:
            ranked = list(np.asarray(ids)[ranking(fused)])
            unrouted.append((q.id, np.array([recall_at_k(ranked, golds[row], k) for k in (3, 5)])))
            continue
        routed.append(
            {
                "id": q.id,
                "question": query,
                "documents": len(route.doc_ids),
                "ids": [int(i) for i in ids],
                "gold": [int(g) for g in golds[row]],
                "fused": fused,
                "relevance": np.asarray(hybrid.score(pool), dtype=np.float64),
                "own": np.asarray(scored.relevance, dtype=np.float64),
                "named": np.array([corpus.passages[i].doc_id in route.doc_ids for i in ids]),
                **lexical_variants(pool, reranker.config),
            }
        )
    return routed, unrouted


def lexical_variants(pool: Pool, config: CageConfig) -> dict[str, np.ndarray]:
    """``cage``'s fused score and own relevance of ``pool`` with each ``ROUTED_LEXICAL`` as
    ``document.lexical_weight`` (the ``@lw`` choices)."""
    out = {}
    for lw in ROUTED_LEXICAL:
        document = config.document.replace(lexical_weight=lw)
        scored = pool_scores(get_method("cage", config.replace(document=document)), pool)
        out[f"fused lw{lw}"] = np.asarray(scored.fused, dtype=np.float64)
        out[f"own lw{lw}"] = np.asarray(scored.relevance, dtype=np.float64)
    return out


def folder_questions(name: str) -> tuple[list[dict[str, Any]], list[tuple[str, np.ndarray]]]:
    """The same for one DEV folder, through the LlamaIndex README path: the pool, ``f`` and the
    named mask are read at the reranker's own call (``named_pool_order``'s arguments)."""
    import cage_core.reranker as reranker_module

    spec, chunks = load_chunks(FOLDERS / f"{name}.json")
    gold = gold_ids(spec, chunks)
    methods, _ = llamaindex_methods(chunks, K)
    hybrid = get_method("hybrid")
    seen: dict[str, Any] = {}
    original_scores = reranker_module.pool_scores
    original_named_order = reranker_module.named_pool_order

    def reading_scores(method, pool):  # type: ignore[no-untyped-def]
        scores = original_scores(method, pool)
        if "pool" not in seen:  # the pool ranked for the question (a second call: as asked)
            seen["pool"], seen["scores"] = pool, scores
        return scores

    def reading_named_order(scores, named, items, question, asked=None):  # type: ignore[no-untyped-def]
        mask = np.asarray(named, dtype=bool)  # the others ordered as asked, as shipped
        fused = scores.fused if asked is None else np.where(mask, scores.fused, asked.fused)
        seen["fused"] = np.asarray(fused, dtype=np.float64)
        seen["named"] = mask
        return original_named_order(scores, named, items, question, asked)

    reranker_module.pool_scores = reading_scores
    reranker_module.named_pool_order = reading_named_order
    routed, unrouted = [], []
    try:
        for q in spec["questions"]:
            seen.clear()
            ranked = methods["cage --expand"](q["question"])[0]
            qid = f"{name}/{q['id']}"
            if "named" not in seen:
                unrouted.append(
                    (qid, np.array([recall_at_k(ranked, gold[q["id"]], k) for k in (3, 5)]))
                )
                continue
            pool = seen["pool"]
            named_ids = [p.id for p, n in zip(pool.passages, seen["named"]) if n]
            routed.append(
                {
                    "id": qid,
                    "question": pool.query,
                    "documents": len({i.rsplit(":", 1)[0] for i in named_ids}),
                    "ids": [p.id for p in pool.passages],
                    "gold": gold[q["id"]],
                    "fused": seen["fused"],
                    "relevance": np.asarray(pool_scores(hybrid, pool).fused, dtype=np.float64),
                    "own": np.asarray(seen["scores"].relevance, dtype=np.float64),
                    "named": seen["named"],
                    **lexical_variants(pool, CageConfig()),
                }
            )
    finally:
        reranker_module.pool_scores = original_scores
        reranker_module.named_pool_order = original_named_order
    return routed, unrouted


def add_ask_best(routed: list[dict[str, Any]], text_of: Any, embedder: Any) -> list[dict[str, Any]]:
    """``routed`` with ``ask_best`` on each question: for one routed to one document that asks
    two or more things, the index of each ask's best passage of its pool by the MiniLM cosine
    of the ask and the passage's text (``text_of(pool id)``); else none."""
    out = []
    for q in routed:
        parts = asks(q["question"])
        best: list[int] = []
        if asks_two(q):
            passages = np.asarray(embedder([text_of(i) for i in q["ids"]]), dtype=np.float64)
            cosines = cosine_matrix(np.asarray(embedder(parts), dtype=np.float64), passages)
            best = [int(j) for j in cosines.argmax(axis=1)]
        out.append({**q, "ask_best": best, "ask_lexical": lexical_best(q, parts, text_of)})
    return out


def lexical_best(q: dict[str, Any], parts: list[str], text_of: Any) -> list[int]:
    """For a question routed to one document that asks two or more things: each ask's best
    passage of no named document by the pool's BM25 (``pool_bm25``) of the ask, when the ask
    shares a word with one; else none."""
    if not asks_two(q):
        return []
    named = np.asarray(q["named"], dtype=bool)
    texts = [text_of(i) for i in q["ids"]]
    best: list[int] = []
    for part in parts:
        scores = np.where(named, -1.0, pool_bm25(part, texts))
        j = int(ranking(scores)[0])
        if scores[j] > 0 and j not in best:
            best.append(j)
    return best


def folder_texts(name: str) -> Any:
    """A DEV folder's chunk text by chunk id."""
    _, chunks = load_chunks(FOLDERS / f"{name}.json")
    return {c.id: c.page_content for c in chunks}.__getitem__


def corpus_texts(data: Path, corpus_path: str) -> Any:
    """A DEV corpus's passage text by passage index."""
    passages = load_corpus(data / corpus_path, titles=False).passages
    return lambda i: passages[i].content


ARRAYS = (
    "fused",
    "relevance",
    "own",
    "named",
    *[f"{score} lw{lw}" for lw in ROUTED_LEXICAL for score in ("fused", "own")],
)


def to_json(part: tuple[list[dict[str, Any]], list[tuple[str, np.ndarray]]]) -> dict[str, Any]:
    """One file's pools (``--cache``) as JSON: arrays as lists."""
    routed, unrouted = part
    return {
        "routed": [{k: v.tolist() if k in ARRAYS else v for k, v in q.items()} for q in routed],
        "unrouted": [[qid, figures.tolist()] for qid, figures in unrouted],
    }


def from_json(data: dict[str, Any]) -> tuple[list[dict[str, Any]], list[tuple[str, np.ndarray]]]:
    """The pools :func:`to_json` wrote."""
    routed = [
        {k: np.asarray(v) if k in ARRAYS else v for k, v in q.items()} for q in data["routed"]
    ]
    return routed, [(qid, np.asarray(figures)) for qid, figures in data["unrouted"]]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--graph-store", type=Path, default=None)
    parser.add_argument("--folders", default=None, help="DEV folders, comma-separated (all)")
    parser.add_argument("--no-corpora", action="store_true", help="DEV folders only (a check)")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument(
        "--cache", type=Path, default=None, help="keep each file's pools here (a folder)"
    )
    args = parser.parse_args(argv)
    if args.cache:
        args.cache.mkdir(parents=True, exist_ok=True)
    reranker = CageReranker(graph_store=GraphStore(args.graph_store) if args.graph_store else None)
    folders = (
        args.folders.split(",")
        if args.folders
        else sorted(p.stem for p in (ROOT / "benchmarks/data/dev_folders").glob("*.json"))
    )
    parts: list[tuple[str, list[dict[str, Any]], list[tuple[str, np.ndarray]]]] = []
    todo: list[tuple[str, Any, Any]] = [
        (name, folder_questions, lambda n=name: folder_texts(n)) for name in folders
    ]
    for name, questions_path, corpus_path in () if args.no_corpora else FILES:
        todo.append(
            (
                name,
                lambda _, q=questions_path, c=corpus_path: corpus_questions(
                    args.data, q, c, reranker
                ),
                lambda c=corpus_path: corpus_texts(args.data, c),
            )
        )
    for name, read, texts in todo:
        start = time.perf_counter()
        cached = args.cache / f"{name}.json" if args.cache else None
        if cached is not None and cached.exists():
            routed, unrouted = from_json(json.loads(cached.read_text(encoding="utf-8")))
        else:
            routed, unrouted = read(name)
            if cached is not None:
                cached.write_text(json.dumps(to_json((routed, unrouted))), encoding="utf-8")
        if any(asks_two(q) for q in routed):
            routed = add_ask_best(routed, texts(), reranker.embedder)
        else:
            routed = [{**q, "ask_best": [], "ask_lexical": []} for q in routed]
        parts.append((name, routed, unrouted))
        print(f"{name}: {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)

    ids, groups, blocks = [], [], []
    for name, routed, unrouted in parts:
        ids += [q["id"] for q in routed] + [i for i, _ in unrouted]
        groups += [name] * (len(routed) + len(unrouted))
        same = np.array([f for _, f in unrouted]).reshape(len(unrouted), 2)
        blocks.append(
            np.concatenate(
                [figures(routed), np.broadcast_to(same, (len(CHOICES), *same.shape))], axis=1
            )
        )
    scores = np.concatenate(blocks, axis=1)  # [C, N, 2]
    group_array, names = np.array(groups), [name for name, _, _ in parts]
    plain = group_objective(scores, group_array, names)

    def guarded(mask: np.ndarray) -> np.ndarray:
        per_file = np.array(
            [scores[:, mask & (group_array == g)].sum(axis=2).mean(axis=1) for g in names]
        )
        allowed = (per_file >= per_file[:, :1] - 1e-9).all(axis=0)
        return np.where(allowed, plain(mask), -np.inf)

    cv = cross_validate(scores, fold_array(ids), guarded)
    out: dict[str, Any] = {
        "choices": [label(c) for c in CHOICES],
        "fold_choices": [label(CHOICES[c]) for c in cv.fold_choices],
        "chosen": label(CHOICES[cv.chosen]),
        "files": {},
    }
    print("| file | routed / questions | " + " | ".join(out["choices"]) + " | out of fold |")
    print("|---|---|" + "---|" * (len(CHOICES) + 1))
    for name, routed, _ in parts:
        mask = group_array == name
        cells = [
            f"{scores[c, mask, 0].mean():.3f}/{scores[c, mask, 1].mean():.3f}"
            for c in range(len(CHOICES))
        ]
        oof = cv.out_of_fold[mask]
        print(
            f"| {name} | {len(routed)}/{mask.sum()} | "
            + " | ".join(cells)
            + f" | {oof[:, 0].mean():.3f}/{oof[:, 1].mean():.3f} |"
        )
        out["files"][name] = {
            "routed": len(routed),
            "questions": int(mask.sum()),
            "R@3/R@5": dict(zip(out["choices"], cells)),
            "out_of_fold": [float(oof[:, 0].mean()), float(oof[:, 1].mean())],
        }
    print("fold choices:", out["fold_choices"])
    print("chosen on all folds:", out["chosen"])
    if args.json:
        args.json.write_text(json.dumps(out, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
