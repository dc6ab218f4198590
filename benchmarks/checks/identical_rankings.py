"""Dump every method's ranking, scores and ``via`` per DEV question, and compare two dumps.

A refactoring that must not change a single ranking (a move of modules, a rename, a split of
a function) is checked by dumping before and after it and comparing the two files::

    python benchmarks/checks/identical_rankings.py --data ../shared/data \\
        --graph-store graphs.sqlite --out before.json   # on the tree before the change
    python benchmarks/checks/identical_rankings.py --data ../shared/data \\
        --graph-store graphs.sqlite --out after.json    # on the tree after it
    python benchmarks/checks/identical_rankings.py --compare before.json after.json

It imports ``cage_core`` from the current directory (not from the installed package), so run
it from the root of the tree being checked; it only uses interfaces every version of the tree
has: ``cage eval`` (``cage_core.cli.commands.main``), ``cage_core.methods.register_method`` /
``get_method`` / ``pool_scores`` and the explanations the reranker gives (``explain_ranking``
where the tree has it, else ``evidence_chain`` and the document links). Each method is
registered once more as a recorder that ranks exactly like it (``pool_scores(method, pool)``,
the reranker's path) and keeps, per pool: a digest of the pool's passages, the ranking, every
score (floats written exactly: JSON keeps a float's shortest round-trip form), and for the
first ``VIA_RANKS`` ranks what :meth:`CageReranker.rerank` reports: the ``via`` (name and
rank), its kind (``via_kind``: ``""`` for none, or for a tree whose vias have no kind) and the
``coherence``. ``--compare`` compares ``via_kind`` and ``coherence`` when both dumps have them.

Settings (``--settings``; default all): the four Wikipedia files' own pools, titled
(``closed``) and without titles (``closed-untitled``); the three multi-hop files in the open
setting, the top 20 by cosine over the file's passages, untitled, with link expansion
(``open-untitled-expand``); DragonBall over its corpus, untitled, the top 20 with and without
expansion (``dragonball``, ``dragonball-expand``); SciFact over its titled abstracts and over its
untitled chunks, the top 20 (``scifact``, ``scifact-chunks``). ``--compare`` prints, per setting
and method, how many pools have identical rankings, scores and vias, and the first differences;
it exits 1 when anything differs or a pool is missing on one side.

The dump is portable: it names the tree's ``cage_core`` relative to the tree's root and holds
no timings (those go to stderr), so two runs of the same tree on different machines write the
same file. It is laid out one line per pool and method, so that ``git diff`` of a committed
dump (``tests/data/identical_rankings_sample.json``, the CI sample) shows which rankings moved.

Cost: the open settings reuse the graph store's corpus embeddings and graphs (seconds per 50
pools once warm); the closed ones embed every pool passage again (the closed runner does not
use the store's embeddings), about 2 s per question on a loaded 2-core machine. ``--limit 50``
on all 15 files took 13 min there (775 s + 33 s); the full set is several times that.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

DEFAULT_METHODS = ("cage", "cage-contra", "hybrid", "grapher", "tegr")
"""``paper`` (the R-GCN, trained per query, on full graphs) is left out by default: 3.8 s per
pool against cage's 7 ms (`cage eval --methods cage,tegr,grapher,paper --limit 10` on HotpotQA,
a loaded 2-core machine), hours on every DEV pool; add it with ``--methods`` and ``--limit``."""
MULTIHOP = ("hotpotqa", "2wikimultihopqa", "musique")
WIKIPEDIA = (*MULTIHOP, "ramdocs")
PREFIX = "identity:"
RECORD_DEPTH = 4
"""The dump's nesting depth of one method's record on one pool (written on one line)."""


def settings(data: Path) -> dict[str, list[tuple[str, list[str]]]]:
    """``{setting: [(file label, cage eval arguments), ...]}``."""
    beyond = data / "beyond-wikipedia"
    open20 = ["--open", "20"]
    return {
        "closed": [(n, ["--data", str(data / f"{n}.jsonl")]) for n in WIKIPEDIA],
        "closed-untitled": [
            (n, ["--data", str(data / f"{n}.jsonl"), "--no-titles"]) for n in WIKIPEDIA
        ],
        "open-untitled-expand": [
            (n, ["--data", str(data / f"{n}.jsonl"), *open20, "--no-titles", "--expand"])
            for n in MULTIHOP
        ],
        "dragonball": [
            (
                "dragonball",
                [
                    "--data",
                    str(beyond / "dragonball.jsonl"),
                    "--corpus",
                    str(beyond / "dragonball.corpus.jsonl"),
                    *open20,
                    "--no-titles",
                ],
            )
        ],
        "dragonball-expand": [
            (
                "dragonball",
                [
                    "--data",
                    str(beyond / "dragonball.jsonl"),
                    "--corpus",
                    str(beyond / "dragonball.corpus.jsonl"),
                    *open20,
                    "--no-titles",
                    "--expand",
                ],
            )
        ],
        "scifact": [
            (
                "scifact",
                [
                    "--data",
                    str(beyond / "scifact.jsonl"),
                    "--corpus",
                    str(beyond / "scifact.corpus.jsonl"),
                    *open20,
                ],
            )
        ],
        "scifact-chunks": [
            (
                "scifact_chunks",
                [
                    "--data",
                    str(beyond / "scifact.jsonl"),
                    "--corpus",
                    str(beyond / "scifact_chunks.corpus.jsonl"),
                    *open20,
                    "--no-titles",
                ],
            )
        ],
    }


class Recorder:
    """Ranks like ``inner`` and records what it did to each pool into ``sink[pool.key]``."""

    def __init__(self, inner: Any, sink: dict[str, dict[str, Any]], tools: dict[str, Any]):
        self._inner, self._sink, self._tools = inner, sink, tools
        self.name = inner.name

    def __getattr__(self, attribute: str) -> Any:  # needs_graphs, needs_vectors, ...
        return getattr(self._inner, attribute)

    def score(self, pool: Any) -> Any:
        tools = self._tools
        scores = tools["pool_scores"](self._inner, pool)
        fused = scores.fused
        order = [int(i) for i in tools["ranking"](fused)]
        vias, coherence = _explained(tools, self._inner, pool, scores, order)
        contents = "\x00".join(p.content for p in pool.passages)
        self._sink.setdefault(str(pool.key), {})[self.name] = {
            "pool": hashlib.blake2b(contents.encode(), digest_size=12).hexdigest(),
            "order": order,
            "scores": [float(s) for s in fused],
            "via": [None if v is None else [v.name, v.rank] for v in vias],
            "via_kind": ["" if v is None else getattr(v, "kind", "") for v in vias],
            "coherence": coherence,
        }
        return fused


def _explained(
    tools: dict[str, Any], method: Any, pool: Any, scores: Any, order: list[int]
) -> tuple[list[Any], list[float]]:
    """The vias and coherences of the first ``via_ranks`` ranks, as the tree's reranker
    reports them."""
    ranks = tools["via_ranks"]
    explain = tools["explain_ranking"]
    if explain is not None:
        explained = explain(
            pool.query,
            pool.passages,
            scores,
            order,
            read_links=method.needs_graphs,
            ranks=ranks,
        )[:ranks]
        return [e.via for e in explained], [float(e.coherence) for e in explained]
    top = order[:ranks]  # a tree before explain_ranking: its reranker's own steps
    graphs = getattr(scores, "graphs", None) or ()
    vias: list[Any] = [None] * len(top)
    if method.needs_graphs and len(graphs) == len(pool.passages):
        links = getattr(scores, "links", None)
        vias = tools["evidence_chain"](pool.query, pool.passages, graphs, top, links)
    documents = getattr(scores, "documents", None)
    if documents is not None and tools["document_vias"] is not None:
        vias = tools["document_vias"](pool.passages, top, vias, documents.subjects)
    return list(vias), [float(scores.coherence[i]) for i in top]


def _import_tree() -> dict[str, Any]:
    """The tree's modules, from the current directory."""
    sys.path.insert(0, os.getcwd())
    import cage_core
    from cage_core import methods, reranker
    from cage_core.cli.commands import main
    from cage_core.ranking import document_links, explanation

    here = Path(os.getcwd()).resolve()
    source = Path(cage_core.__file__).resolve()
    if here not in source.parents:
        raise SystemExit(
            f"cage_core comes from {cage_core.__file__}, not from {here}: run this "
            "from the root of the tree to check"
        )
    return {
        "cage_core": source.relative_to(here).as_posix(),  # no machine path in the dump
        "methods": methods,
        "main": main,
        "tools": {
            "pool_scores": methods.pool_scores,
            "ranking": reranker.ranking,
            "evidence_chain": explanation.evidence_chain,
            "explain_ranking": getattr(explanation, "explain_ranking", None),
            "document_vias": getattr(document_links, "document_vias", None),
            "via_ranks": getattr(reranker, "VIA_RANKS", 50),
        },
    }


