"""The ``cage`` command: ``cage demo`` and ``cage rerank``."""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import sys
import traceback
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from cage_core.config import PRESETS, CageConfig
from cage_core.eval.corpus_retrieval import RETRIEVERS
from cage_core.eval.datasets import DatasetFormatError, json_lines, load_questions
from cage_core.eval.open_retrieval import ExpansionSettings
from cage_core.eval.runner import DEFAULT_KS
from cage_core.evidence_chain import evidence_chain
from cage_core.extractive import extractive_answer
from cage_core.fusion import PoolScores
from cage_core.lang.en import STRING_RULES
from cage_core.methods import METHOD_NAMES
from cage_core.passage import Passage, Via
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
    "cmd_train",
    "main",
]

logger = logging.getLogger("cage_core.cli")

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
    parser.add_argument("--spacy-model", help="spaCy pipeline name or path (default: best installed)")


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _via_text(via: Via | None) -> str:
    """``"← via 'Shirley Temple' from #1"`` (the passage is linked to rank #1 through that name)."""
    return "" if via is None else f"← via '{via.name}' from #{via.rank + 1}"


def _chain(query: str, passages: Sequence[Passage], scores: PoolScores,
           order: Sequence[int] | np.ndarray) -> list[Via | None]:  # fmt: skip
    """The vias of ``order`` (:mod:`cage_core.evidence_chain`); ``None`` each without graphs."""
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
    """JSON Lines (a string or {"text", "title", "id"} per line) or text (blank-line separated)."""
    handle = sys.stdin if path == "-" else open(path, encoding="utf-8")
    with handle:
        content = handle.read()
    if path.endswith((".jsonl", ".json")):
        passages = []
        for number, item in json_lines(content.splitlines(), path):
            if isinstance(item, str):
                passages.append(Passage(text=item))
            elif isinstance(item, dict) and isinstance(item.get("text"), str) \
                    and isinstance(item.get("title", ""), str):
                pid = item.get("id")
                passages.append(Passage(text=item["text"], title=item.get("title", ""),
                                        id=None if pid is None else str(pid)))  # fmt: skip
            else:
                raise DatasetFormatError(
                    f"{path}:{number}: expected a string or an object with a string 'text'")
        return passages
    return [Passage(text=block.strip()) for block in content.split("\n\n") if block.strip()]


def cmd_rerank(args: argparse.Namespace, out: TextIO) -> int:
    passages = _read_passages(args.passages)
    reranker = CageReranker(_config(args), nlp=args.spacy_model)
    ranked = reranker.rerank(args.query, passages, top_n=args.top_n)
    if args.json:
        for r in ranked:
            out.write(json.dumps({"rank": r.rank, "index": r.index, "id": r.id, "title": r.title,
                                  "score": r.score, "similarity": r.similarity,
                                  "coherence": r.coherence, "text": r.text},
                                 ensure_ascii=False) + "\n")  # fmt: skip
        return 0
    out.write(f"{'rank':>4} {'index':>5} {'score':>7} {'relev':>7} {'coher':>7}  passage\n")
    for r in ranked:
        label = f"{r.title}: {r.text}" if r.title else r.text
        out.write(f"{r.rank + 1:>4} {r.index:>5} {r.score:7.3f} {r.similarity:7.3f} "
                  f"{r.coherence:+7.3f}  {_clip(label, 70)}\n")  # fmt: skip
    return 0


def cmd_eval(args: argparse.Namespace, out: TextIO) -> int:
    from tqdm.auto import tqdm

    from cage_core.eval.generation import load_generator
    from cage_core.eval.open_retrieval import run_open_evaluation
    from cage_core.eval.report import markdown, summarize
    from cage_core.eval.runner import resolve_data_paths, run_evaluation
    from cage_core.methods import get_method

    config = _config(args)
    methods = [get_method(name.strip(), config) for name in args.methods.split(",") if name.strip()]
    if not methods:
        raise ValueError("--methods names no method")
    ks = _cutoffs(args.k, "--k")
    _check_open_options(args)
    generator = None
    if args.generator:
        kwargs = json.loads(args.generator_kwargs) if args.generator_kwargs else {}
        generator = load_generator(args.generator, kwargs)
    paths = resolve_data_paths(args.data)
    total = sum(min(len(load_questions(p)), args.limit or 10**9) for p in paths)
    reranker = CageReranker(config.replace(graph_cache_size=0), nlp=args.spacy_model,
                            graph_store=args.graph_store)
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
        {"dataset": r.dataset, "id": r.question_id, "type": r.type, "method": r.method,
         "order": list(r.order), "gold": list(r.gold),
         "recall": {str(k): v for k, v in r.recall.items()},
         "all_gold": {str(k): v for k, v in r.all_gold.items()}, "latency_ms": 1000 * r.latency_s,
         "answer": r.answer, "em": r.em, "f1": r.f1}
        for r in run.results
    ]
    settings = {**dataclasses.asdict(config), "string_rules": sorted(config.string_rules)}
    payload = {"config": settings, "seed": args.seed, "shuffle": args.shuffle,
               "titles": not args.no_titles, "summary": summary, "per_question": per_question,
               "retrieval": [dataclasses.asdict(o) for o in run.retrieval]}
    (out_dir / "results.json").write_text(json.dumps(payload, indent=1), encoding="utf-8")
    out.write(table + "\n")
    out.write(f"\nwrote {out_dir / 'results.md'} and {out_dir / 'results.json'}\n")
    return 0


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
            raise ValueError(f"{', '.join(used)} only apply with --open K (the open retrieval setting)")
        return
    if args.open < 1:
        raise ValueError(f"--open K must be >= 1, got {args.open}")
    if args.shuffle != "auto":
        raise ValueError("--shuffle applies to the benchmark's own pools; in the open setting pools "
                         "come in retrieval order")


