"""The ``cage`` command: ``cage demo`` and ``cage rerank``."""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import sys
import traceback
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from cage_core import methods as registry
from cage_core.config import PRESETS, CageConfig, config_as_json
from cage_core.eval.corpus_retrieval import RETRIEVERS
from cage_core.eval.datasets import load_questions
from cage_core.eval.open_retrieval import ExpansionSettings
from cage_core.eval.runner import DEFAULT_KS
from cage_core.extractive import extractive_answer
from cage_core.jsonl import DatasetFormatError, json_lines
from cage_core.lang.en import STRING_RULES
from cage_core.metadata import passages_from_metadata
from cage_core.passage import Passage, Via
from cage_core.ranking.explanation import evidence_chain
from cage_core.ranking.fusion import PoolScores
from cage_core.reranker import CageReranker
from cage_core.scoring import ranking

__all__ = [
    "DEMO_FILE",
    "OPEN_ONLY_OPTIONS",
    "build_parser",
    "cmd_bench",
    "cmd_demo",
    "cmd_enrich",
    "cmd_eval",
    "cmd_explain",
    "cmd_rerank",
    "main",
]

logger = logging.getLogger("cage_core.cli.commands")

DEMO_FILE = "demo.jsonl"


def _config(args: argparse.Namespace) -> CageConfig:
    config = CageConfig.preset(args.preset)
    changes: dict[str, Any] = {k: v for k, v in (("alpha", args.alpha), ("epochs", args.epochs))
                               if v is not None}  # fmt: skip
    if getattr(args, "ablate_rule", None):
        changes["string_rules"] = config.string_rules - frozenset(args.ablate_rule)
    return config.replace(**changes) if changes else config


def _add_config_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--preset", default="default", choices=sorted(PRESETS),
                        help="named configuration (default: %(default)s)")  # fmt: skip
    parser.add_argument("--alpha", type=float, help="fusion weight α in [0, 1]")
    parser.add_argument("--epochs", type=int, help="per-query training epochs")
    parser.add_argument("--ablate-rule", action="append", choices=sorted(STRING_RULES), metavar="NAME",
                        help="switch a named string rule off (repeatable; cage_core.lang.en."
                             f"STRING_RULES: {', '.join(sorted(STRING_RULES))})")  # fmt: skip
    parser.add_argument(
        "--spacy-model", help="spaCy pipeline name or path (default: best installed)"
    )


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _via_text(via: Via | None) -> str:
    """``"← via 'Shirley Temple' from #1"`` (the passage is linked to rank #1 through that name)."""
    return "" if via is None else f"← via '{via.name}' from #{via.rank + 1}"


def _chain(query: str, passages: Sequence[Passage], scores: PoolScores,
           order: Sequence[int] | np.ndarray) -> list[Via | None]:  # fmt: skip
    """The vias of ``order`` (:mod:`cage_core.ranking.explanation`); ``None`` each without graphs."""
    if len(scores.graphs) != len(passages):
        return [None] * len(order)
    return evidence_chain(query, passages, scores.graphs, order)


