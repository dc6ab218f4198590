"""How the SQLite link store and the graph store scale: 100k, 1M (10M) passages (issue 28).

    nice -n 10 python benchmarks/claims/scale.py [--sizes 100000,1000000] [--dir DIR]
        [--graph-store FILE] [--data ../shared/data/hotpotqa.jsonl]
        [--queries 2000] [--parse-sample 300] [--check-memory 100000]

Passages are synthetic, of the stored shape (:func:`synthetic_entries`): passage ``i`` is
about one subject (a unique two- or three-word name; a three-word one also keyed by its
first and last word, as :func:`~cage_core.expansion.index.name_aliases` does), is chunk
``i % 10`` of document ``i // 10``, and mentions 4–12 names (about 8) drawn with Zipf
frequencies (Zipf–Mandelbrot, ``P(rank r) ∝ 1/(r + 20)``) from a universe of ``2N`` names, the first
``N`` of which are the subjects (so mentions reach other passages forward and backward, and a few
names are held by a large share of the passages, as "United States" is). The graph store is
filled with the real light graphs of a graph store (``--graph-store``, default the package's
``~/.cache/cage-rag/graphs.sqlite``; e.g. one ``cage eval --graph-store FILE`` filled),
repeated under distinct keys.

Per size it prints:

* ingest throughput: light graphs parsed per second (spaCy, a DEV sample of
  ``--parse-sample`` passages of ``--data``), link entries made per second from those stored
  graphs (:func:`~cage_core.expansion.ingest.link_entries`), and entries written per second into
  the link store while it grows to N (batches of 10,000);
* bytes per passage of the link store, of its JSON Lines export (measured on 20,000
  entries) and of the graph store;
* in a fresh querying process: the time to open the link store (``LinkIndex.open`` and
  ``len``), ``expand`` p50/p95 (20 random candidate ids, default seeds and limit),
  ``GraphStore.get_many`` of 20 random passages p50/p95, and its resident memory: after
  imports (torch comes with ``cage_core``), and at its peak (``VmHWM``) after the queries;
* adding 1,000 new entries, and replacing 1,000 held ones, to the store of N (median of 3).

``--check-memory N`` also builds the same N entries in memory and checks that every
expansion of the query set is equal (a count is printed). Stores are kept in ``--dir``
(default ``cage-scale-bench`` in the temporary directory) and reused when they hold the size already
(delete them to rebuild). Timings on a shared machine are noisy; the op counts are not.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cage_core.expansion.index import LinkEntry, LinkIndex
from cage_core.graphs.store import default_store_path

SYLLABLES_FIRST = [
    "ka",
    "lo",
    "mi",
    "ren",
    "tos",
    "va",
    "del",
    "su",
    "ni",
    "gor",
    "fe",
    "ari",
    "bo",
    "che",
    "du",
    "el",
    "han",
    "io",
    "jun",
    "ky",
]
SYLLABLES_LAST = [
    "mar",
    "sten",
    "qui",
    "lor",
    "ba",
    "wick",
    "ton",
    "ez",
    "sky",
    "ran",
    "holm",
    "vic",
    "dre",
    "ssen",
    "ada",
    "mo",
    "ber",
    "tz",
    "ley",
    "nak",
]
MULTIPLIER = 1_000_003
"""Maps a Zipf rank to a name (a prime, coprime with every ``2N`` used): frequent names are
spread over the subjects and the other names alike."""
ZIPF_OFFSET = 20
"""``q`` of the Zipf–Mandelbrot name frequencies: the commonest name is in ~4.5% of the
passages (``P(rank r) ∝ 1/(r + q)``, 8 draws per passage)."""
DOC_CHUNKS = 10
BLOCK = 1000
BUILD_BATCH = 10_000


def _words(syllables: list[str]) -> list[str]:
    """The 8,000 words of three syllables."""
    base = len(syllables)
    return ["".join(syllables[(k // base**d) % base] for d in range(3)) for k in range(base**3)]


FIRST_WORDS, LAST_WORDS = _words(SYLLABLES_FIRST), _words(SYLLABLES_LAST)


def name(e: int) -> str:
    """The name of entity ``e`` in link_name form: unique for e < 8000², a third of them
    with a middle word."""
    first, last = FIRST_WORDS[e % 8000], LAST_WORDS[(e // 8000) % 8000]
    if e % 3 == 0:
        return f"{first} {FIRST_WORDS[(e * 7) % 8000]} {last}"
    return f"{first} {last}"


def keys_of(e: int) -> tuple[str, ...]:
    subject = name(e)
    words = subject.split(" ")
    return (subject, f"{words[0]} {words[-1]}") if len(words) == 3 else (subject,)


def synthetic_entries(start: int, stop: int, universe: int, seed: int = 0) -> list[LinkEntry]:
    """Entries ``start`` … ``stop - 1`` of the generator of the module docstring (made in
    blocks of ``BLOCK``, each from its own random stream: the same whatever the range)."""
    out = []
    for block in range(start // BLOCK, (stop + BLOCK - 1) // BLOCK):
        made = _block(block, universe, seed)
        out += made[max(0, start - block * BLOCK) : stop - block * BLOCK]
    return out


def _block(block: int, universe: int, seed: int) -> list[LinkEntry]:
    start, stop = block * BLOCK, (block + 1) * BLOCK
    rng = np.random.default_rng([seed, block])
    counts = rng.integers(4, 13, size=stop - start)
    # Zipf–Mandelbrot ranks, P(r) ∝ 1 / (r + q): inverse CDF of the continuous density
    q = ZIPF_OFFSET
    u = rng.random(int(counts.sum()))
    ranks = np.floor((1 + q) * ((universe + 1 + q) / (1 + q)) ** u - q).astype(np.int64)
    entities = (ranks * MULTIPLIER) % universe
    out, at = [], 0
    for i, count in zip(range(start, stop), counts):
        keys = keys_of(i)
        drawn = dict.fromkeys(name(int(e)) for e in entities[at : at + count])
        at += count
        mentions = tuple(n for n in drawn if n not in keys)
        out.append(
            LinkEntry(
                f"p{i}",
                keys[0].title(),
                keys,
                mentions,
                doc_id=f"d{i // DOC_CHUNKS}",
                position=i % DOC_CHUNKS,
            )
        )
    return out


def query_sets(n: int, count: int, seed: int = 1) -> list[list[str]]:
    rng = random.Random(seed)
    return [[f"p{rng.randrange(n)}" for _ in range(20)] for _ in range(count)]


def percentiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return ordered[len(ordered) // 2], ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def build_link_store(path: Path, n: int) -> tuple[float, float] | None:
    """Fill the store to ``n`` entries; the entries written per second of wall and of CPU
    time (None: reused)."""
    if path.exists():
        with LinkIndex.open(path) as index:
            if len(index) == n:
                return None
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
    writing = cpu = 0.0
    with LinkIndex.open(path, create=True) as index:
        for start in range(0, n, BUILD_BATCH):
            batch = synthetic_entries(start, min(n, start + BUILD_BATCH), 2 * n)
            _, wall_s, cpu_s = timed(index.add_entries, batch)
            writing, cpu = writing + wall_s, cpu + cpu_s
            if start and start % (10 * BUILD_BATCH * max(1, n // 1_000_000)) == 0:
                print(
                    f"  link store: {start:,} entries, {start / writing:,.0f}/s "
                    f"({start / cpu:,.0f}/s of CPU)",
                    flush=True,
                )
    _checkpoint(path)
    return n / writing, n / cpu


def build_graph_store(path: Path, n: int, source: Path) -> None:
    from cage_core.graphs.store import GraphStore

    if path.exists():
        with GraphStore(path) as store:
            if len(store) == n:
                return
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
    GraphStore(path).close()
    with sqlite3.connect(f"file:{source}?mode=ro", uri=True) as src:
        texts = [
            row[0]
            for row in src.execute(
                'SELECT data FROM graphs WHERE data LIKE \'%"level":"light"%\' LIMIT 5000'
            )
        ]
    conn = sqlite3.connect(path)
    for start in range(0, n, 50_000):
        rows = ((graph_key(i), texts[i % len(texts)]) for i in range(start, min(n, start + 50_000)))
        with conn:
            conn.executemany("INSERT OR REPLACE INTO graphs (key, data) VALUES (?, ?)", rows)
    conn.close()
    _checkpoint(path)


def graph_key(i: int) -> str:
    return hashlib.sha256(f"passage {i}".encode()).hexdigest()


def _checkpoint(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def ingest_rates(data: Path, sample: int) -> tuple[float, float]:
    """Light graphs parsed per second, and link entries made per second from stored graphs."""
    from cage_core.eval.datasets import load_questions
    from cage_core.expansion.ingest import link_entries
    from cage_core.graphs.service import PassageGraphs
    from cage_core.passage import Passage

    seen, passages = set(), []
    for question in load_questions(data):
        for p in question.passages:
            passage = Passage(p.text, title=p.title)
            if passage.content not in seen and len(passages) < sample:
                seen.add(passage.content)
                passages.append(passage)
    service = PassageGraphs(cache_size=0)
    service.graphs(passages[:5], level="light")  # the pipeline loads
    begin = time.perf_counter()
    graphs = service.graphs(passages, level="light")
    parse_rate = len(passages) / (time.perf_counter() - begin)
    rows = [
        {"id": f"r{i}", "title": p.title, "text": p.text, "cage_graph": g.to_text()}
        for i, (p, g) in enumerate(zip(passages, graphs))
    ]
    begin, repeats = time.perf_counter(), 5
    for _ in range(repeats):
        link_entries(rows)
    return parse_rate, repeats * len(rows) / (time.perf_counter() - begin)


def timed(fn, *args):
    """``(result, wall seconds, CPU seconds of this process)`` of ``fn(*args)``."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn(*args)
    return result, time.perf_counter() - wall, time.process_time() - cpu


