"""Routing decisions on every DEV file with documents, and the off-topic questions: dump and
compare.

A change to how documents are named or questions read (:mod:`cage_core.expansion.routing`,
:mod:`cage_core.expansion.documents`) changes a ranking only through the route it gives a
question: the same routes (documents and shortened question) give the same pools and
rankings. This check routes, with the shipped :class:`RoutingSettings`, every question of
CUAD, DragonBall and SciFact chunks over its own corpus, and every question of the other DEV
files over each of those corpora (off-topic; none names a document there), with the corpus's
document records as ingest writes them (:class:`~cage_core.eval.open_routing.CorpusDocuments`).
No model is loaded: it takes seconds.

    python benchmarks/checks/routing_decisions.py --data ../shared/data --out before.json
    python benchmarks/checks/routing_decisions.py --data ../shared/data --out after.json
    python benchmarks/checks/routing_decisions.py --compare before.json after.json

``--compare`` prints, per corpus, how many questions each dump routes (own / off-topic) and
every question whose route differs; it exits 1 when any does.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from cage_core.eval.corpus import load_corpus
from cage_core.eval.datasets import load_questions
from cage_core.eval.open_routing import CorpusDocuments
from cage_core.expansion.routing import RoutingSettings, route_question

CORPORA = {
    "cuad": ("beyond-wikipedia/cuad.jsonl", "beyond-wikipedia/cuad.corpus.jsonl"),
    "dragonball": ("beyond-wikipedia/dragonball.jsonl", "beyond-wikipedia/dragonball.corpus.jsonl"),
    "scifact": ("beyond-wikipedia/scifact.jsonl", "beyond-wikipedia/scifact_chunks.corpus.jsonl"),
}
QUESTION_FILES = {
    "hotpotqa": "hotpotqa.jsonl",
    "2wikimultihopqa": "2wikimultihopqa.jsonl",
    "musique": "musique.jsonl",
    "ramdocs": "ramdocs.jsonl",
    **{name: files[0] for name, files in CORPORA.items()},
}


def dump(data: Path) -> dict[str, dict[str, list[object]]]:
    """``{corpus: {"asker:question id": [named doc ids, shortened question]}}``."""
    asked = {name: load_questions(data / path) for name, path in QUESTION_FILES.items()}
    settings = RoutingSettings()
    out: dict[str, dict[str, list[object]]] = {}
    for name, (_, corpus_path) in CORPORA.items():
        names = CorpusDocuments(load_corpus(data / corpus_path)).names
        routes: dict[str, list[object]] = {}
        for asker, questions in asked.items():
            for q in questions:
                route = route_question(q.question, names, settings)
                routes[f"{asker}:{q.id}"] = [list(route.doc_ids), route.question]
        out[name] = routes
    return out


def compare(before: Path, after: Path) -> int:
    old, new = (json.loads(p.read_text(encoding="utf-8")) for p in (before, after))
    differing = 0
    for name in sorted(set(old) | set(new)):
        a, b = old.get(name, {}), new.get(name, {})
        for label, routes in (("before", a), ("after", b)):
            own = sum(1 for k, (ids, _) in routes.items() if k.startswith(f"{name}:") and ids)
            off = sum(1 for k, (ids, _) in routes.items() if not k.startswith(f"{name}:") and ids)
            print(f"{name:10} {label:6} routed: own {own}, off-topic {off} of {len(routes)}")
        changed = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
        differing += len(changed)
        for k in changed[:20]:
            print(f"  {k}: {a.get(k)} -> {b.get(k)}")
        if len(changed) > 20:
            print(f"  ... and {len(changed) - 20} more")
    print(f"questions whose route differs: {differing}")
    return 1 if differing else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    if args.data is None or args.out is None:
        parser.error("--data and --out (or --compare BEFORE AFTER)")
    args.out.write_text(json.dumps(dump(args.data), ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
