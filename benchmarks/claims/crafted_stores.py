"""What rejecting a crafted store costs, against a clean store's cost (issue 40, row 5).

    python benchmarks/claims/crafted_stores.py [--row-mb 400] [--postings 1000000] [--runs 3]

Builds a clean link store and a clean graph store of a few hundred entries, then one crafted
copy of each per case below, and measures one call on each in a fresh process: for the link
store, ``LinkIndex.open`` and one ``expand`` (or the refusal at open); for the graph store,
``GraphStore`` and one ``get_many`` of every key. Each figure is the median over ``--runs``
processes of the call's wall time and of its peak resident memory above the process's before
the call (Linux ``VmHWM``, reset first, so SQLite's own allocations count; the modules are
imported before); printed is the excess over the clean store's figures. The target: at most 50 ms
and 100 MiB per call.

Cases: a row of ``--row-mb`` MB (values are refused before they are read), the seed's own
or its neighbouring chunk (the entries are chunks of documents of ten, so ``expand`` reads
the chunks next to each seed: a row whose position is read past its value would cost its
whole size), ``--postings``
postings under a stored count of 1 (a name's postings are read up to its count + 1),
``entries`` as an endless view, a trigger that rewrites a writer's rows (both refused at
open by the schema check), and the graph store's ``graphs`` table as a view and with a
``--row-mb`` MB row.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
QUERY = "Who knew person 3?"
ENDLESS = (
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
    "SELECT x AS pid, 'p' || x AS id, '{}' AS data, NULL AS doc_id, NULL AS position FROM c"
)
TARGET_MS, TARGET_MIB = 50.0, 100.0


def _entries(count: int):
    from cage_core.expansion.index import LinkEntry

    return [
        LinkEntry(
            f"p{i}",
            f"person {i}",
            (f"person {i}",),
            (f"person {(i + 1) % count}", f"person {(i + 7) % count}"),
            doc_id=f"doc{i // 10}",
            position=i % 10,
        )
        for i in range(count)
    ]


def _graph(key: str):
    import numpy as np

    from cage_core.graphs.passage_graph import PassageGraph, content_hash

    chain = np.arange(2, dtype=np.int64)
    return PassageGraph(
        labels=(key, "a", "b"),
        pos=("PROPN",) * 3,
        entity_types=("PERSON", "", ""),
        edge_src=chain,
        edge_dst=chain + 1,
        edge_type=np.zeros(2, np.int64),
        edge_verbs=("x", "y"),
        source="bench",
        content_sha=content_hash(key),
    )


def build(where: Path, row_mb: int, postings: int) -> dict[str, tuple[str, Path]]:
    """``{case: (kind, path)}``: the clean stores and their crafted copies."""
    from cage_core.expansion.index import LinkIndex
    from cage_core.graphs.store import GraphStore

    clean_links = where / "clean.links.sqlite"
    with LinkIndex.open(clean_links, create=True) as index:
        index.add_entries(_entries(500))
    clean_graphs = where / "clean.graphs.sqlite"
    with GraphStore(clean_graphs) as store:
        store.put_many((f"k{i}", _graph(f"k{i}")) for i in range(200))
    big = "x" * (row_mb * 1_000_000)
    crafted: dict[str, tuple[str, str, tuple]] = {
        f"link: a {row_mb} MB row, a seed's own": (
            "links",
            "UPDATE entries SET data = ? WHERE id = 'p3'",
            (big,),
        ),
        f"link: a {row_mb} MB row, a seed's neighbour": (
            "links",
            "UPDATE entries SET data = ? WHERE id = 'p6'",  # next to the seed p5
            (big,),
        ),
        f"link: {postings:,} postings under a count of 1": ("links", "", ()),
        "link: entries an endless view": (
            "links",
            f"ALTER TABLE entries RENAME TO e2; CREATE VIEW entries AS {ENDLESS}",
            (),
        ),
        "link: a trigger on entries": (
            "links",
            "CREATE TRIGGER evil AFTER INSERT ON entries BEGIN "
            "UPDATE entries SET id = 'x' || new.id WHERE pid = new.pid; END",
            (),
        ),
        f"graph: a {row_mb} MB row": (
            "graphs",
            "UPDATE graphs SET data = ? WHERE key = 'k3'",
            (big,),
        ),
        "graph: graphs an endless view": (
            "graphs",
            "ALTER TABLE graphs RENAME TO g2; CREATE VIEW graphs AS WITH RECURSIVE "
            "c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT 'k' || x AS key, "
            "'{}' AS data FROM c",
            (),
        ),
    }
    cases = {"link: clean": ("links", clean_links), "graph: clean": ("graphs", clean_graphs)}
    for number, (case, (kind, sql, parameters)) in enumerate(crafted.items()):
        path = where / f"crafted{number}.{kind}.sqlite"
        path.write_bytes((clean_links if kind == "links" else clean_graphs).read_bytes())
        with sqlite3.connect(path) as conn:
            if "postings" in case:
                (nid,) = conn.execute("SELECT nid FROM names WHERE name = 'person 4'").fetchone()
                conn.execute("UPDATE names SET keyed = 1 WHERE nid = ?", (nid,))
                conn.executemany(
                    "INSERT INTO postings VALUES (?, 0, ?)",
                    ((nid, 10**7 + i) for i in range(postings)),
                )
            elif parameters:
                conn.execute(sql, parameters)
            else:
                conn.executescript(sql)
        cases[case] = (kind, path)
    return cases


def measure(kind: str, path: str) -> dict[str, float]:
    """One call on the store at ``path``, in this (fresh) process: wall ms and peak MiB above."""
    import logging

    logging.disable(logging.CRITICAL)
    if kind == "links":
        from cage_core.expansion.index import LinkIndex

        def call() -> None:
            try:
                with LinkIndex.open(path) as index:
                    index.expand(QUERY, ["p3", "p4", "p5"])
            except (ValueError, sqlite3.Error):
                pass  # refused: what is measured is the cost of refusing
    else:
        from cage_core.graphs.store import GraphStore

        def call() -> None:
            with GraphStore(path) as store:
                store.get_many([f"k{i}" for i in range(200)])

    import cage_core.expansion.store  # noqa: F401  (imported before the clock starts)

    before = _reset_peak_kib()
    start = time.perf_counter()
    call()
    seconds = time.perf_counter() - start
    return {"ms": seconds * 1000, "mib": (_status_kib("VmHWM") - before) / 1024}


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def _reset_peak_kib() -> int:
    """Reset the peak resident size to the current one (Linux ``clear_refs`` 5); returns it."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:  # older kernels: the peak so far stays the baseline
        return _status_kib("VmHWM")
    return _status_kib("VmRSS")


