"""How many names a package-docs run shows that are no names: vias whose name is debris, and
link-index subjects that are generic file names or markup (issue 38).

    python benchmarks/checks/name_debris.py RUN.json [RUN.json ...]

Reads the ``--json`` files of ``benchmarks/claims/package_docs.py`` (which record the
``cage_via`` of the top 5 of every ranking and the link index's subject of every chunk) and
judges them by this tree's rules, so runs of any tree are counted alike:

* a via is *debris* when :func:`cage_core.names.may_link.is_debris` says so (a literal, code
  fragment, handle, path or URL), counted apart when the two chunks it joins come from one
  file (the chunk ids are ``"<file>:<start_index>"``: a document link, or a link inside one
  file) and when they come from two;
* a subject is *generic* when :func:`cage_core.names.sources.is_generic_file_name` says so
  (``README``, ``METADATA``, ``SKILL``, …) and *markup* when it is debris.

Printed per file: the non-empty top-5 vias, the debris ones (document / entity) and their
distinct names; the chunks, the generic and the markup subjects and their distinct values.
A via that is ``None`` is not counted.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cage_core.names.may_link import is_debris
from cage_core.names.sources import is_generic_file_name


def source_of(chunk_id: str) -> str:
    """``"<file>:<start_index>"`` → ``"<file>"``."""
    return chunk_id.rsplit(":", 1)[0]


def count(run: dict) -> dict:
    """The counts of one ``package_docs.py --json`` run (module docstring)."""
    vias = [via for by_question in run["vias"].values() for q in by_question.values() for via in q]
    debris = [(chunk, name, target) for chunk, name, target in vias if is_debris(name)]
    one_file = [v for v in debris if source_of(v[0]) == source_of(v[2])]
    subjects = list(run["subjects"].values())
    generic = [s for s in subjects if s and is_generic_file_name(s)]
    markup = [s for s in subjects if s and is_debris(s)]
    return {
        "vias": len(vias),
        "debris vias": len(debris),
        "one file": len(one_file),
        "two files": len(debris) - len(one_file),
        "debris names": Counter(name for _, name, _ in debris).most_common(),
        "chunks": len(subjects),
        "generic subjects": len(generic),
        "markup subjects": len(markup),
        "subject values": Counter(generic + markup).most_common(),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="package_docs.py --json files")
    args = parser.parse_args(argv)
    for path in args.runs:
        c = count(json.loads(path.read_text(encoding="utf-8")))
        print(
            f"{path}: {c['vias']} top-5 vias, {c['debris vias']} debris "
            f"({c['one file']} within one file, {c['two files']} across files) "
            f"{c['debris names'][:12]}; "
            f"{c['chunks']} subjects, {c['generic subjects']} generic file names, "
            f"{c['markup subjects']} markup {c['subject values'][:8]}"
        )


if __name__ == "__main__":
    main()
