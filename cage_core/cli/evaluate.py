"""``cage eval``: Recall@k (and EM/F1 with a generator) of ranking methods on benchmark files.

A data file with no question is an error (exit 2), as is ``--limit`` below 1.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import TextIO

from cage_core import methods as registry
from cage_core.cli.options import add_config_options, config_from_args, positive_ints
from cage_core.config import config_as_json
from cage_core.eval.corpus_retrieval import RETRIEVERS
from cage_core.eval.datasets import load_questions
from cage_core.eval.open_retrieval import ExpansionSettings
from cage_core.eval.runner import DEFAULT_KS
from cage_core.expansion.routing import RoutingSettings
from cage_core.reranker import CageReranker

__all__ = ["HELP", "OPEN_ONLY_OPTIONS", "add_arguments", "cmd_eval", "method_names"]

HELP = "Recall@k of ranking methods on benchmark files"
"""The command's line in ``cage --help``."""


def cmd_eval(args: argparse.Namespace, out: TextIO) -> int:
    from tqdm.auto import tqdm

    from cage_core.eval.generation import load_generator
    from cage_core.eval.open_retrieval import run_open_evaluation
    from cage_core.eval.report import markdown, summarize
    from cage_core.eval.runner import resolve_data_paths, run_evaluation
    from cage_core.methods import get_method

    config = config_from_args(args)
    methods = [get_method(name, config) for name in method_names(args.methods)]
    ks = positive_ints(args.k, "--k")
    _check_open_options(args)
    generator = None
    if args.generator:
        kwargs = json.loads(args.generator_kwargs) if args.generator_kwargs else {}
        generator = load_generator(args.generator, kwargs)
    if args.limit is not None and args.limit < 1:
        raise ValueError(f"--limit must be >= 1, got {args.limit}")
    paths = resolve_data_paths(args.data)
    counts = [len(load_questions(p)) for p in paths]
    empty = [str(p) for p, n in zip(paths, counts) if not n]
    if empty:
        raise ValueError(f"{', '.join(empty)}: no questions (an empty data file)")
    total = sum(min(n, args.limit or 10**9) for n in counts)
    reranker = CageReranker(
        config.replace(graph_cache_size=0), nlp=args.spacy_model, graph_store=args.graph_store
    )
    with tqdm(total=total, unit="q", desc="cage eval", disable=args.no_progress) as bar:

        def progress(n: int, name: str) -> None:
            bar.set_postfix_str(name)
            bar.update(n)

        if args.open is not None:
            expansion = (
                ExpansionSettings(
                    seeds=args.expand_seeds,
                    limit=args.expand_limit,
                    routing=None if args.no_route else RoutingSettings(),
                )
                if args.expand
                else None
            )
            run = run_open_evaluation(
                paths,
                methods,
                reranker=reranker,
                k=args.open,
                corpus_path=args.corpus,
                titles=not args.no_titles,
                retriever=args.retriever,
                expansion=expansion,
                ks=ks,
                limit=args.limit,
                generator=generator,
                progress=progress,
            )
        else:
            run = run_evaluation(
                paths,
                methods,
                reranker=reranker,
                ks=ks,
                shuffle=args.shuffle,
                titles=not args.no_titles,
                seed=args.seed,
                limit=args.limit,
                generator=generator,
                progress=progress,
            )
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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``cage eval``."""
    parser.add_argument(
        "--data",
        nargs="+",
        required=True,
        help="JSON Lines files or directories of them (format: cage_core.eval.datasets)",
    )
    parser.add_argument(
        "--methods",
        help="comma-separated method names (default: every registered method: "
        f"{','.join(registry.METHOD_NAMES)})",
    )
    parser.add_argument(
        "--out", default="eval-out", help="directory for results.md and results.json"
    )
    parser.add_argument(
        "--k",
        default=",".join(map(str, DEFAULT_KS)),
        help="cut-offs for Recall@k and all-gold@k (default: %(default)s)",
    )
    parser.add_argument(
        "--shuffle",
        choices=("auto", "always", "never"),
        default="auto",
        help="shuffle pools with a fixed seed first (auto: RAMDocs only)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of shuffling and of 'random'")
    parser.add_argument(
        "--limit", type=int, help="evaluate only the first N questions of each file"
    )
    parser.add_argument(
        "--generator", help="LangChain chat model as 'package.module:Class' for EM/F1"
    )
    parser.add_argument(
        "--generator-kwargs", help="JSON object of keyword arguments for the generator"
    )
    parser.add_argument(
        "--paper-reference",
        action="store_true",
        help="also print the paper's stated Recall@5 (a different sample; reference only)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--graph-store", help="SQLite graph store to read and fill (parse once across runs)"
    )
    parser.add_argument(
        "--record-command",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="write the command line into the report (default: yes)",
    )
    parser.add_argument(
        "--no-titles",
        action="store_true",
        help="drop passage titles (from content and metadata) before anything else",
    )
    open_setting = parser.add_argument_group(
        "open retrieval",
        "retrieve the top K of a corpus per question, then rank those "
        "(cage_core.eval.open_retrieval)",
    )
    open_setting.add_argument(
        "--open",
        type=int,
        metavar="K",
        help="rank the top K passages a retriever finds in a corpus "
        "instead of the benchmark's own pools",
    )
    open_setting.add_argument(
        "--corpus",
        metavar="FILE",
        help='JSON Lines of {"text", "title"?, "id"?} passages (default: '
        "the distinct passages of the pools of each --data file)",
    )
    open_setting.add_argument(
        "--retriever",
        choices=RETRIEVERS,
        default="cosine",
        help="first stage: embedder cosine, corpus BM25, or hybrid "
        "z(cos) + w·z(BM25) (default: %(default)s)",
    )
    open_setting.add_argument(
        "--expand",
        action="store_true",
        help="add passages linked to the retrieved ones (the link index) to each pool, "
        "and route questions that name a document to its chunks",
    )
    open_setting.add_argument(
        "--no-route",
        action="store_true",
        help="with --expand: do not route questions that name a document",
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
    add_config_options(parser)
