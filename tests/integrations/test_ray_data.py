"""Ray Data enrichment and batch reranking give exactly the in-process results
(local Ray, 2 CPUs)."""

import json

import pytest

from cage_core import CageReranker
from cage_core.integrations.ray_data import BatchReranker, GraphEnricher

pytestmark = pytest.mark.models  # every test here loads the spaCy pipeline or MiniLM

ray = pytest.importorskip("ray")

ROWS = [
    {
        "title": "Kiss and Tell (1945 film)",
        "text": "Kiss and Tell is a 1945 comedy starring Shirley Temple.",
    },
    {"title": "Shirley Temple", "text": "Shirley Temple later served as Chief of Protocol."},
    {"title": "Banana", "text": "Bananas are yellow fruit rich in potassium."},
    {"title": "Warsaw", "text": "Warsaw is the capital of Poland."},
    {"title": "Marie Curie", "text": "Marie Curie was born in Warsaw. She won the Nobel Prize."},
    {"title": "", "text": ""},
]
POOLS = [
    {
        "query": "Who starred in Kiss and Tell?",
        "passages": [r["text"] for r in ROWS[:4]],
        "similarities": [0.7, 0.2, 0.05, 0.1],
    },
    {
        "query": "Where was Marie Curie born?",
        "passages": [r["text"] for r in ROWS[2:]],
        "similarities": [0.1, 0.4, 0.8, 0.0],
    },
]


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_ray_enrichment_equals_in_process(local_ray):
    expected = GraphEnricher()(
        {"text": [r["text"] for r in ROWS], "title": [r["title"] for r in ROWS]}
    )
    ds = ray.data.from_items(ROWS).map_batches(
        GraphEnricher, concurrency=2, batch_size=2, batch_format="pandas", num_cpus=0.5
    )
    got = sorted(ds.take_all(), key=lambda r: ROWS.index({"title": r["title"], "text": r["text"]}))
    assert [r["cage_graph"] for r in got] == expected["cage_graph"]
    graph = json.loads(got[4]["cage_graph"])
    assert graph["format"] == "cage-passage-graph" and graph["level"] == "light"
    assert ["Marie Curie", "X", "PERSON"] in graph["nodes"]


def test_a_keyed_enricher_on_ray_signs_its_graphs_and_a_keyed_batch_reranker_uses_them(
    local_ray, nlp
):
    from cage_core.graphs.integrity import verified
    from cage_core.graphs.passage_graph import PassageGraph

    key = "a secret the rerankers share"
    untitled = [{"title": "", "text": r["text"]} for r in ROWS[:4]]  # as the pool passes them
    ds = ray.data.from_items(untitled).map_batches(
        GraphEnricher,
        fn_constructor_kwargs={"integrity_key": key},
        concurrency=1,
        batch_size=2,
        batch_format="pandas",
        num_cpus=0.5,
    )
    signed = {r["text"]: r["cage_graph"] for r in ds.take_all()}
    texts = [r["text"] for r in ROWS[:4]]
    assert all(
        verified(PassageGraph.from_stored(signed[t]), signed[t], key.encode()) for t in texts
    )
    batch = {k: [v] for k, v in POOLS[0].items()}
    batch["graphs"] = [[signed[t] for t in POOLS[0]["passages"]]]
    expected = BatchReranker()({k: list(v) for k, v in batch.items() if k != "graphs"})
    for reranker_key, parsed in ((key, 0), ("another key", 4)):  # a failed MAC: parsed again
        reranker = BatchReranker(integrity_key=reranker_key)
        got = reranker({k: list(v) for k, v in batch.items()})
        assert reranker.reranker.parse_count == parsed
        assert list(got["ranking"][0]) == list(expected["ranking"][0])


@pytest.mark.parametrize(
    "row, message",
    [
        ({"query": None, "passages": ["Warsaw is the capital of Poland."]}, "query must be a str"),
        ({"query": "Where?", "passages": ["Warsaw.", None]}, r"passages\[1\] is a NoneType"),
    ],
)
def test_a_missing_cell_is_a_type_error_not_the_text_none(row, message):
    batch = {column: [value] for column, value in row.items()}
    with pytest.raises(TypeError, match=message):
        BatchReranker()(batch)


def test_a_missing_text_to_enrich_is_a_type_error_not_the_text_none():
    with pytest.raises(TypeError, match="Passage.text must be a str, got NoneType"):
        GraphEnricher()({"text": ["Warsaw is the capital of Poland.", None]})


def test_ray_batch_reranking_equals_in_process(local_ray, nlp):
    ds = ray.data.from_items(POOLS).map_batches(
        BatchReranker, concurrency=1, batch_size=1, batch_format="pandas", num_cpus=0.5
    )
    got = sorted(ds.take_all(), key=lambda r: r["query"])
    core = CageReranker(nlp=nlp, embedder=lambda t: None)
    for row in got:
        pool = next(p for p in POOLS if p["query"] == row["query"])
        ranked = core.rerank(
            pool["query"], pool["passages"], query_similarities=pool["similarities"]
        )
        assert list(row["ranking"]) == [r.index for r in ranked]
        assert list(row["scores"]) == [r.score for r in ranked]


def test_enrich_cli_local_fills_a_store_that_starts_a_reranker_warm(tmp_path, nlp):
    import io

    from cage_core.cli.commands import main

    src, dst, store = tmp_path / "in.jsonl", tmp_path / "out.parquet", tmp_path / "g.sqlite"
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    out = io.StringIO()
    assert (
        main(
            [
                "enrich",
                "-i",
                str(src),
                "-o",
                str(dst),
                "--graph-store",
                str(store),
                "--no-progress",
            ],
            out=out,
        )
        == 0
    )
    assert "enriched 6 passages" in out.getvalue() and "stored 6 graphs" in out.getvalue()
    import pyarrow.parquet as pq

    assert pq.read_table(dst).column_names == ["title", "text", "cage_graph"]
    from cage_core import Passage

    warm = CageReranker(nlp=nlp, embedder=lambda t: None, graph_store=str(store))
    warm.rerank(
        "q", [Passage(r["text"], title=r["title"]) for r in ROWS], query_similarities=[0.1] * 6
    )
    assert warm.parse_count == 0


def test_enrich_cli_on_ray_keeps_order_and_equals_in_process(local_ray, tmp_path):
    import io

    from cage_core.cli.commands import main

    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    assert (
        main(
            [
                "enrich",
                "-i",
                str(src),
                "-o",
                str(tmp_path / "local.jsonl"),
                "--no-progress",
                "--link-index",
                str(tmp_path / "local.links.jsonl"),
            ],
            out=io.StringIO(),
        )
        == 0
    )
    assert (
        main(
            [
                "enrich",
                "-i",
                str(src),
                "-o",
                str(tmp_path / "ray.jsonl"),
                "--no-progress",
                "--ray-address",
                "local",
                "--workers",
                "2",
                "--batch-size",
                "2",
                "--link-index",
                str(tmp_path / "ray.links.jsonl"),
            ],
            out=io.StringIO(),
        )
        == 0
    )
    assert (tmp_path / "ray.jsonl").read_text() == (tmp_path / "local.jsonl").read_text()
    assert (tmp_path / "ray.links.jsonl").read_text() == (
        tmp_path / "local.links.jsonl"
    ).read_text()