def cmd_bench(args: argparse.Namespace, out: TextIO) -> int:
    from cage_core.bench import format_bench, run_bench

    ks = tuple(int(k) for k in args.k.split(","))
    timings, peak = run_bench(ks=ks, repeats=args.repeats, config=_config(args), nlp=args.spacy_model)
    out.write(f"cage bench: {args.repeats} queries per k, passages of ~100 words, "
              f"torch threads={__import__('torch').get_num_threads()}\n\n")
    out.write(format_bench(timings, peak) + "\n")
    return 0


def cmd_explain(args: argparse.Namespace, out: TextIO) -> int:
    from cage_core.explain import render_heatmap

    passages = _read_passages(args.passages)
    reranker = CageReranker(_config(args), nlp=args.spacy_model)
    scores = reranker.score(args.query, passages)
    path = render_heatmap(args.query, passages, scores, args.out)
    out.write(f"wrote {path} ({len(passages)} passages)\n")
    order = ranking(scores.fused)
    chain = _chain(args.query, passages, scores, order)
    out.write("ranking and evidence chain (← via: the earlier passage it is linked to):\n")
    for r, i in enumerate(order):
        p = passages[int(i)]
        label = _clip(f"{p.title}: {p.text}" if p.title else p.text, 50)
        out.write(f"{r + 1:>4}. f={scores.fused[i]:+.3f} {label:50} {_via_text(chain[r])}".rstrip() + "\n")
    return 0


def cmd_enrich(args: argparse.Namespace, out: TextIO) -> int:
    import time

    from cage_core.enrich import (
        build_link_index,
        enrich_local,
        enrich_ray,
        fill_store,
        progress_bar,
        read_rows,
        write_rows,
    )
    from cage_core.graph_store import GraphStore
    from cage_core.link_index import link_index_path

    source, target = Path(args.input), Path(args.output)
    links_target = None
    if args.link_index is True:
        if not args.graph_store:
            raise ValueError("--link-index without a path needs --graph-store (it is written next to it)")
        links_target = link_index_path(args.graph_store)
    elif args.link_index:
        links_target = Path(args.link_index)
    config = _config(args)
    rows = read_rows(source)
    start = time.perf_counter()
    with progress_bar(len(rows), args.no_progress) as progress:
        if args.ray_address:
            enriched = enrich_ray(source, rows, config, args.spacy_model, args.batch_size, args.ray_address,
                                  args.workers, progress, args.level)
        else:
            enriched = enrich_local(rows, config, args.spacy_model, args.batch_size, progress, args.level)
    seconds = time.perf_counter() - start
    write_rows(target, enriched)
    out.write(f"enriched {len(enriched)} passages in {seconds:.1f}s "
              f"({len(enriched) / max(seconds, 1e-9):.1f} passages/s) -> {target}\n")
    if args.graph_store:
        with GraphStore(args.graph_store) as store:
            out.write(f"stored {fill_store(store, enriched)} graphs in {store.path}\n")
    if links_target is not None:
        index = build_link_index(enriched)
        written = index.save(links_target)
        out.write(f"wrote the link index of {len(index)} passages "
                  f"({written / max(len(index), 1):.0f} bytes per passage) -> {links_target}\n")
    return 0