def _in_fresh_process(kind: str, path: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, __file__, "--measure", kind, str(path)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--row-mb", type=int, default=400)
    parser.add_argument("--postings", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--measure", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(*args.measure)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        cases = build(Path(tmp), args.row_mb, args.postings)
        medians = {}
        for case, (kind, path) in cases.items():
            runs = [_in_fresh_process(kind, path) for _ in range(args.runs)]
            medians[case] = {k: statistics.median(r[k] for r in runs) for k in ("ms", "mib")}
    print(
        f"{'case':<44} {'ms':>8} {'MiB':>7}   (excess over the clean store; target "
        f"<= {TARGET_MS:g} ms, <= {TARGET_MIB:g} MiB)"
    )
    failed = False
    for case, figures in medians.items():
        if case.endswith("clean"):
            print(f"{case:<44} {figures['ms']:8.1f} {figures['mib']:7.1f}   (absolute)")
            continue
        clean = medians[case.split(":")[0] + ": clean"]
        ms, mib = figures["ms"] - clean["ms"], figures["mib"] - clean["mib"]
        ok = ms <= TARGET_MS and mib <= TARGET_MIB
        failed |= not ok
        print(f"{case:<44} {ms:+8.1f} {mib:+7.1f}   {'ok' if ok else 'OVER TARGET'}")
    sys.exit(1 if failed else 0)


def _import_without_package_init() -> None:
    """The stores without ``cage_core/__init__`` (which loads torch: seconds per process)."""
    import types

    for name in ("cage_core", "cage_core.graphs"):
        package = types.ModuleType(name)
        package.__path__ = [str(ROOT.joinpath(*name.split(".")))]
        sys.modules[name] = package


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    _import_without_package_init()
    main()
