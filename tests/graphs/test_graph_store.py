"""The graph caches: in-memory LRU and the persistent SQLite store (graphs and embeddings)."""

import json
import sqlite3
import stat
import threading

import numpy as np
import pytest
from store_worker import content, graph_for

from cage_core import CageConfig, CageReranker
from cage_core.config import EncoderConfig
from cage_core.graphs.cache import GraphCache, graph_key
from cage_core.graphs.store import WRITE_BATCH_ROWS, GraphStore, default_store_path

QUERY = "Which country's capital was Marie Curie born in?"
POOL = [
    "Marie Curie was born in Warsaw. She won the Nobel Prize.",
    "Warsaw is the capital of Poland.",
    "Bananas are yellow fruit.",
]
SIMS = [0.5, 0.4, 0.1]


def _reranker(nlp, store=None, **config):
    return CageReranker(CageConfig(**config), nlp=nlp, embedder=lambda t: None, graph_store=store)


def test_memory_cache_is_bounded_lru(marie_graph):
    cache = GraphCache(2)
    for key in ("a", "b", "c"):
        cache.put(key, marie_graph)
    assert len(cache) == 2 and cache.get("a") is None and cache.get("c") is marie_graph


def test_a_passage_in_the_store_is_never_parsed_again(nlp, tmp_path):
    path = tmp_path / "g.sqlite"
    first = _reranker(nlp, str(path))
    expected = first.rerank(QUERY, POOL, query_similarities=SIMS)
    assert first.parse_count == 3
    restarted = _reranker(nlp, str(path))  # a new process would see the same file
    got = restarted.rerank(QUERY, POOL, query_similarities=SIMS)
    assert restarted.parse_count == 0
    assert got == expected  # bit-identical scores from stored graphs


