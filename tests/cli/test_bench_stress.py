"""Long run: 2,000 consecutive queries with a bounded graph cache (run with --run-stress).

Prints the resident-memory growth between query 200 and query 2,000 and checks that it
stays under 50 MB and that no file descriptors leak.
"""

import os
import resource

import pytest

from cage_core import CageConfig, CageReranker
from cage_core.cli.bench import demo_corpus

pytestmark = pytest.mark.models  # every test here loads the spaCy pipeline or MiniLM

QUERIES = 2000
POOL = 5


def _rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


@pytest.mark.stress
def test_two_thousand_queries_settle_in_memory(nlp, embedder, tmp_path, capsys):
    questions, corpus = demo_corpus()
    store = tmp_path / "graphs.sqlite"
    r = CageReranker(
        CageConfig(graph_cache_size=256), nlp=nlp, embedder=embedder, graph_store=str(store)
    )
    fds_before = len(os.listdir("/proc/self/fd"))
    rss = {}
    for q in range(QUERIES):
        # two passages new to the process per query, three seen before
        pool = [
            f"{corpus[(q + j) % len(corpus)][:300]} (revision {q if j < 2 else j})"
            for j in range(POOL)
        ]
        out = r.rerank(
            questions[q % len(questions)],
            pool,
            top_n=3,
            query_similarities=[0.9, 0.7, 0.5, 0.3, 0.1],
        )
        assert len(out) == 3
        if q + 1 in (200, QUERIES):
            rss[q + 1] = _rss_mb()
    growth = rss[QUERIES] - rss[200]
    fds_after = len(os.listdir("/proc/self/fd"))
    with capsys.disabled():
        print(
            f"\nstress: RSS at query 200 {rss[200]:.1f} MB, at {QUERIES} {rss[QUERIES]:.1f} MB, "
            f"growth {growth:.1f} MB; open fds {fds_before} -> {fds_after}; "
            f"graphs in memory {len(r.graph_cache)}, in store {len(r.graph_store)}, "
            f"parsed {r.parse_count}"
        )
    assert len(r.graph_cache) <= 256
    assert growth < 50
    assert fds_after <= fds_before + 1  # the store's WAL file may open once