def cmd_demo(args: argparse.Namespace, out: TextIO) -> int:
    path = resources.files("cage_core").joinpath("data", DEMO_FILE)
    with resources.as_file(path) as demo_path:
        questions = load_questions(demo_path)
    reranker = CageReranker(_config(args), nlp=args.spacy_model)
    top = args.top_n
    out.write(f"CAGE demo: {len(questions)} multi-hop questions bundled with cage-rag "
              f"(HotpotQA CC BY-SA 4.0, 2WikiMultihopQA Apache-2.0). * = gold passage; "
              f"← via: the earlier CAGE passage it is linked to.\n")  # fmt: skip
    total_vanilla = total_cage = total_gold = 0
    for q in questions:
        passages = [Passage(text=p.text, title=p.title) for p in q.passages]
        scores = reranker.score(q.question, passages)
        gold = set(q.gold_indices)
        vanilla = ranking(scores.similarities)[:top]
        cage = ranking(scores.fused)[:top]
        chain = _chain(q.question, passages, scores, cage)
        total_gold += len(gold)
        total_vanilla += len(gold & {int(i) for i in vanilla})
        total_cage += len(gold & {int(i) for i in cage})
        out.write(f"\nQ [{q.dataset}/{q.type}] {q.question}\n  answer: {', '.join(q.answers)}\n")
        out.write(f"  vanilla top {top} (MiniLM cosine)           | CAGE top {top} "
                  f"({reranker.config.coherence} coherence, α={reranker.config.alpha:.2f})\n")  # fmt: skip
        for r in range(min(top, len(passages))):
            v, c = int(vanilla[r]), int(cage[r])
            left = f"{'*' if v in gold else ' '} {scores.similarities[v]:.3f} {_clip(q.passages[v].title, 26):26}"
            right = (f"{'*' if c in gold else ' '} f={scores.fused[c]:+.3f} rel={scores.relevance[c]:+.3f} "
                     f"coh={scores.coherence[c]:+.3f} {_clip(q.passages[c].title, 26):26} {_via_text(chain[r])}")  # fmt: skip
            out.write(f"  {r + 1}. {left} | {right}".rstrip() + "\n")
        answer = extractive_answer(q.question, [passages[int(i)].text for i in cage], chain=chain,
                                   embedder=reranker.embedder, nlp=reranker.parser.nlp)  # fmt: skip
        out.write(f"  answer from the CAGE top {top}: {answer.render()}\n")
    out.write(f"\ngold passages in the top {top}: vanilla {total_vanilla}/{total_gold}, "
              f"CAGE {total_cage}/{total_gold}\n")  # fmt: skip
    return 0


def _read_passages(path: str) -> list[Passage]:
    """JSON Lines (a string or {"text", "title", "id"} per line, optionally with the chunk's
    document structure: "doc_id" / "source" and "position" / "start_index", read as
    :func:`cage_core.metadata.passages_from_metadata` reads metadata) or text (blank-line
    separated)."""
    handle = sys.stdin if path == "-" else open(path, encoding="utf-8")
    with handle:
        content = handle.read()
    if path.endswith((".jsonl", ".json")):
        items: list[dict[str, Any]] = []
        for number, item in json_lines(content.splitlines(), path):
            if isinstance(item, str):
                items.append({"text": item})
            elif (
                isinstance(item, dict)
                and isinstance(item.get("text"), str)
                and isinstance(item.get("title", ""), str)
            ):
                items.append(item)
            else:
                raise DatasetFormatError(
                    f"{path}:{number}: expected a string or an object with a string 'text'"
                )
        ids = [None if item.get("id") is None else str(item["id"]) for item in items]
        return passages_from_metadata([item["text"] for item in items], items, "title", ids)
    return [Passage(text=block.strip()) for block in content.split("\n\n") if block.strip()]


def cmd_rerank(args: argparse.Namespace, out: TextIO) -> int:
    passages = _read_passages(args.passages)
    reranker = CageReranker(_config(args), nlp=args.spacy_model)
    ranked = reranker.rerank(args.query, passages, top_n=args.top_n)
    if args.json:
        for r in ranked:
            out.write(json.dumps({"rank": r.rank, "index": r.index, "id": r.id, "title": r.title,
                                  "score": r.score, "similarity": r.similarity,
                                  "coherence": r.coherence, "path": r.path, "text": r.text},
                                 ensure_ascii=False) + "\n")  # fmt: skip
        return 0
    out.write(f"{'rank':>4} {'index':>5} {'score':>7} {'relev':>7} {'coher':>7}  passage\n")
    for r in ranked:
        label = f"{r.title}: {r.text}" if r.title else r.text
        out.write(f"{r.rank + 1:>4} {r.index:>5} {r.score:7.3f} {r.similarity:7.3f} "
                  f"{r.coherence:+7.3f}  {_clip(label, 70)}\n")  # fmt: skip
    if ranked:
        out.write(f"path: {ranked[0].path}\n")
    return 0


