"""Routing over a store of Wikipedia pages, one document a title: what it does to multi-hop
questions that name an entity.

The Wikipedia benchmarks' passages carry no document, so ``cage eval --open K --expand``
routes none of their questions. A user's knowledge base of pages has one: this writes each
file's distinct passages as a corpus whose every passage is its page's one chunk
(``doc_id`` = title), then runs, per file,

    cage eval --data FILE --corpus FILE.docs.jsonl --open 20 --expand [--no-route]
        --methods cage,hybrid --graph-store GRAPHS --no-progress --out DIR

and prints cage's and hybrid's R@5 / all@5, routed and not, with how many questions routed.

    python benchmarks/claims/wikipedia_pages_routing.py [--data ../shared/data]
        [--files hotpotqa,2wikimultihopqa,musique] [--out DIR]

About 20 minutes on two cores (each corpus parsed and embedded once; ``--out`` keeps the
graphs and results for a rerun).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def write_corpus(questions: Path, corpus: Path) -> int:
    """The distinct passages of ``questions`` (by title, the first text given) written to
    ``corpus`` as pages of one chunk each; how many."""
    pages: dict[str, str] = {}
    with questions.open(encoding="utf-8") as rows:
        for line in rows:
            for passage in json.loads(line)["passages"]:
                pages.setdefault(passage["title"], passage["text"])
    with corpus.open("w", encoding="utf-8") as out:
        for title, text in pages.items():
            row = {"id": f"{title}#0", "text": text, "title": title, "doc_id": title}
            out.write(json.dumps({**row, "position": 0}) + "\n")
    return len(pages)


def run(questions: Path, corpus: Path, out: Path, *, route: bool) -> dict:
    """One ``cage eval`` run (module docstring); its ``results.json``."""
    cage = shutil.which("cage") or str(Path(sys.executable).with_name("cage"))
    command = [
        cage, "eval", "--data", str(questions), "--corpus", str(corpus), "--open", "20",
        "--expand", *([] if route else ["--no-route"]), "--methods", "cage,hybrid",
        "--graph-store", str(out.parent / "graphs.sqlite"), "--no-progress", "--out", str(out),
    ]  # fmt: skip
    subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
    return json.loads((out / "results.json").read_text(encoding="utf-8"))


def figures(results: dict, method: str) -> tuple[float, float]:
    """``method``'s mean R@5 and all@5 over the run's questions."""
    rows = [r for r in results["per_question"] if r["method"] == method]
    recall = sum(r["recall"]["5"] for r in rows) / len(rows)
    return recall, sum(bool(r["all_gold"]["5"]) for r in rows) / len(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--files", default="hotpotqa,2wikimultihopqa,musique")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="wikipedia-pages-"))
    out.mkdir(parents=True, exist_ok=True)
    print("| file | pages | method | R@5 / all@5 unrouted | routed |")
    print("|---|---|---|---|---|")
    for name in args.files.split(","):
        questions = args.data / f"{name}.jsonl"
        corpus = out / f"{name}.docs.jsonl"
        pages = write_corpus(questions, corpus)
        plain = run(questions, corpus, out / f"{name}-unrouted", route=False)
        routed = run(questions, corpus, out / f"{name}-routed", route=True)
        for method in ("cage", "hybrid"):
            (r0, a0), (r1, a1) = figures(plain, method), figures(routed, method)
            print(f"| {name} | {pages} | {method} | {r0:.3f} / {a0:.3f} | {r1:.3f} / {a1:.3f} |")
    print(f"(results and graphs in {out})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
