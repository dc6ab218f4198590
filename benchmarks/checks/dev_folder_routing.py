"""Routing on the DEV folders (issue 45), without a model: which questions each folder's
document records route, and where.

Each folder's files are read as ingest reads a document (its record from its opening, the
first :data:`~cage_core.expansion.documents.OPENING_CHARS` characters, its title from the first
:data:`~cage_core.expansion.documents.TITLE_CHARS`, and its path), its leading blank space
stripped as both frameworks' splitters strip a chunk's (a centred title's margin too); every
question of the folder, every question of the other folders and every off-topic question is
routed with the shipped :class:`~cage_core.expansion.routing.RoutingSettings`. Printed per
folder: the questions that name a document routed, and routed to a document they name only;
the other questions routed (two-document and single ones of the folder, other folders',
off-topic), and how many of the questions that name two documents route to both. The
targets of issue 45: at least 90% of naming questions routed, always to a named document; at
most 2% of the others; a question that names two documents routes to both.

    python benchmarks/checks/dev_folder_routing.py [--data benchmarks/data/dev_folders] [-v]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))  # crossval

from crossval.dev_folders import folder_names

from cage_core.expansion.routing import RoutingSettings, route_question


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT / "benchmarks/data/dev_folders")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every route")
    args = parser.parse_args()
    suites = {
        p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(args.data.glob("*.json"))
    }
    settings = RoutingSettings()
    total_naming = total_right = total_others = total_false = 0
    both = every_named = 0  # questions naming two documents; of them, routed to both
    for name, suite in suites.items():
        names = folder_names(args.data / name, suite["files"])
        naming = right = others = false = 0
        for q in suite["questions"]:
            route = route_question(q["question"], names, settings)
            if q["type"] == "names_document":
                naming += 1
                ok = bool(route) and set(route.doc_ids) <= set(q["names"])
                right += ok
                if len(q["names"]) > 1:
                    both += 1
                    every_named += set(route.doc_ids) == set(q["names"])
                if args.verbose or not ok:
                    print(
                        f"  {name} {q['id']} naming {q['names']} -> {list(route.doc_ids)}: "
                        f"{q['question'][:90]}"
                    )
            else:
                others += 1
                false += bool(route)
                if route:
                    print(
                        f"  {name} {q['id']} {q['type']} -> {list(route.doc_ids)}: "
                        f"{q['question'][:90]}"
                    )
        asked = [q["question"] for o, s in suites.items() if o != name for q in s["questions"]]
        asked += [
            q if isinstance(q, str) else q["question"]
            for s in suites.values()
            for q in s["off_topic"]
        ]
        for question in asked:
            route = route_question(question, names, settings)
            others += 1
            false += bool(route)
            if route:
                print(f"  {name} foreign -> {list(route.doc_ids)}: {question[:90]}")
        print(f"{name:22} naming routed right {right}/{naming}; others routed {false}/{others}")
        total_naming += naming
        total_right += right
        total_others += others
        total_false += false
    print(
        f"{'all':22} naming routed right {total_right}/{total_naming} "
        f"({total_right / total_naming:.0%}); others routed {total_false}/{total_others} "
        f"({total_false / total_others:.1%}); naming two, routed to both {every_named}/{both}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