def cmd_eval(args: argparse.Namespace, out: TextIO) -> int:
    from tqdm.auto import tqdm

    from cage_core.eval.generation import load_generator
    from cage_core.eval.open_retrieval import run_open_evaluation
    from cage_core.eval.report import markdown, summarize
    from cage_core.eval.runner import resolve_data_paths, run_evaluation
    from cage_core.methods import get_method

    config = _config(args)
    methods = [get_method(name, config) for name in method_names(args.methods)]
    ks = _cutoffs(args.k, "--k")
    _check_open_options(args)
    generator = None
    if args.generator:
        kwargs = json.loads(args.generator_kwargs) if args.generator_kwargs else {}
        generator = load_generator(args.generator, kwargs)
    paths = resolve_data_paths(args.data)
    total = sum(min(len(load_questions(p)), args.limit or 10**9) for p in paths)
    reranker = CageReranker(
        config.replace(graph_cache_size=0), nlp=args.spacy_model, graph_store=args.graph_store
    )
    with tqdm(total=total, unit="q", desc="cage eval", disable=args.no_progress) as bar:

        def progress(n: int, name: str) -> None:
            bar.set_postfix_str(name)
            bar.update(n)

        if args.open is not None:
            expansion = (ExpansionSettings(seeds=args.expand_seeds, limit=args.expand_limit)
                         if args.expand else None)  # fmt: skip
            run = run_open_evaluation(paths, methods, reranker=reranker, k=args.open, corpus_path=args.corpus,
                                      titles=not args.no_titles, retriever=args.retriever,
                                      expansion=expansion, ks=ks, limit=args.limit, generator=generator,
                                      progress=progress)  # fmt: skip
        else:
            run = run_evaluation(paths, methods, reranker=reranker, ks=ks, shuffle=args.shuffle,
                                 titles=not args.no_titles, seed=args.seed, limit=args.limit,
                                 generator=generator, progress=progress)  # fmt: skip
    summary = summarize(run)
    command = "cage " + " ".join(sys.argv[1:]) if args.record_command else ""
    table = markdown(summary, paper_reference=args.paper_reference, command=command)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "results.md").write_text(table + "\n", encoding="utf-8")
    per_question = [
        {
            "dataset": r.dataset,
            "id": r.question_id,
            "type": r.type,
            "method": r.method,
            "order": list(r.order),
            "gold": list(r.gold),
            "recall": {str(k): v for k, v in r.recall.items()},
            "all_gold": {str(k): v for k, v in r.all_gold.items()},
            "latency_ms": 1000 * r.latency_s,
            "answer": r.answer,
            "em": r.em,
            "f1": r.f1,
        }
        for r in run.results
    ]
    settings = config_as_json(config)
    payload = {
        "config": settings,
        "seed": args.seed,
        "shuffle": args.shuffle,
        "titles": not args.no_titles,
        "summary": summary,
        "per_question": per_question,
        "retrieval": [dataclasses.asdict(o) for o in run.retrieval],
    }
    (out_dir / "results.json").write_text(json.dumps(payload, indent=1), encoding="utf-8")
    out.write(table + "\n")
    out.write(f"\nwrote {out_dir / 'results.md'} and {out_dir / 'results.json'}\n")
    return 0


def method_names(option: str | None) -> list[str]:
    """The names of ``--methods`` (comma-separated); without it every method registered *now*
    (:data:`cage_core.methods.METHOD_NAMES` is read at run time, not at import, so a method
    added by :func:`~cage_core.methods.register_method` before ``main`` runs is included)."""
    text = ",".join(registry.METHOD_NAMES) if option is None else option
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise ValueError("--methods names no method")
    return names


def _cutoffs(text: str, option: str) -> tuple[int, ...]:
    """Comma-separated positive integers, e.g. ``"1,2,3,5"``."""
    try:
        values = tuple(int(k) for k in text.split(",") if k.strip())
    except ValueError:
        raise ValueError(f"{option} must be comma-separated integers, got {text!r}") from None
    if not values or any(k < 1 for k in values):
        raise ValueError(f"{option} values must be >= 1")
    return values


OPEN_ONLY_OPTIONS = (("corpus", "--corpus"), ("expand", "--expand"))


def _check_open_options(args: argparse.Namespace) -> None:
    """The open setting's options need ``--open``; ``--open`` needs a positive K."""
    if args.open is None:
        used = [flag for attr, flag in OPEN_ONLY_OPTIONS if getattr(args, attr)]
        if args.retriever != "cosine":
            used.append("--retriever")
        if used:
            raise ValueError(
                f"{', '.join(used)} only apply with --open K (the open retrieval setting)"
            )
        return
    if args.open < 1:
        raise ValueError(f"--open K must be >= 1, got {args.open}")
    if args.shuffle != "auto":
        raise ValueError(
            "--shuffle applies to the benchmark's own pools; in the open setting pools "
            "come in retrieval order"
        )