def cmd_train(args: argparse.Namespace, out: TextIO) -> int:
    """Train the link model (:mod:`cage_core.link_training`); with ``--folds`` also
    cross-validate it against the hand-built links, then train on all data and save."""
    import time

    import torch
    from tqdm.auto import tqdm

    from cage_core.eval.runner import resolve_data_paths
    from cage_core.link_model import LinkModelConfig
    from cage_core.link_training import (
        LinkTrainingConfig,
        cross_validate,
        file_digest,
        format_report,
        load_examples,
        train_link_net,
    )
    from cage_core.link_weights import save_link_model

    if args.folds == 1 or args.folds < 0:
        raise ValueError("--folds must be 0 (no cross-validation) or at least 2")
    if args.limit is not None and args.limit < 1:
        raise ValueError("--limit must be >= 1")
    if args.threads < 1:
        raise ValueError("--threads must be >= 1")
    variants = {v.variant: v for v in (LinkModelConfig(), LinkModelConfig(use_pair_features=False),
                                       LinkModelConfig(use_graphs=False))}  # fmt: skip
    compared = [name.strip() for name in args.compare.split(",") if name.strip()]
    for name in [args.variant, *compared]:
        if name not in variants:
            raise ValueError(f"unknown link-model variant {name!r}; choose from {sorted(variants)}")
    training = LinkTrainingConfig(epochs=args.train_epochs, seed=args.seed)
    torch.set_num_threads(args.threads)
    start = time.perf_counter()
    paths = resolve_data_paths(args.data)
    total = sum(min(len(load_questions(p)), args.limit or 10**9) for p in paths)
    reranker = CageReranker(nlp=args.spacy_model, graph_store=args.graph_store)
    with tqdm(total=total, unit="q", desc="cage train: pools", disable=args.no_progress) as bar:
        examples = load_examples(paths, reranker, variants[args.variant], limit=args.limit,
                                 progress=bar.update)  # fmt: skip
    out.write(f"cage train: {len(examples)} questions from {len(paths)} files "
              f"(loaded in {time.perf_counter() - start:.0f} s)\n")  # fmt: skip
    header: dict = {"command": "cage " + " ".join(sys.argv[1:]) if args.record_command else "",
                    "training": dataclasses.asdict(training), "questions": len(examples),
                    "data": {p.name: file_digest(p) for p in paths}, "torch": torch.__version__}
    if args.folds:
        cv = cross_validate(examples, [variants[n] for n in dict.fromkeys([args.variant, *compared])],
                            training, args.folds)  # fmt: skip
        report = format_report(cv)
        out.write(f"\n{args.folds}-fold cross-validation ({cv.seconds:.0f} s):\n\n{report}\n")
        header["cross_validation"] = {
            "folds": args.folds,
            "mean": {s: dataclasses.asdict(m) for s, m in cv.summary().items()}}
        if args.report:
            Path(args.report).write_text(report + "\n", encoding="utf-8")
    net, losses = train_link_net(examples, variants[args.variant], training)
    header["final_losses"] = [round(v, 6) for v in losses]
    path = save_link_model(args.out, net, header)
    out.write(f"\ntrained {args.variant} on all {len(examples)} questions: loss {losses[0]:.4f} -> "
              f"{losses[-1]:.4f}; wrote {path} ({path.stat().st_size / 1e6:.2f} MB) "
              f"in {time.perf_counter() - start:.0f} s in all\n")  # fmt: skip
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
    ev.add_argument("--data", nargs="+", required=True,
                    help="JSON Lines files or directories of them (format: cage_core.eval.datasets)")
    ev.add_argument("--methods", default=",".join(METHOD_NAMES),
                    help="comma-separated method names (default: all: %(default)s)")
    ev.add_argument("--out", default="eval-out", help="directory for results.md and results.json")
    ev.add_argument("--k", default=",".join(map(str, DEFAULT_KS)),
                    help="cut-offs for Recall@k and all-gold@k (default: %(default)s)")
    ev.add_argument("--shuffle", choices=("auto", "always", "never"), default="auto",
                    help="shuffle pools with a fixed seed first (auto: RAMDocs only)")
    ev.add_argument("--seed", type=int, default=0, help="seed of shuffling and of 'random'")
    ev.add_argument("--limit", type=int, help="evaluate only the first N questions of each file")
    ev.add_argument("--generator", help="LangChain chat model as 'package.module:Class' for EM/F1")
    ev.add_argument("--generator-kwargs", help="JSON object of keyword arguments for the generator")
    ev.add_argument("--paper-reference", action="store_true",
                    help="also print the paper's stated Recall@5 (a different sample; reference only)")
    ev.add_argument("--no-progress", action="store_true", help="no progress bar")
    ev.add_argument("--graph-store", help="SQLite graph store to read and fill (parse once across runs)")
    ev.add_argument("--record-command", action=argparse.BooleanOptionalAction, default=True,
                    help="write the command line into the report (default: yes)")
    ev.add_argument("--no-titles", action="store_true",
                    help="drop passage titles (from content and metadata) before anything else")
    open_setting = ev.add_argument_group(
        "open retrieval", "retrieve the top K of a corpus per question, then rank those "
        "(cage_core.eval.open_retrieval)")
    open_setting.add_argument("--open", type=int, metavar="K",
                              help="rank the top K passages a retriever finds in a corpus "
                                   "instead of the benchmark's own pools")  # fmt: skip
    open_setting.add_argument("--corpus", metavar="FILE",
                              help="JSON Lines of {\"text\", \"title\"?, \"id\"?} passages (default: "
                                   "the distinct passages of the pools of each --data file)")  # fmt: skip
    open_setting.add_argument("--retriever", choices=RETRIEVERS, default="cosine",
                              help="first stage: embedder cosine, corpus BM25, or hybrid "
                                   "z(cos) + w·z(BM25) (default: %(default)s)")  # fmt: skip
    open_setting.add_argument("--expand", action="store_true",
                              help="add passages linked to the retrieved ones (the link index) to each pool")
    open_setting.add_argument("--expand-seeds", type=int, default=ExpansionSettings.seeds,
                              help="retrieved passages the expansion starts from (default: %(default)s)")
    open_setting.add_argument("--expand-limit", type=int, default=ExpansionSettings.limit,
                              help="at most this many passages added per pool (default: %(default)s)")
    _add_config_options(ev)
    ev.set_defaults(func=cmd_eval)
    explain = sub.add_parser("explain", help="render scores and the coherence matrix to a PNG")
    explain.add_argument("--query", "-q", required=True)
    explain.add_argument("--passages", "-p", required=True, help="as for cage rerank")
    explain.add_argument("--out", "-o", default="cage-explain.png", help="PNG path")
    _add_config_options(explain)
    explain.set_defaults(func=cmd_explain)
    enrich = sub.add_parser("enrich", help="passage graphs for a corpus (in process or on Ray)")
    enrich.add_argument("--input", "-i", required=True, help="JSON Lines or Parquet with 'text' [, 'title']")
    enrich.add_argument("--output", "-o", required=True, help="output .jsonl or .parquet (adds 'cage_graph')")
    enrich.add_argument("--ray-address", help="run on Ray: a cluster address, or 'local' for a local instance")
    enrich.add_argument("--workers", type=int, default=2, help="Ray actors (default: %(default)s)")
    enrich.add_argument("--batch-size", type=int, default=64)
    enrich.add_argument("--graph-store", help="also fill this SQLite graph store (a server then starts warm)")
    enrich.add_argument("--link-index", nargs="?", const=True, metavar="PATH",
                        help="also write the link index (names -> passages, for candidate expansion) "
                             "to PATH (JSON Lines); without PATH, next to --graph-store "
                             "(graphs.sqlite -> graphs.links.jsonl)")
    enrich.add_argument("--level", choices=["light", "full"],
                        help="graph level: light (entities; what the default ranks with, ~2x faster) "
                             "or full (the parse, for the R-GCN presets); default: the preset's")
    enrich.add_argument("--no-progress", action="store_true")
    _add_config_options(enrich)
    enrich.set_defaults(func=cmd_enrich)
    bench = sub.add_parser("bench", help="latency of CAGE vs bi-encoder and cross-encoder")
    bench.add_argument("--k", default="10,20,50", help="pool sizes (default: %(default)s)")
    bench.add_argument("--repeats", type=int, default=20, help="queries per pool size")
    _add_config_options(bench)
    bench.set_defaults(func=cmd_bench)
    train = sub.add_parser("train", help="train the passage-link model on benchmark files")
    train.add_argument("--data", nargs="+", required=True,
                       help="JSON Lines files or directories of them (format: cage_core.eval.datasets)")
    train.add_argument("--graph-store", help="SQLite graph store to read and fill (parse once across runs)")
    train.add_argument("--folds", type=int, default=5,
                       help="cross-validate on this many folds of the questions first (0: skip)")
    train.add_argument("--variant", default="graphs+links",
                       help="the model trained on all data and saved: graphs, links or "
                            "graphs+links (default: %(default)s)")
    train.add_argument("--compare", default="graphs,links",
                       help="further variants cross-validated (default: %(default)s)")
    train.add_argument("--train-epochs", type=int, default=8, help="training epochs (default: %(default)s)")
    train.add_argument("--seed", type=int, default=0, help="seed of initial weights, batches and folds")
    train.add_argument("--limit", type=int, help="use only the first N questions of each file")
    train.add_argument("--threads", type=int, default=1,
                       help="torch threads (default: %(default)s; more threads are slower on a busy machine)")
    train.add_argument("--out", "-o", default="link_model.safetensors", help="weights file to write")
    train.add_argument("--report", help="also write the cross-validation tables to this file")
    train.add_argument("--no-progress", action="store_true")
    train.add_argument("--record-command", action=argparse.BooleanOptionalAction, default=True,
                       help="write the command line into the weights header (default: yes)")
    train.add_argument("--spacy-model", help="spaCy pipeline name or path (default: best installed)")
    train.set_defaults(func=cmd_train)
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
