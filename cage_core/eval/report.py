"""Aggregate an :class:`EvalRun` into tables: Markdown for people, JSON for programs."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np

from cage_core.eval.runner import EvalRun, QuestionResult

#: Recall@5 stated in the text of the CAGE paper (its Table 1 and ablation), on its own
#: samples of the datasets: for reference only, not comparable sample for sample.
PAPER_RECALL_AT_5: dict[str, dict[str, str]] = {
    "cage (paper)": {"2wikimultihopqa": "85.4", "hotpotqa": "84.2", "musique": "64.0",
                     "ramdocs": "86.8–87.6 (all methods)"},
    "vanilla (paper)": {"2wikimultihopqa": "≈80.4 (CAGE −5)", "musique": "63.6"},
    "monoT5 (paper)": {"hotpotqa": "84.2", "musique": "62.8"},
}
PAPER_ABLATION_NOTE = ("Paper ablation (Table 3, as stated): R-GCN instead of GCN +10.5 on MuSiQue; "
                       "reweighting +3.9 on 2Wiki, +1.8 on HotpotQA.")


def _mean(values: list[float]) -> float | None:
    return float(np.mean(values)) if values else None


def summarize(run: EvalRun) -> dict[str, Any]:
    """Per dataset and method: recall@k, recall@k per question type, latency, misinfo rate, EM/F1."""
    grouped: dict[tuple[str, str], list[QuestionResult]] = defaultdict(list)
    for r in run.results:
        grouped[(r.dataset, r.method)].append(r)
    out: dict[str, Any] = {"methods": run.methods, "ks": list(run.ks), "datasets": {}}
    for name, ds in run.datasets.items():
        entry: dict[str, Any] = {
            "questions": ds.questions, "shuffled": ds.shuffled,
            "embed_ms_per_question": 1000 * ds.embed_seconds / max(ds.questions, 1),
            "parse_ms_per_question": 1000 * ds.parse_seconds / max(ds.questions, 1),
            "methods": {},
        }  # fmt: skip
        for method in run.methods:
            rs = grouped.get((name, method), [])
            m: dict[str, Any] = {f"recall@{k}": _mean([r.recall[k] for r in rs]) for k in run.ks}
            types = sorted({r.type for r in rs if r.type})
            m["by_type"] = {
                t: {"n": sum(r.type == t for r in rs),
                    **{f"recall@{k}": _mean([r.recall[k] for r in rs if r.type == t]) for k in run.ks}}
                for t in types
            }  # fmt: skip
            m["latency_ms"] = 1000 * (_mean([r.latency_s for r in rs]) or 0.0)
            flagged = [r for r in rs if r.misinfo_in_top is not None]
            if flagged:
                m["misinfo_in_top"] = {f"@{k}": _mean([float(r.misinfo_in_top[k]) for r in flagged])
                                       for k in run.ks}  # fmt: skip
            if any(r.em is not None for r in rs):
                m["em"] = _mean([r.em for r in rs if r.em is not None])
                m["f1"] = _mean([r.f1 for r in rs if r.f1 is not None])
            entry["methods"][method] = m
        out["datasets"][name] = entry
    return out


def _fmt(value: float | None, scale: float = 1.0, digits: int = 3) -> str:
    return "–" if value is None else f"{value * scale:.{digits}f}"


def markdown(summary: dict[str, Any], *, paper_reference: bool = False, command: str = "") -> str:
    ks = summary["ks"]
    main_k = 5 if 5 in ks else ks[-1]
    names = list(summary["datasets"])
    lines = ["# cage eval", ""]
    if command:
        lines += [f"Command: `{command}`", ""]
    lines += [f"## Recall@{main_k}", "", "| method | " + " | ".join(names) + " |",
              "|---|" + "---|" * len(names)]  # fmt: skip
    for method in summary["methods"]:
        cells = [_fmt(summary["datasets"][d]["methods"][method][f"recall@{main_k}"]) for d in names]
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    lines.append("")
    for d in names:
        entry = summary["datasets"][d]
        types = sorted({t for m in entry["methods"].values() for t in m["by_type"]})
        lines += [f"## {d} ({entry['questions']} questions{', pools shuffled' if entry['shuffled'] else ''})", ""]
        header = [f"R@{k}" for k in ks] + [f"R@{main_k} {t} (n={next(iter(entry['methods'].values()))['by_type'][t]['n']})" for t in types]
        has_misinfo = any("misinfo_in_top" in m for m in entry["methods"].values())
        has_answers = any("em" in m for m in entry["methods"].values())
        if has_misinfo:
            header += [f"misinfo in top {k}" for k in ks]
        if has_answers:
            header += ["EM", "F1"]
        header.append("ms/query")
        lines += ["| method | " + " | ".join(header) + " |", "|---|" + "---|" * len(header)]
        for method, m in entry["methods"].items():
            cells = [_fmt(m[f"recall@{k}"]) for k in ks]
            cells += [_fmt(m["by_type"].get(t, {}).get(f"recall@{main_k}")) for t in types]
            if has_misinfo:
                cells += [_fmt(m.get("misinfo_in_top", {}).get(f"@{k}")) for k in ks]
            if has_answers:
                cells += [_fmt(m.get("em")), _fmt(m.get("f1"))]
            cells.append(f"{m['latency_ms']:.1f}")
            lines.append(f"| {method} | " + " | ".join(cells) + " |")
        lines += ["", f"Shared work per question: embedding {entry['embed_ms_per_question']:.1f} ms, "
                      f"parsing {entry['parse_ms_per_question']:.1f} ms (done once for all methods).", ""]
    if paper_reference:
        lines += ["## The paper's numbers (reference only: a different sample of the datasets)", "",
                  "| paper row | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
        for row, values in PAPER_RECALL_AT_5.items():
            lines.append(f"| {row} | " + " | ".join(values.get(d, "–") for d in names) + " |")
        lines += ["", PAPER_ABLATION_NOTE, ""]
    return "\n".join(lines)