def cmd_bench(args: argparse.Namespace, out: TextIO) -> int:
    from cage_core.cli.bench import format_bench, run_bench

    ks = tuple(int(k) for k in args.k.split(","))
    timings, peak = run_bench(
        ks=ks, repeats=args.repeats, config=_config(args), nlp=args.spacy_model
    )
    out.write(
        f"cage bench: {args.repeats} queries per k, passages of ~100 words, "
        f"torch threads={__import__('torch').get_num_threads()}\n\n"
    )
    out.write(format_bench(timings, peak) + "\n")
    return 0


def cmd_explain(args: argparse.Namespace, out: TextIO) -> int:
    from cage_core.heatmap import render_heatmap

    passages = _read_passages(args.passages)
    reranker = CageReranker(_config(args), nlp=args.spacy_model)
    scores = reranker.score(args.query, passages)
    path = render_heatmap(args.query, passages, scores, args.out)
    out.write(f"wrote {path} ({len(passages)} passages)\n")
    order = ranking(scores.fused)
    chain = _chain(args.query, passages, scores, order)
    out.write(f"path: {scores.path}\n")
    out.write("ranking and evidence chain (← via: the earlier passage it is linked to):\n")
    for r, i in enumerate(order):
        p = passages[int(i)]
        label = _clip(f"{p.title}: {p.text}" if p.title else p.text, 50)
        out.write(
            f"{r + 1:>4}. f={scores.fused[i]:+.3f} {label:50} {_via_text(chain[r])}".rstrip() + "\n"
        )
    return 0


def _integrity_key(variable: str | None) -> bytes | None:
    """The secret in environment variable ``variable`` (``None``: no key). A secret is never
    a command-line argument: those are visible to every user of the machine (``ps``)."""
    if variable is None:
        return None
    value = os.environ.get(variable)
    if not value:
        raise ValueError(f"--integrity-key-env {variable}: the environment variable is unset or "
                         "empty (export the secret the rerankers are given as integrity_key)")  # fmt: skip
    return value.encode("utf-8")


def cmd_enrich(args: argparse.Namespace, out: TextIO) -> int:
    import time

    from cage_core.expansion.index import link_store_path
    from cage_core.integrations.enrich import (
        LinkWriter,
        RowWriter,
        count_rows,
        enrich_local,
        enrich_ray,
        iter_row_batches,
        progress_bar,
    )

    source, target = Path(args.input), Path(args.output)
    links_target = None
    if args.link_index is True:
        if not args.graph_store:
            raise ValueError(
                "--link-index without a path needs --graph-store (it is written next to it)"
            )
        links_target = link_store_path(args.graph_store)
    elif args.link_index:
        links_target = Path(args.link_index)
    config = _config(args)
    key = _integrity_key(args.integrity_key_env)
    total = count_rows(source)
    if args.ray_address:
        batches = enrich_ray(
            source,
            config,
            args.spacy_model,
            args.batch_size,
            args.ray_address,
            args.workers,
            args.level,
            args.graph_store,
            key,
        )
    else:
        batches = enrich_local(
            iter_row_batches(source, args.batch_size),
            config,
            args.spacy_model,
            args.level,
            args.graph_store,
            key,
        )
    links = LinkWriter(links_target) if links_target is not None else None
    start = time.perf_counter()
    with progress_bar(total, args.no_progress) as progress, RowWriter(target) as rows:
        for batch in batches:  # each batch written to every sink as it comes: nothing held whole
            if links is not None:
                links.write(batch, rows.rows)
            rows.write(batch)
            progress(len(batch))
    seconds = time.perf_counter() - start
    out.write(
        f"enriched {rows.rows} passages in {seconds:.1f}s "
        f"({rows.rows / max(seconds, 1e-9):.1f} passages/s) -> {target}\n"
    )
    if args.graph_store:
        out.write(f"stored {rows.rows} graphs in {args.graph_store}\n")
    if links is not None:
        out.write(links.close() + "\n")
    return 0