def dump(args: argparse.Namespace) -> int:
    tree = _import_tree()
    methods, main, tools = tree["methods"], tree["main"], tree["tools"]
    names = [m.strip() for m in args.methods.split(",") if m.strip()]
    chosen = settings(Path(args.data))
    wanted = (
        list(chosen) if args.settings == "all" else [s.strip() for s in args.settings.split(",")]
    )
    unknown = [s for s in wanted if s not in chosen]
    if unknown:
        raise SystemExit(f"unknown settings {unknown}; choose from {list(chosen)}")
    sink: dict[str, dict[str, Any]] = {}
    for name in names:
        methods.get_method(name)  # unknown names fail here, before any work
        methods.register_method(
            PREFIX + name,
            lambda config, name=name: Recorder(methods.get_method(name, config), sink, tools),
        )
    out: dict[str, Any] = {
        "cage_core": tree["cage_core"],
        "methods": names,
        "limit": args.limit,
        "settings": {},
    }
    common = [
        "--methods",
        ",".join(PREFIX + n for n in names),
        "--no-progress",
        "--no-record-command",
    ]
    if args.graph_store:
        common += ["--graph-store", args.graph_store]
    if args.limit:
        common += ["--limit", str(args.limit)]
    total = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for setting in wanted:
            for label, cli_args in chosen[setting]:
                if args.files and label not in args.files.split(","):
                    continue
                key = f"{setting}/{label}"
                sink.clear()
                start = time.perf_counter()
                code = main(["eval", *cli_args, *common, "--out", tmp], out=io.StringIO())
                if code != 0:
                    raise SystemExit(f"{key}: cage eval exited with {code}")
                out["settings"][key] = dict(sink)
                print(
                    f"{key}: {len(sink)} pools x {len(names)} methods in "
                    f"{time.perf_counter() - start:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
                Path(args.out).write_text(_layout(out), encoding="utf-8")  # so far
    Path(args.out).write_text(_layout(out), encoding="utf-8")
    seconds = time.perf_counter() - total
    print(f"wrote {args.out} ({len(out['settings'])} files, {seconds:.0f} s)")
    return 0


def _layout(value: Any, depth: int = 0) -> str:
    """JSON with one line per pool and method: dump -> setting -> pool -> method -> record."""
    if depth == RECORD_DEPTH or not isinstance(value, dict) or not value:
        return json.dumps(value)
    pad = " " * (depth + 1)
    items = ",\n".join(f"{pad}{json.dumps(k)}: {_layout(v, depth + 1)}" for k, v in value.items())
    return "{\n" + items + "\n" + " " * depth + "}" + ("\n" if depth == 0 else "")


def _first_difference(a: list[Any], b: list[Any]) -> str:
    if len(a) != len(b):
        return f"lengths {len(a)} vs {len(b)}"
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        if x != y:
            return f"at [{i}]: {x!r} vs {y!r}"
    return "identical"


SCORE_TOLERANCE = 1e-5
"""Relative tolerance of two dumps' scores: MiniLM's float32 embeddings differ in the 7th
digit between torch / BLAS builds, CPUs and thread counts, which moves no ranking; a score
standardised over its pool (hybrid's) carries that to the 6th (MuSiQue 2hop__403712_793210:
-0.1914091 on one 2-core machine, -0.1914085 in the reference). Rankings and vias must be
identical."""


def _close(a: list[float], b: list[float]) -> bool:
    return len(a) == len(b) and all(
        math.isclose(x, y, rel_tol=SCORE_TOLERANCE, abs_tol=SCORE_TOLERANCE) for x, y in zip(a, b)
    )


def compare(path_a: str, path_b: str, shown: int) -> int:
    a = json.loads(Path(path_a).read_text(encoding="utf-8"))
    b = json.loads(Path(path_b).read_text(encoding="utf-8"))
    print(f"A = {path_a}\nB = {path_b}")  # which tree made a dump is not compared
    differs = False
    for key in sorted(set(a["settings"]) | set(b["settings"])):
        pools_a, pools_b = a["settings"].get(key), b["settings"].get(key)
        if pools_a is None or pools_b is None:
            print(f"{key}: only in {'A' if pools_b is None else 'B'}")
            differs = True
            continue
        missing = sorted(set(pools_a) ^ set(pools_b))
        lines, notes = [], []
        for method in sorted({m for p in (*pools_a.values(), *pools_b.values()) for m in p}):
            same = {"pool": 0, "order": 0, "scores": 0, "via": 0}
            optional = {"via_kind": 0, "coherence": 0}  # compared when both records have them
            compared = dict.fromkeys(optional, 0)
            both = 0
            for qid in sorted(set(pools_a) & set(pools_b)):
                ra, rb = pools_a[qid].get(method), pools_b[qid].get(method)
                if ra is None or rb is None:
                    continue
                both += 1
                for fld in [*same, *(f for f in optional if f in ra and f in rb)]:
                    tally = same if fld in same else optional
                    if fld in compared:
                        compared[fld] += 1
                    if ra[fld] == rb[fld] or (fld == "scores" and _close(ra[fld], rb[fld])):
                        tally[fld] += 1
                    elif len(notes) < shown:
                        what = (
                            "pools differ" if fld == "pool" else _first_difference(ra[fld], rb[fld])
                        )
                        notes.append(f"    {method} {qid} {fld}: {what}")
            ok = (
                all(v == both for v in same.values())
                and all(optional[f] == compared[f] for f in optional)
                and both > 0
            )
            differs |= not ok
            extra = "".join(
                f", {f.replace('_', ' ')} {optional[f]}/{compared[f]}"
                for f in optional
                if compared[f]
            )
            lines.append(
                f"  {method:12} {'identical' if ok else 'DIFFERENT'}: "
                f"pools {same['pool']}/{both}, rankings {same['order']}/{both}, "
                f"scores {same['scores']}/{both}, vias {same['via']}/{both}{extra}"
            )
        if missing:
            differs = True
            notes.insert(0, f"    {len(missing)} pools on one side only, e.g. {missing[:3]}")
        sizes = f"{len(pools_a)}" if not missing else f"{len(pools_a)} (A) / {len(pools_b)} (B)"
        print(f"{key}: {sizes} pools")
        print("\n".join(lines + notes))
    print("ALL IDENTICAL" if not differs else "DIFFERENCES FOUND")
    return 1 if differs else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="../shared/data", help="the DEV files' folder")
    parser.add_argument("--graph-store", help="SQLite graph store shared across runs")
    parser.add_argument(
        "--methods",
        default=",".join(DEFAULT_METHODS),
        help="comma-separated method names (default: %(default)s)",
    )
    parser.add_argument("--settings", default="all", help="comma-separated settings (default: all)")
    parser.add_argument("--files", help="only these file labels, e.g. hotpotqa,scifact_chunks")
    parser.add_argument("--limit", type=int, help="only the first N questions of each file")
    parser.add_argument("--out", default="rankings.json", help="the dump to write")
    parser.add_argument("--compare", nargs=2, metavar=("A", "B"), help="compare two dumps")
    parser.add_argument("--show", type=int, default=10, help="differences shown per file")
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare, args.show)
    return dump(args)


if __name__ == "__main__":
    sys.exit(main())
