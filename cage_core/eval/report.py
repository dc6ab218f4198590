"""Aggregate an :class:`EvalRun` into tables: Markdown for people, JSON for programs."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from typing import Any

import numpy as np

from cage_core.eval.runner import EvalRun, QuestionResult, RetrievalOutcome

__all__ = [
    "OPEN_SHARED_WORK_NOTE",
    "PAPER_ABLATION_NOTE",
    "PAPER_RECALL_AT_5",
    "SUMMARY_KS",
    "markdown",
    "summarize",
]

#: Recall@5 stated in the text of the CAGE paper (its Table 1 and ablation), on its own
#: samples of the datasets: for reference only, not comparable sample for sample.
PAPER_RECALL_AT_5: dict[str, dict[str, str]] = {
    "cage (paper)": {
        "2wikimultihopqa": "85.4",
        "hotpotqa": "84.2",
        "musique": "64.0",
        "ramdocs": "86.8–87.6 (all methods)",
    },
    "vanilla (paper)": {"2wikimultihopqa": "≈80.4 (CAGE −5)", "musique": "63.6"},
    "monoT5 (paper)": {"hotpotqa": "84.2", "musique": "62.8"},
}
PAPER_ABLATION_NOTE = (
    "Paper ablation (Table 3, as stated): R-GCN instead of GCN +10.5 on MuSiQue; "
    "reweighting +3.9 on 2Wiki, +1.8 on HotpotQA."
)


def _mean(values: list[float]) -> float | None:
    return float(np.mean(values)) if values else None


OPEN_SHARED_WORK_NOTE = (
    "; open setting: the corpus is embedded, and each passage parsed, once per "
    "corpus, charged to the first file that uses it"
)
SUMMARY_KS: tuple[int, ...] = (5, 3)
"""The cut-offs of the cross-dataset summary tables, when evaluated."""


def _metrics(rs: list[QuestionResult], ks: tuple[int, ...]) -> dict[str, float | None]:
    """Mean Recall@k and all-gold@k (:mod:`cage_core.eval.metrics`) of ``rs``."""
    out: dict[str, float | None] = {f"recall@{k}": _mean([r.recall[k] for r in rs]) for k in ks}
    out.update({f"all_gold@{k}": _mean([float(r.all_gold[k]) for r in rs]) for k in ks})
    return out


def _ceiling(outcomes: list[RetrievalOutcome]) -> dict[str, float | None]:
    """Mean first-stage recall and all-gold rate of ``outcomes``, for the K retrieved and for
    the whole (possibly expanded) pool, and the mean pool size."""
    return {
        "recall": _mean([o.retrieved_recall for o in outcomes]),
        "all_gold": _mean([float(o.all_gold_retrieved) for o in outcomes]),
        "pool_recall": _mean([o.pool_recall for o in outcomes]),
        "pool_all_gold": _mean([float(o.all_gold_in_pool) for o in outcomes]),
        "pool_size": _mean([float(o.pool_size) for o in outcomes]),
    }


def summarize(run: EvalRun) -> dict[str, Any]:
    """Per dataset and method: Recall@k and all-gold@k (overall and per question type),
    latency, misinfo rate, EM/F1; in the open setting, also the corpus and the first stage's
    ceiling (overall and per question type)."""
    grouped: dict[tuple[str, str], list[QuestionResult]] = defaultdict(list)
    for r in run.results:
        grouped[(r.dataset, r.method)].append(r)
    outcomes: dict[str, list[RetrievalOutcome]] = defaultdict(list)
    for o in run.retrieval:
        outcomes[o.dataset].append(o)
    out: dict[str, Any] = {
        "methods": run.methods,
        "ks": list(run.ks),
        "datasets": {},
        "open": any(ds.open is not None for ds in run.datasets.values()),
    }
    for name, ds in run.datasets.items():
        entry: dict[str, Any] = {
            "questions": ds.questions,
            "shuffled": ds.shuffled,
            "titles": ds.titles,
            "embed_ms_per_question": 1000 * ds.embed_seconds / max(ds.questions, 1),
            "parse_ms_per_question": 1000 * ds.parse_seconds / max(ds.questions, 1),
            "methods": {},
        }
        if ds.open is not None:
            found = outcomes.get(name, [])
            types = sorted({o.type for o in found if o.type})
            entry["open"] = {
                **dataclasses.asdict(ds.open),
                "ceiling": _ceiling(found),
                "ceiling_by_type": {
                    t: {
                        "n": sum(o.type == t for o in found),
                        **_ceiling([o for o in found if o.type == t]),
                    }
                    for t in types
                },
            }
        for method in run.methods:
            rs = grouped.get((name, method), [])
            m: dict[str, Any] = _metrics(rs, run.ks)
            types = sorted({r.type for r in rs if r.type})
            m["by_type"] = {
                t: {
                    "n": sum(r.type == t for r in rs),
                    **_metrics([r for r in rs if r.type == t], run.ks),
                }
                for t in types
            }
            m["latency_ms"] = 1000 * (_mean([r.latency_s for r in rs]) or 0.0)
            flagged = [r for r in rs if r.misinfo_in_top is not None]
            if flagged:
                m["misinfo_in_top"] = {
                    f"@{k}": _mean(
                        [
                            float(r.misinfo_in_top[k])
                            for r in flagged
                            if r.misinfo_in_top is not None
                        ]
                    )
                    for k in run.ks
                }
            if any(r.em is not None for r in rs):
                m["em"] = _mean([r.em for r in rs if r.em is not None])
                m["f1"] = _mean([r.f1 for r in rs if r.f1 is not None])
            entry["methods"][method] = m
        out["datasets"][name] = entry
    return out


def _fmt(value: float | None, scale: float = 1.0, digits: int = 3) -> str:
    return "–" if value is None else f"{value * scale:.{digits}f}"


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return [_row(header), "|" + "---|" * len(header), *(_row(r) for r in rows)]


def _summary_tables(summary: dict[str, Any]) -> list[str]:
    """Closed pools: one method × dataset table per summary k. Open setting: one dataset ×
    (ceiling, methods) table per summary k."""
    ks, names, methods = summary["ks"], list(summary["datasets"]), summary["methods"]
    main = [k for k in SUMMARY_KS if k in ks] or [ks[-1]]
    lines: list[str] = []
    for k in main:
        if not summary.get("open"):
            lines += [f"## Recall@{k}", ""]
            lines += _table(
                ["method", *names],
                [
                    [m, *(_fmt(summary["datasets"][d]["methods"][m][f"recall@{k}"]) for d in names)]
                    for m in methods
                ],
            )
            lines.append("")
            continue
        expanded = any(summary["datasets"][d]["open"]["expand"] for d in names)
        header = ["file", "corpus", "ceiling R@K"] + (
            ["ceiling, expanded pool"] if expanded else []
        )
        rows = []
        for d in names:
            entry = summary["datasets"][d]
            setting, ceiling = entry["open"], entry["open"]["ceiling"]
            row = [d, str(setting["corpus_size"]), f"{_fmt(ceiling['recall'])} (K={setting['k']})"]
            if expanded:
                row.append(
                    f"{_fmt(ceiling['pool_recall'])} ({ceiling['pool_size']:.1f} passages)"
                    if setting["expand"]
                    else "–"
                )
            rows.append(row + [_fmt(entry["methods"][m][f"recall@{k}"]) for m in methods])
        lines += [f"## Recall@{k} after retrieval", ""]
        lines += _table(header + [f"{m} R@{k}" for m in methods], rows)
        lines.append("")
    return lines


def _open_lines(entry: dict[str, Any]) -> list[str]:
    setting, ceiling = entry["open"], entry["open"]["ceiling"]
    k = setting["k"]
    first = (
        f"Open setting: corpus of {setting['corpus_size']} passages ({setting['corpus_source']}), "
        f"{setting['retriever']} top {k}{', titles' if entry['titles'] else ', no titles'}"
        f"{', expanded' if setting['expand'] else ''}. Retriever ceiling: R@{k} = "
        f"{_fmt(ceiling['recall'])}, all gold in top {k} = {_fmt(ceiling['all_gold'])}."
    )
    lines = [first]
    if setting["expand"]:
        lines[0] += (
            f" Expanded pool ({ceiling['pool_size']:.1f} passages on average): recall "
            f"{_fmt(ceiling['pool_recall'])}, all gold {_fmt(ceiling['pool_all_gold'])}; "
            f"expansion {1000 * setting['expand_seconds'] / max(entry['questions'], 1):.1f} ms "
            f"per question, link index built in {setting['index_seconds']:.1f} s."
        )
        if setting.get("routed"):
            lines[0] += (
                f" {setting['routed']} of {entry['questions']} questions name a document and "
                "were routed to it."
            )
    if setting["gold_outside_corpus"]:
        lines[0] += (
            f" {setting['gold_outside_corpus']} gold passages are not in the corpus "
            "(counted as missed)."
        )
    by_type = entry["open"]["ceiling_by_type"]
    if by_type:
        lines.append(
            f"Ceiling R@{k} by type: "
            + ", ".join(
                f"{t} {_fmt(v['recall'])}"
                + (f" (expanded {_fmt(v['pool_recall'])})" if setting["expand"] else "")
                for t, v in by_type.items()
            )
            + "."
        )
    return lines + [""]


def markdown(summary: dict[str, Any], *, paper_reference: bool = False, command: str = "") -> str:
    """The report: the summary tables (:func:`_summary_tables`), then per dataset one table of
    every metric and one of Recall@k and all-gold@k per question type."""
    ks = summary["ks"]
    names = list(summary["datasets"])
    lines = ["# cage eval" + (" (open retrieval)" if summary.get("open") else ""), ""]
    if command:
        lines += [f"Command: `{command}`", ""]
    lines += _summary_tables(summary)
    metric_header = [f"R@{k}" for k in ks] + [f"all@{k}" for k in ks]
    for d in names:
        entry = summary["datasets"][d]
        notes = (
            [f"{entry['questions']} questions"]
            + (["pools shuffled"] if entry["shuffled"] else [])
            + ([] if entry.get("titles", True) else ["no titles"])
        )
        lines += [f"## {d} ({', '.join(notes)})", ""]
        if "open" in entry:
            lines += _open_lines(entry)
        has_misinfo = any("misinfo_in_top" in m for m in entry["methods"].values())
        has_answers = any("em" in m for m in entry["methods"].values())
        header = list(metric_header)
        if has_misinfo:
            header += [f"misinfo in top {k}" for k in ks]
        if has_answers:
            header += ["EM", "F1"]
        rows = []
        for method, m in entry["methods"].items():
            cells = (
                [method]
                + [_fmt(m[f"recall@{k}"]) for k in ks]
                + [_fmt(m[f"all_gold@{k}"]) for k in ks]
            )
            if has_misinfo:
                cells += [_fmt(m.get("misinfo_in_top", {}).get(f"@{k}")) for k in ks]
            if has_answers:
                cells += [_fmt(m.get("em")), _fmt(m.get("f1"))]
            rows.append(cells + [f"{m['latency_ms']:.1f}"])
        lines += _table(["method", *header, "ms/query"], rows)
        types = sorted({t for m in entry["methods"].values() for t in m["by_type"]})
        if types:
            lines += ["", "By question type:", ""]
            lines += _table(
                ["method", "type", *metric_header],
                [
                    [
                        method,
                        f"{t} (n={m['by_type'][t]['n']})",
                        *(
                            _fmt(m["by_type"][t][f"{metric}@{k}"])
                            for metric in ("recall", "all_gold")
                            for k in ks
                        ),
                    ]
                    for method, m in entry["methods"].items()
                    for t in types
                    if t in m["by_type"]
                ],
            )
        shared = (
            f"Shared work per question: embedding {entry['embed_ms_per_question']:.1f} ms, parsing "
            f"{entry['parse_ms_per_question']:.1f} ms (done once for all methods"
            f"{OPEN_SHARED_WORK_NOTE if 'open' in entry else ''})."
        )
        lines += ["", shared, ""]
    if paper_reference:
        lines += ["## The paper's numbers (reference only: a different sample of the datasets)", ""]
        lines += _table(
            ["paper row", *names],
            [
                [row, *(values.get(d, "–") for d in names)]
                for row, values in PAPER_RECALL_AT_5.items()
            ],
        )
        lines += ["", PAPER_ABLATION_NOTE, ""]
    return "\n".join(lines)