def cmd_links(args: argparse.Namespace, out: TextIO) -> int:
    """Copy a link index between its two forms (chosen by suffix): import an old JSON Lines
    file into a SQLite store once, export a store, or copy one store into another."""
    from itertools import islice

    from cage_core.expansion.index import LinkIndex, is_store_path
    from cage_core.expansion.store import WRITE_BATCH_ENTRIES, import_jsonl

    source, target = Path(args.source), Path(args.target)
    if source.resolve() == target.resolve():
        raise ValueError("the source and the target are the same file")
    if is_store_path(target) and not is_store_path(source):
        copied = import_jsonl(source, target)  # streamed: the file is never held whole
    elif not is_store_path(target):
        with LinkIndex.open(source) as index:
            index.save(target)
            copied = len(index)
    else:
        copied = 0
        with LinkIndex.open(source) as index, LinkIndex.open(target, create=True) as into:
            entries = index.entries()
            while batch := list(islice(entries, 10 * WRITE_BATCH_ENTRIES)):
                copied += into.add_entries(batch)
    out.write(f"copied {copied} link entries from {source} to {target}\n")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cage", description="Coherence-aware graph reranking.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress (INFO)")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="rerank the bundled multi-hop questions")
    demo.add_argument("--top-n", type=int, default=5, help="passages shown per method")
    _add_config_options(demo)
    demo.set_defaults(func=cmd_demo)
    rerank = sub.add_parser("rerank", help="rerank passages from a file for one query")
    rerank.add_argument("--query", "-q", required=True)
    rerank.add_argument("--passages", "-p", required=True,
                        help="JSON Lines (.jsonl/.json) or text with blank-line separated "
                             "passages; '-' reads text from standard input")  # fmt: skip
    rerank.add_argument("--top-n", type=int, default=None, help="how many to print (default all)")
    rerank.add_argument("--json", action="store_true", help="print JSON Lines instead of a table")
    _add_config_options(rerank)
    rerank.set_defaults(func=cmd_rerank)
    ev = sub.add_parser("eval", help="Recall@k of ranking methods on benchmark files")
    ev.add_argument(
        "--data",
        nargs="+",
        required=True,
        help="JSON Lines files or directories of them (format: cage_core.eval.datasets)",
    )
    ev.add_argument(
        "--methods",
        help="comma-separated method names (default: every registered method: "
        f"{','.join(registry.METHOD_NAMES)})",
    )
    ev.add_argument("--out", default="eval-out", help="directory for results.md and results.json")
    ev.add_argument(
        "--k",
        default=",".join(map(str, DEFAULT_KS)),
        help="cut-offs for Recall@k and all-gold@k (default: %(default)s)",
    )
    ev.add_argument(
        "--shuffle",
        choices=("auto", "always", "never"),
        default="auto",
        help="shuffle pools with a fixed seed first (auto: RAMDocs only)",
    )
    ev.add_argument("--seed", type=int, default=0, help="seed of shuffling and of 'random'")
    ev.add_argument("--limit", type=int, help="evaluate only the first N questions of each file")
    ev.add_argument("--generator", help="LangChain chat model as 'package.module:Class' for EM/F1")
    ev.add_argument("--generator-kwargs", help="JSON object of keyword arguments for the generator")
    ev.add_argument(
        "--paper-reference",
        action="store_true",
        help="also print the paper's stated Recall@5 (a different sample; reference only)",
    )
    ev.add_argument("--no-progress", action="store_true", help="no progress bar")
    ev.add_argument(
        "--graph-store", help="SQLite graph store to read and fill (parse once across runs)"
    )
    ev.add_argument(
        "--record-command",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="write the command line into the report (default: yes)",
    )
    ev.add_argument(
        "--no-titles",
        action="store_true",
        help="drop passage titles (from content and metadata) before anything else",
    )
    open_setting = ev.add_argument_group(
        "open retrieval",
        "retrieve the top K of a corpus per question, then rank those "
        "(cage_core.eval.open_retrieval)",
    )
    open_setting.add_argument("--open", type=int, metavar="K",
                              help="rank the top K passages a retriever finds in a corpus "
                                   "instead of the benchmark's own pools")  # fmt: skip
    open_setting.add_argument("--corpus", metavar="FILE",
                              help="JSON Lines of {\"text\", \"title\"?, \"id\"?} passages (default: "
                                   "the distinct passages of the pools of each --data file)")  # fmt: skip
    open_setting.add_argument("--retriever", choices=RETRIEVERS, default="cosine",
                              help="first stage: embedder cosine, corpus BM25, or hybrid "
                                   "z(cos) + w·z(BM25) (default: %(default)s)")  # fmt: skip
    open_setting.add_argument(
        "--expand",
        action="store_true",
        help="add passages linked to the retrieved ones (the link index) to each pool",
    )
    open_setting.add_argument(
        "--expand-seeds",
        type=int,
        default=ExpansionSettings.seeds,
        help="retrieved passages the expansion starts from (default: %(default)s)",
    )
    open_setting.add_argument(
        "--expand-limit",
        type=int,
        default=ExpansionSettings.limit,
        help="at most this many passages added per pool (default: %(default)s)",
    )
    _add_config_options(ev)
    ev.set_defaults(func=cmd_eval)
    explain = sub.add_parser("explain", help="render scores and the coherence matrix to a PNG")
    explain.add_argument("--query", "-q", required=True)
    explain.add_argument("--passages", "-p", required=True, help="as for cage rerank")
    explain.add_argument("--out", "-o", default="cage-explain.png", help="PNG path")
    _add_config_options(explain)
    explain.set_defaults(func=cmd_explain)
    enrich = sub.add_parser("enrich", help="passage graphs for a corpus (in process or on Ray)")
    enrich.add_argument(
        "--input", "-i", required=True, help="JSON Lines or Parquet with 'text' [, 'title']"
    )
    enrich.add_argument(
        "--output", "-o", required=True, help="output .jsonl or .parquet (adds 'cage_graph')"
    )
    enrich.add_argument(
        "--ray-address", help="run on Ray: a cluster address, or 'local' for a local instance"
    )
    enrich.add_argument("--workers", type=int, default=2, help="Ray actors (default: %(default)s)")
    enrich.add_argument("--batch-size", type=int, default=64)
    enrich.add_argument(
        "--graph-store", help="also fill this SQLite graph store (a server then starts warm)"
    )
    enrich.add_argument(
        "--link-index",
        nargs="?",
        const=True,
        metavar="PATH",
        help="also write the link index (names -> passages, for candidate expansion) "
        "to PATH: a SQLite link store (.sqlite/.db; written per batch) or "
        "JSON Lines (.jsonl; written at the end); without PATH, a store next "
        "to --graph-store (graphs.sqlite -> graphs.links.sqlite)",
    )
    enrich.add_argument(
        "--level",
        choices=["light", "full"],
        help="graph level: light (entities; what the default ranks with, ~2x faster) "
        "or full (the parse, for the R-GCN presets); default: the preset's",
    )
    enrich.add_argument(
        "--integrity-key-env",
        metavar="VAR",
        help="sign every graph written (the column and --graph-store) with an HMAC under "
        "the secret in environment variable VAR, the integrity_key the rerankers check; "
        "only stored graphs signed under it are read",
    )
    enrich.add_argument("--no-progress", action="store_true")
    _add_config_options(enrich)
    enrich.set_defaults(func=cmd_enrich)
    links = sub.add_parser(
        "links",
        help="copy a link index: JSON Lines <-> SQLite link store "
        "(import an old .jsonl once, or export a store)",
    )
    links.add_argument("source", help="a .jsonl link index or a .sqlite/.db link store")
    links.add_argument(
        "target",
        help="where to copy it (the form follows the suffix; a store "
        "is created or its entries with the same ids replaced)",
    )
    links.set_defaults(func=cmd_links)
    bench = sub.add_parser("bench", help="latency of CAGE vs bi-encoder and cross-encoder")
    bench.add_argument("--k", default="10,20,50", help="pool sizes (default: %(default)s)")
    bench.add_argument("--repeats", type=int, default=20, help="queries per pool size")
    _add_config_options(bench)
    bench.set_defaults(func=cmd_bench)
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")  # fmt: skip
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except ImportError:  # pragma: no cover - sentence-transformers brings transformers
        pass
    try:
        return int(args.func(args, out or sys.stdout))
    except (DatasetFormatError, FileNotFoundError, IsADirectoryError, UnicodeDecodeError,
            ValueError, TypeError) as exc:  # fmt: skip
        if args.verbose:  # -v: the whole story, for a bug report
            traceback.print_exc()
        print(f"cage: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