def test_store_file_is_user_only(nlp, tmp_path):
    path = tmp_path / "private" / "g.sqlite"
    GraphStore(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_default_location_is_per_user(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_store_path() == tmp_path / "cage-rag" / "graphs.sqlite"


@pytest.mark.parametrize(
    "bad",
    [
        "{not json",
        json.dumps({"format": "cage-passage-graph", "version": 1}),
        "[" * 100_000 + "]" * 100_000,
    ],
)
def test_corrupt_entries_are_dropped_and_reparsed(nlp, tmp_path, caplog, bad):
    path = tmp_path / "g.sqlite"
    r = _reranker(nlp, str(path))
    expected = r.rerank(QUERY, POOL, query_similarities=SIMS)
    key = graph_key(POOL[0], r.parser.fingerprint, "light")
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE graphs SET data = ? WHERE key = ?", (bad, key))
    fresh = _reranker(nlp, str(path))
    assert fresh.rerank(QUERY, POOL, query_similarities=SIMS) == expected
    assert fresh.parse_count == 1 and "invalid" in caplog.text


def test_with_an_integrity_key_a_forged_entry_is_ignored_with_one_warning(nlp, tmp_path, caplog):
    from cage_core.graphs.passage_graph import PassageGraph

    path, secret = tmp_path / "g.sqlite", "only the serving processes know this"
    signed = CageReranker(
        nlp=nlp, embedder=lambda t: None, graph_store=GraphStore(path, integrity_key=secret)
    )
    expected = signed.rerank(QUERY, POOL, query_similarities=SIMS)
    victim, donor = (graph_key(p, signed.parser.fingerprint, "light") for p in POOL[:2])
    with sqlite3.connect(path) as conn:  # another writer: the donor's entities, the victim's sha
        rows = dict(conn.execute("SELECT key, data FROM graphs"))
        assert all('"mac":"' in data for data in rows.values())
        forged = json.loads(rows[donor])
        forged["sha"] = PassageGraph.from_stored(rows[victim]).content_sha
        del forged["mac"]
        conn.execute("UPDATE graphs SET data = ? WHERE key = ?", (json.dumps(forged), victim))
    # no key: the forged entry passes the format and freshness checks and is used
    assert GraphStore(path).get(victim).labels == PassageGraph.from_stored(rows[donor]).labels
    trusting = _reranker(nlp, str(path))
    trusting.rerank(QUERY, POOL, query_similarities=SIMS)
    assert trusting.parse_count == 0
    caplog.clear()
    keyed = CageReranker(
        nlp=nlp, embedder=lambda t: None, graph_store=GraphStore(path, integrity_key=secret)
    )
    assert keyed.rerank(QUERY, POOL, query_similarities=SIMS) == expected and keyed.parse_count == 1
    assert caplog.text.count("ignoring 1 entries without a valid MAC under the integrity key") == 1


def test_keys_depend_on_pipeline_not_on_vector_width(nlp, tmp_path):
    path = tmp_path / "g.sqlite"
    _reranker(nlp, str(path)).rerank(QUERY, POOL, query_similarities=SIMS)
    other = _reranker(nlp, str(path), encoder=EncoderConfig(vector_dim=64))
    other.rerank(QUERY, POOL, query_similarities=SIMS)
    assert other.parse_count == 0  # graphs hold no vectors: one stored graph serves every width
    assert (
        len(
            {
                graph_key("x", "a", "full"),
                graph_key("x", "b", "full"),
                graph_key("y", "b", "full"),
                graph_key("x", "a", "light"),
            }
        )
        == 4
    )


def test_memory_cache_hit_gives_bit_identical_scores(nlp):
    r = _reranker(nlp)
    a = r.rerank(QUERY, POOL, query_similarities=SIMS)
    b = r.rerank(QUERY, POOL, query_similarities=SIMS)
    assert r.parse_count == 3 and a == b


def test_embeddings_round_trip_exactly_as_float32(tmp_path):
    vectors = {
        "a": np.array([0.1, -2.5, 1e-30, 3.4e38], np.float32),
        "b": np.arange(4096, dtype=np.float64) / 3,
    }
    with GraphStore(tmp_path / "g.sqlite") as store:
        store.put_embeddings(vectors.items())
        got = store.get_embeddings(["a", "b", "missing", "a"])
    assert sorted(got) == ["a", "b"]
    assert got["a"].dtype == np.float32 and got["a"].tobytes() == vectors["a"].tobytes()
    assert np.array_equal(got["b"], vectors["b"].astype(np.float32))


def test_embeddings_are_stored_as_little_endian_float32_bytes(tmp_path):
    path = tmp_path / "g.sqlite"
    with GraphStore(path) as store:
        store.put_embeddings([("k", np.array([1.0, -0.5], np.float32))])
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT dim, data FROM embeddings").fetchall() == [
            (2, np.array([1.0, -0.5], "<f4").tobytes())
        ]


@pytest.mark.parametrize(
    ("dim", "data"),
    [
        (0, b""),  # no values
        (4097, np.zeros(4097, "<f4").tobytes()),  # wider than any supported model
        (2.5, np.zeros(2, "<f4").tobytes()),  # width not an int
        ("two", np.zeros(2, "<f4").tobytes()),
        (3, np.zeros(2, "<f4").tobytes()),  # 8 bytes for 3 values
        (2, np.array([1.0, np.nan], "<f4").tobytes()),  # not finite
        (2, "not bytes"),
    ],
)
def test_invalid_embedding_rows_are_dropped_with_a_warning(tmp_path, caplog, dim, data):
    path = tmp_path / "g.sqlite"
    with GraphStore(path) as store:
        store.put_embeddings([("good", np.ones(2, np.float32)), ("bad", np.ones(2, np.float32))])
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE embeddings SET dim = ?, data = ? WHERE key = 'bad'", (dim, data))
    with GraphStore(path) as store:
        assert list(store.get_embeddings(["good", "bad"])) == ["good"]
    assert "embedding bad is invalid" in caplog.text
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT key FROM embeddings").fetchall() == [("good",)]


@pytest.mark.parametrize(
    "vector",
    [np.ones((2, 2)), np.ones(0), np.ones(4097), np.array([1.0, np.inf]), np.array([1e39])],
)
def test_embeddings_that_could_not_be_read_back_are_refused_before_writing(tmp_path, vector):
    with GraphStore(tmp_path / "g.sqlite") as store:
        with pytest.raises(ValueError):
            store.put_embeddings([("ok", np.ones(3)), ("bad", vector)])
        assert store.get_embeddings(["ok", "bad"]) == {}


def test_a_put_larger_than_one_transaction_stores_every_entry(tmp_path):
    keys = [f"k{i}" for i in range(2 * WRITE_BATCH_ROWS + 1)]
    with GraphStore(tmp_path / "g.sqlite") as store:
        store.put_many((k, graph_for(k, 0)) for k in keys)
        assert len(store) == len(keys)
        assert content(store.get(keys[-1])) == content(graph_for(keys[-1], 0))


def test_a_briefly_locked_store_is_waited_for_without_a_warning(tmp_path, caplog):
    path = tmp_path / "g.sqlite"
    with GraphStore(path) as store:
        other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        other.execute("BEGIN IMMEDIATE")  # another process's write transaction
        threading.Timer(0.2, other.execute, ["COMMIT"]).start()
        store.put("k", graph_for("k", 0))
        assert content(store.get("k")) == content(graph_for("k", 0))
        other.close()
    assert caplog.text == ""


def test_a_store_locked_past_the_bound_degrades_to_misses_and_dropped_writes(tmp_path, caplog):
    path = tmp_path / "g.sqlite"
    with GraphStore(path) as store:
        store.put("k", graph_for("k", 0))
        store.put_embeddings([("k", np.ones(2))])
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")  # locks out readers as well as writers
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("DELETE FROM graphs WHERE key = 'nothing'")
    store = GraphStore(path, busy_timeout_s=0.01, max_attempts=2)  # opens anyway
    assert store.get("k") is None and store.get_embeddings(["k"]) == {}
    store.put("new", graph_for("new", 0))
    store.put_embeddings([("new", np.ones(2))])
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        len(store)
    assert caplog.text.count("still locked after 2 attempts") == 5  # open, 2 reads, 2 writes
    holder.execute("COMMIT")
    holder.close()
    assert content(store.get("k")) == content(graph_for("k", 0))  # works again once released
    store.put("new", graph_for("new", 0))
    assert len(store) == 2
    store.close()


def test_a_store_pickles_by_path_and_the_copy_opens_its_own_connection(tmp_path):
    import copy
    import pickle

    with GraphStore(tmp_path / "g.sqlite") as store:
        store.put("k", graph_for("k", 0))
        for clone in (pickle.loads(pickle.dumps(store)), copy.deepcopy(store)):
            assert clone.path == store.path and content(clone.get("k")) == content(
                graph_for("k", 0)
            )
            clone.close()
        assert len(store) == 1  # the original is still open


class CountingEmbedder:
    """The packaged MiniLM, recording every text it embeds."""

    def __init__(self, embedder):
        self.embedder = embedder
        self.texts = []

    def __call__(self, texts):
        self.texts.extend(texts)
        return self.embedder(texts)


def test_a_passage_is_embedded_once_per_reranker_and_once_per_store(nlp, embedder, tmp_path):
    path = str(tmp_path / "g.sqlite")
    counting = CountingEmbedder(embedder)
    first = CageReranker(nlp=nlp, embedder=counting, graph_store=path, embedder_id="minilm")
    expected = first.rerank(QUERY, POOL)
    first.rerank("Where is Warsaw?", POOL + POOL[:1])
    assert sorted(counting.texts) == sorted(POOL + [QUERY, "Where is Warsaw?"])
    again = CountingEmbedder(embedder)
    restarted = CageReranker(nlp=nlp, embedder=again, graph_store=path, embedder_id="minilm")
    assert restarted.rerank(QUERY, POOL) == expected
    assert again.texts == [QUERY]  # passages came from the store
    unnamed = CountingEmbedder(embedder)
    CageReranker(nlp=nlp, embedder=unnamed, graph_store=path).rerank(QUERY, POOL)
    assert sorted(unnamed.texts) == sorted(
        POOL + [QUERY]
    )  # no name: never shared through the store


def _no_embedding(texts):
    raise AssertionError("similarities are given")


@pytest.mark.models
def test_a_reranker_with_a_store_pickles_and_deep_copies(tmp_path):
    import copy
    import pickle

    r = CageReranker(embedder=_no_embedding, graph_store=str(tmp_path / "g.sqlite"))
    expected = r.rerank(QUERY, POOL, query_similarities=SIMS)
    for clone in (pickle.loads(pickle.dumps(r)), copy.deepcopy(r)):
        assert clone.rerank(QUERY, POOL, query_similarities=SIMS) == expected
        assert clone.parse_count == 3  # counted before the copy; nothing parsed since


def test_a_store_entry_holding_another_passages_graph_is_not_used(nlp, tmp_path):
    path = tmp_path / "g.sqlite"
    r = _reranker(nlp, str(path))
    expected = r.rerank(QUERY, POOL, query_similarities=SIMS)
    fingerprint = r.parser.fingerprint
    with sqlite3.connect(path) as conn:  # the entry of passage 0 now holds passage 1's graph
        other = conn.execute(
            "SELECT data FROM graphs WHERE key = ?", (graph_key(POOL[1], fingerprint, "light"),)
        ).fetchone()[0]
        conn.execute(
            "UPDATE graphs SET data = ? WHERE key = ?",
            (other, graph_key(POOL[0], fingerprint, "light")),
        )
    fresh = _reranker(nlp, str(path))
    assert fresh.rerank(QUERY, POOL, query_similarities=SIMS) == expected
    assert fresh.parse_count == 1
