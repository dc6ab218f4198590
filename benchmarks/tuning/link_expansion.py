"""How far the link index's expansion lifts the open-retrieval ceiling, and Recall@5 after it.

    python benchmarks/tuning/link_expansion.py [--data DIR] [--graph-store FILE] [--out FILE]

Per DEV file (HotpotQA, 2Wiki, MuSiQue), with titles and without (``Passage(title="")``):

* corpus = the distinct (title, text) passages of the union of the file's pools; MiniLM
  (``cage_core.models.default_embedder``) cosine retrieves the top ``K`` = 20 per question;
* a :class:`~cage_core.expansion.index.LinkIndex` is built from the corpus and its light graphs
  (read from / written to the graph store);
* for each seeds s in ``SEEDS`` and limit l in ``LIMITS``: the pool is the top 20 plus
  ``expand(question, top 20, seeds=s, limit=l)``; printed: gold recall of that pool (the
  ceiling a reranker can reach) and Recall@5 after ``CageReranker`` (default config) reranks
  it, given the cosine similarities and the graphs (nothing re-embedded or re-parsed).

Without titles, a second rerank gives each passage its derived subject
(:func:`cage_core.names.subjects.passage_subject`) as title — what bridge coherence would
gain from subjects; retrieval, graphs and expansions are those of the untitled passages.

Defaults are chosen by 5-fold cross-validation over questions pooled across the three files
and both title settings (a question's two title settings fall in the same fold; folds by a
seeded shuffle, ``crossval.shuffled_folds``, the scheme this script chose with): on each
training part a rule picks (s, l), scored on the held-out part. Two rules are reported: the
best mean reranked Recall@5 (ties: fewer seeds, then the smaller limit), and the one-SE
rule (the smallest expansion, by limit then seeds, whose mean is within one paired standard
error of the best). One setting for every dataset; never per dataset. Per-question records
go to ``--out`` (JSON); ``--report-only`` re-reads them. ``--with-records`` pools more DEV
records of this form into the cross-validation (``tuning/expansion_folders.py``'s: the DEV
folders through the LangChain and LlamaIndex README paths), and the report then gives each
source's mean and the shipped setting against the best.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: crossval
from crossval import FOLDS, shuffled_folds
from crossval.grids import EXPANSION_LIMITS as LIMITS
from crossval.grids import EXPANSION_SEEDS as SEEDS

from cage_core import CageReranker, Passage
from cage_core.eval.datasets import load_questions
from cage_core.expansion.algorithm import DEFAULT_LIMIT, DEFAULT_SEEDS
from cage_core.expansion.index import LinkIndex
from cage_core.names.subjects import passage_subject

FILES = ("hotpotqa", "2wikimultihopqa", "musique")
K = 20
TOP_N = 5
FOLD_SEED = 0


def recall(found: set[str], gold: set[str]) -> float:
    return len(found & gold) / len(gold)


def subject_titled(passages: list[Passage], graphs: list) -> list[Passage]:
    """The untitled passages with their derived subject as title, for the reranker only."""
    return [Passage(text=p.text, title=passage_subject(p, g)) for p, g in zip(passages, graphs)]


def run_file(
    name: str,
    data: Path,
    titles: bool,
    reranker: CageReranker,
    max_questions: int | None,
) -> tuple[list[dict], dict]:
    everything = load_questions(data / f"{name}.jsonl")
    questions = everything[:max_questions]
    pairs = sorted({(p.title, p.text) for q in everything for p in q.passages})
    ids = [f"p{i}" for i in range(len(pairs))]
    id_of = dict(zip(pairs, ids))
    passages = [Passage(text=text, title=title if titles else "") for title, text in pairs]
    graphs = reranker.graphs(passages, level="light")
    vectors = reranker.passage_embeddings([p.content for p in passages])
    vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    start = time.perf_counter()
    index = LinkIndex.build(zip(ids, passages, graphs))
    build_s = time.perf_counter() - start
    # Without titles, a second rerank sees each passage's derived subject as its title (bridge
    # title links from subjects); its graphs and similarities stay those of the untitled text,
    # so the graphs lose their content hash (else the reranker would parse the titled content).
    variants = {"r5": (passages, graphs)}
    if not titles:
        variants["r5_subjects"] = (
            subject_titled(passages, graphs),
            [dataclasses.replace(g, content_sha="") for g in graphs],
        )
    query_vectors = reranker.embedder([q.question for q in questions])
    query_vectors = query_vectors / np.linalg.norm(query_vectors, axis=1, keepdims=True)
    sims = query_vectors @ vectors.T
    records, expand_s = [], []
    for q, row in zip(questions, sims):
        order = np.argsort(-row, kind="stable")
        top = [ids[i] for i in order[:K]]
        gold = {id_of[(p.title, p.text)] for p in q.passages if p.gold}
        record = {
            "file": name,
            "titles": titles,
            "question": q.id,
            "ceiling": recall(set(top), gold),
            "vanilla": recall(set(top[:TOP_N]), gold),
            "settings": {},
        }
        reranked: dict[tuple[str, tuple[str, ...]], set[str]] = {}  # each distinct pool once
        for s in SEEDS:
            t0 = time.perf_counter()
            expansions = index.expand(q.question, top, seeds=s, limit=max(LIMITS))
            expand_s.append(time.perf_counter() - t0)
            for limit in LIMITS:
                pool = top + [e.id for e in expansions[:limit]]
                positions = [int(p[1:]) for p in pool]
                result = {
                    "pool": recall(set(pool), gold),
                    "added": len(pool) - len(top),
                    "kinds": [e.kind for e in expansions[:limit] if e.id in gold],
                }
                for variant, (pool_passages, pool_graphs) in variants.items():
                    if (variant, tuple(pool)) not in reranked:
                        ranked = reranker.rerank(
                            q.question,
                            [pool_passages[i] for i in positions],
                            top_n=TOP_N,
                            query_similarities=row[positions],
                            graphs=[pool_graphs[i] for i in positions],
                        )
                        reranked[(variant, tuple(pool))] = {pool[r.index] for r in ranked}
                    result[variant] = recall(reranked[(variant, tuple(pool))], gold)
                record["settings"][f"{s},{limit}"] = result
        records.append(record)
    info = {
        "passages": len(passages),
        "bytes_per_passage": round(index.bytes_per_passage(), 1),
        "build_s": round(build_s, 2),
        "expand_ms_p50": round(1000 * statistics.median(expand_s), 3),
        "expand_ms_p95": round(1000 * float(np.percentile(expand_s, 95)), 3),
    }
    return records, info


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


SETTINGS = [(s, limit) for s in SEEDS for limit in LIMITS]
SHIPPED = (DEFAULT_SEEDS, DEFAULT_LIMIT)


def r5_of(records: list[dict], setting: tuple[int, int]) -> np.ndarray:
    return np.array([r["settings"][f"{setting[0]},{setting[1]}"]["r5"] for r in records])


def best_setting(records: list[dict]) -> tuple[int, int]:
    """The highest mean reranked Recall@5 (ties: fewer seeds, then the smaller limit)."""
    return max(SETTINGS, key=lambda sl: (r5_of(records, sl).mean(), -sl[0], -sl[1]))


def one_se_setting(records: list[dict]) -> tuple[int, int]:
    """The smallest expansion (limit, then seeds) within one paired standard error of the best."""
    best = r5_of(records, best_setting(records))
    for setting in sorted(SETTINGS, key=lambda sl: (sl[1], sl[0])):
        diff = r5_of(records, setting) - best
        if diff.mean() >= -diff.std(ddof=1) / np.sqrt(len(diff)):
            return setting
    raise AssertionError("the best setting is within one standard error of itself")


def cross_validate(records: list[dict], choose) -> tuple[list[tuple[int, int]], float]:
    """Fold choices of ``choose`` and the held-out mean reranked Recall@5 (module docstring)."""
    fold_of = shuffled_folds([(r["file"], r["question"]) for r in records], FOLD_SEED)
    choices, held_out = [], []
    for fold in range(FOLDS):
        train = [r for r in records if fold_of[(r["file"], r["question"])] != fold]
        test = [r for r in records if fold_of[(r["file"], r["question"])] == fold]
        setting = choose(train)
        choices.append(setting)
        held_out += r5_of(test, setting).tolist()
    return choices, mean(held_out)


def table(records: list[dict], setting: tuple[int, int]) -> list[str]:
    s, limit = setting
    key = f"{s},{limit}"
    header = (
        f"| file | titles | ceiling@{K} | with expansion | added | vanilla R@5 | "
        f"cage R@5, top {K} | cage R@5, expanded | same, subjects as titles |"
    )
    lines = [header, "|---|---|---|---|---|---|---|---|---|"]
    for name in FILES:
        for titles in (True, False):
            rs = [r for r in records if r["file"] == name and r["titles"] == titles]
            if not rs:
                continue
            subjects = (
                ""
                if titles
                else (
                    f"{mean([r['settings'][f'{s},0']['r5_subjects'] for r in rs]):.3f} → "
                    f"{mean([r['settings'][key]['r5_subjects'] for r in rs]):.3f}"
                )
            )
            lines.append(
                f"| {name} | {'yes' if titles else 'no'} | "
                f"{mean([r['ceiling'] for r in rs]):.3f} | "
                f"{mean([r['settings'][key]['pool'] for r in rs]):.3f} | "
                f"{mean([r['settings'][key]['added'] for r in rs]):.1f} | "
                f"{mean([r['vanilla'] for r in rs]):.3f} | "
                f"{mean([r['settings'][f'{s},0']['r5'] for r in rs]):.3f} | "
                f"{mean([r['settings'][key]['r5'] for r in rs]):.3f} | {subjects} |"
            )
    return lines


def report(records: list[dict]) -> None:
    print(
        f"\nmean cage R@5 over all {len(records)} questions (3 files x 2 title settings, and "
        f"those of --with-records); rows: seeds, columns: limit {LIMITS}"
    )
    for s in SEEDS:
        print(f"  {s}: " + " ".join(f"{r5_of(records, (s, limit)).mean():.4f}" for limit in LIMITS))
    for label, choose in (("best mean", best_setting), ("one-SE rule", one_se_setting)):
        choices, held_out = cross_validate(records, choose)
        print(
            f"{FOLDS}-fold CV, {label}: fold choices (seeds, limit) {choices}; "
            f"held-out mean cage R@5 {held_out:.4f}; on all of DEV: {choose(records)}"
        )
    best, shipped = r5_of(records, best_setting(records)), r5_of(records, SHIPPED)
    diff = shipped - best
    se = diff.std(ddof=1) / np.sqrt(len(diff))
    print(
        f"shipped {SHIPPED}: mean cage R@5 {shipped.mean():.4f}, {diff.mean():+.4f} against the "
        f"best mean (one paired standard error {se:.4f}: "
        f"{'within' if diff.mean() >= -se else 'outside'} it)"
    )
    groups = sorted({r["file"] for r in records} - set(FILES))
    if groups:  # pooled with --with-records: each source's mean at the choices and the default
        chosen = dict.fromkeys([one_se_setting(records), best_setting(records), SHIPPED])
        print("\nmean cage R@5 per source at " + ", ".join(map(str, chosen)))
        for label, rs in [("Wikipedia DEV", [r for r in records if r["file"] in FILES])] + [
            (name, [r for r in records if r["file"] == name]) for name in groups
        ]:
            cells = " ".join(f"{r5_of(rs, sl).mean():.4f}" for sl in chosen)
            print(f"  {label} ({len(rs)}): {cells}")
    for setting in (one_se_setting(records), best_setting(records)):
        print(f"\nseeds={setting[0]}, limit={setting[1]}")
        print("\n".join(table(records, setting)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="../shared/data")
    parser.add_argument("--graph-store", default=None)
    parser.add_argument("--out", default="link-expansion.json")
    parser.add_argument(
        "--max-questions", type=int, default=None, help="first N questions per file"
    )
    parser.add_argument(
        "--files", default=",".join(FILES), help="comma-separated (default: all three)"
    )
    parser.add_argument("--report-only", action="store_true", help="only re-read --out and report")
    parser.add_argument(
        "--with-records",
        default="",
        help="comma-separated JSON files of more DEV records in this form (e.g. "
        "tuning/expansion_folders.py's), pooled into the cross-validation",
    )
    args = parser.parse_args()
    extra = [
        r
        for f in filter(None, args.with_records.split(","))
        for r in json.loads(Path(f).read_text(encoding="utf-8"))["records"]
    ]
    if args.report_only:
        data = json.loads(Path(args.out).read_text(encoding="utf-8"))
        print(json.dumps(data["infos"], indent=1))
        report(data["records"] + extra)
        return
    reranker = CageReranker(graph_store=args.graph_store)
    records, infos = [], {}
    for name in args.files.split(","):
        for titles in (True, False):
            start = time.perf_counter()
            rs, info = run_file(name, Path(args.data), titles, reranker, args.max_questions)
            records += rs
            infos[f"{name},{titles}"] = info
            print(
                f"{name} titles={titles}: {len(rs)} questions in "
                f"{time.perf_counter() - start:.0f}s; "
                f"{json.dumps(info)}",
                flush=True,
            )
    Path(args.out).write_text(json.dumps({"records": records, "infos": infos}), encoding="utf-8")
    report(records + extra)


if __name__ == "__main__":
    main()