def write_rates(path: Path, n: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """(wall, CPU) seconds to add 1,000 new entries and to replace 1,000 held ones (medians
    of 3); the store is left as built."""
    adds, replaces = [], []
    with LinkIndex.open(path) as index:
        for r in range(3):
            new = synthetic_entries(n + r * 1000, n + (r + 1) * 1000, 2 * n, seed=7)
            adds.append(timed(index.add_entries, new)[1:])
            start = BLOCK * random.Random(r).randrange(n // BLOCK - 1)
            held = synthetic_entries(start, start + 1000, 2 * n, seed=8)  # other names
            replaces.append(timed(index.add_entries, held)[1:])
            index.add_entries(synthetic_entries(start, start + 1000, 2 * n))  # as built
            index.remove_many(e.id for e in new)

    def median(pairs):
        return tuple(statistics.median(p[i] for p in pairs) for i in (0, 1))

    return median(adds), median(replaces)


def query_worker(links: str, graphs: str, n: int, queries: int) -> None:
    """Run in a fresh process: open, expand, look graphs up; print JSON figures."""
    from cage_core.graphs.store import GraphStore

    baseline = _status_kib("VmRSS")
    begin = time.perf_counter()
    index = LinkIndex.open(links)
    size = len(index)
    opened = time.perf_counter() - begin
    store = GraphStore(graphs)
    rng = random.Random(2)
    expand: list[tuple[float, float]] = []
    lookup: list[tuple[float, float]] = []
    found = 0
    for candidates in query_sets(n, queries):
        result, wall, cpu = timed(index.expand, "Who was the mentor of the founder?", candidates)
        found += len(result)
        expand.append((wall, cpu))
        keys = [graph_key(rng.randrange(n)) for _ in range(20)]
        got, wall, cpu = timed(store.get_many, keys)
        lookup.append((wall, cpu))
        assert len(got) == len(set(keys))
    # VmHWM, not getrusage's ru_maxrss: a child's ru_maxrss starts at its parent's size at
    # fork (the benchmark's own, with its generated entries), which exec does not reset.
    print(
        json.dumps(
            {
                "open_s": opened,
                "size": size,
                "expansions": found / queries,
                "expand": percentiles([w for w, _ in expand]),
                "expand_cpu": percentiles([c for _, c in expand]),
                "lookup": percentiles([w for w, _ in lookup]),
                "lookup_cpu": percentiles([c for _, c in lookup]),
                "rss_after_imports_mib": baseline / 1024,
                "peak_rss_mib": _status_kib("VmHWM") / 1024,
            }
        )
    )


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def check_memory(path: Path, n: int, queries: int) -> tuple[int, int]:
    """(expansions compared, equal) between the store and the same entries in memory."""
    memory = LinkIndex()
    for start in range(0, n, BUILD_BATCH):
        memory.add_entries(synthetic_entries(start, min(n, start + BUILD_BATCH), 2 * n))
    equal = total = 0
    with LinkIndex.open(path) as store:
        assert len(store) == len(memory) == n
        for q, candidates in enumerate(query_sets(n, queries, seed=3)):
            for seeds, limit in ((3, 8), (5, 50)):
                expected = memory.expand(f"question {q}", candidates, seeds=seeds, limit=limit)
                equal += (
                    store.expand(f"question {q}", candidates, seeds=seeds, limit=limit) == expected
                )
                total += 1
    return total, equal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--dir", default=str(Path(tempfile.gettempdir()) / "cage-scale-bench"))
    parser.add_argument(
        "--graph-store",
        default=str(default_store_path()),
        help="a graph store holding light graphs (read only)",
    )
    parser.add_argument("--data", default="../shared/data/hotpotqa.jsonl")
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--parse-sample", type=int, default=300, help="0: skip the parse")
    parser.add_argument("--check-memory", type=int, default=100_000)
    parser.add_argument("--query-worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.query_worker:
        links, graphs, n, queries = args.query_worker
        query_worker(links, graphs, int(n), int(queries))
        return
    if not Path(args.graph_store).is_file():
        parser.error(
            f"--graph-store {args.graph_store}: no such graph store (one holding light "
            "graphs, e.g. filled by `cage eval --graph-store FILE`)"
        )
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    if args.parse_sample:
        parse_rate, entry_rate = ingest_rates(Path(args.data), args.parse_sample)
        print(
            f"ingest: {parse_rate:.0f} light graphs parsed/s (spaCy, {args.parse_sample} DEV "
            f"passages); {entry_rate:,.0f} link entries/s made from stored graphs",
            flush=True,
        )
    rows = []
    for n in (int(s) for s in args.sizes.split(",")):
        links, graphs = folder / f"links-{n}.sqlite", folder / f"graphs-{n}.sqlite"
        begin = time.perf_counter()
        write_rate = build_link_store(links, n)
        print(f"{n:,}: link store built in {time.perf_counter() - begin:.0f}s", flush=True)
        begin = time.perf_counter()
        build_graph_store(graphs, n, Path(args.graph_store))
        print(f"{n:,}: graph store filled in {time.perf_counter() - begin:.0f}s", flush=True)
        add, replace = write_rates(links, n)
        sample = synthetic_entries(0, 20_000, 2 * n)
        jsonl = sum(
            len(json.dumps(e.to_dict(), ensure_ascii=False, separators=(",", ":"))) + 1
            for e in sample
        ) / len(sample)
        worker = subprocess.run(
            [
                sys.executable,
                __file__,
                "--query-worker",
                str(links),
                str(graphs),
                str(n),
                str(args.queries),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        q = json.loads(worker.stdout.strip().splitlines()[-1])
        if n == args.check_memory:
            total, equal = check_memory(links, n, min(args.queries, 1000))
            print(
                f"{n:,}: {equal} of {total} expansions equal to the in-memory index's", flush=True
            )
        rows.append(
            (
                n,
                write_rate,
                links.stat().st_size / n,
                jsonl,
                graphs.stat().st_size / n,
                q,
                add,
                replace,
            )
        )
        print(f"{n:,}: {json.dumps(q)}", flush=True)
    print("\nwall time (CPU time of the process in brackets):\n")
    print(
        "| passages | entries written/s | B/passage: link store, JSONL, graph store | open | "
        "expand p50 / p95 | 20 graphs p50 / p95 | add 1,000 | replace 1,000 | "
        "RSS after imports → peak |"
    )
    print("|---|---|---|---|---|---|---|---|---|")

    def ms(pair):
        return f"{1000 * pair[0]:.2f} / {1000 * pair[1]:.2f}"

    for n, rate, lb, jb, gb, q, add, rep in rows:
        rate_text = f"{rate[0]:,.0f} ({rate[1]:,.0f})" if rate else "(reused)"
        print(
            f"| {n:,} | {rate_text} | {lb:.0f}, {jb:.0f}, {gb:.0f} | {1000 * q['open_s']:.1f} ms "
            f"| {ms(q['expand'])} ms ({ms(q['expand_cpu'])}) "
            f"| {ms(q['lookup'])} ms ({ms(q['lookup_cpu'])}) "
            f"| {add[0]:.3f} s ({add[1]:.3f}) | {rep[0]:.3f} s ({rep[1]:.3f}) "
            f"| {q['rss_after_imports_mib']:.0f} → {q['peak_rss_mib']:.0f} MiB |"
        )


if __name__ == "__main__":
    main()
