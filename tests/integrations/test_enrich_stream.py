"""``cage enrich`` streams batches into its sinks and resumes a stopped run from its stores.

No model is loaded: every passage's graph is in the graph store already (as a stopped run
leaves it), so a parse would fail the test (conftest refuses to load spaCy here).
"""

from __future__ import annotations

import io
import json
from dataclasses import replace

import pytest
from link_corpus import corpus, recount, stored_counts

from cage_core.cli.commands import main
from cage_core.expansion.index import LinkIndex
from cage_core.expansion.ingest import link_entries, write_link_partition
from cage_core.graphs.cache import graph_key
from cage_core.graphs.service import PassageGraphs
from cage_core.graphs.store import GraphStore

N = 45
BATCH = 7  # batches that do not divide N


@pytest.fixture
def stopped_run(tmp_path):
    """Input rows, and the stores a run over them left when it stopped: every graph stored,
    the link entries of the first 20 rows written."""
    fingerprint = PassageGraphs().fingerprint  # from the pipeline's meta.json: no spaCy load
    rows, enriched = [], []
    with GraphStore(tmp_path / "graphs.sqlite") as store:
        for pid, (passage, graph) in corpus(N).items():
            graph = replace(graph, source=fingerprint)
            store.put(graph_key(passage.content, fingerprint, "light"), graph)
            row = {"id": pid, "title": passage.title, "text": passage.text}
            rows.append(row)
            enriched.append({**row, "cage_graph": graph.to_text()})
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    write_link_partition(tmp_path / "links.sqlite", enriched[:20])
    return tmp_path, enriched


def enrich(folder, output, *extra):
    out = io.StringIO()
    args = [
        "enrich",
        "-i",
        str(folder / "in.jsonl"),
        "-o",
        str(folder / output),
        "--graph-store",
        str(folder / "graphs.sqlite"),
        "--batch-size",
        str(BATCH),
        "--no-progress",
        *extra,
    ]
    assert main(args, out=out) == 0
    return out.getvalue()


def test_rerunning_a_stopped_run_completes_the_link_store_without_parsing_or_duplicates(
    stopped_run,
):
    folder, enriched = stopped_run
    printed = enrich(folder, "out.jsonl", "--link-index", str(folder / "links.sqlite"))
    assert (
        f"wrote {N} link entries to the link store" in printed and f"holds {N} passages" in printed
    )
    store = LinkIndex.open(folder / "links.sqlite")
    expected = LinkIndex()
    expected.add_entries(link_entries(enriched))
    assert sorted(store.entries(), key=lambda e: e.id) == sorted(
        expected.entries(), key=lambda e: e.id
    )
    assert stored_counts(folder / "links.sqlite") == recount(expected)
    written = [json.loads(line) for line in (folder / "out.jsonl").read_text().splitlines()]
    assert written == enriched  # in input order, the stored graphs


def test_the_default_link_store_lives_next_to_the_graph_store(stopped_run):
    folder, _ = stopped_run
    enrich(folder, "out.jsonl", "--link-index")
    assert len(LinkIndex.open(folder / "graphs.links.sqlite")) == N


def test_parquet_output_is_written_batch_by_batch_and_reads_back_whole(stopped_run):
    pq = pytest.importorskip("pyarrow.parquet")
    folder, enriched = stopped_run
    enrich(folder, "out.parquet")
    assert pq.ParquetFile(folder / "out.parquet").metadata.num_row_groups == -(-N // BATCH)
    assert pq.read_table(folder / "out.parquet").to_pylist() == enriched
    # Parquet in, too: the rows stream from it in batches
    pq.write_table(
        pq.read_table(folder / "out.parquet").drop(["cage_graph"]), folder / "in.parquet"
    )
    out = io.StringIO()
    assert (
        main(
            [
                "enrich",
                "-i",
                str(folder / "in.parquet"),
                "-o",
                str(folder / "again.jsonl"),
                "--graph-store",
                str(folder / "graphs.sqlite"),
                "--batch-size",
                "10",
                "--no-progress",
            ],
            out=out,
        )
        == 0
    )
    again = [json.loads(line) for line in (folder / "again.jsonl").read_text().splitlines()]
    assert again == enriched


def test_a_json_lines_link_index_still_refuses_a_repeated_id(stopped_run):
    folder, _ = stopped_run
    rows = (folder / "in.jsonl").read_text().splitlines()
    (folder / "in.jsonl").write_text("\n".join([*rows, rows[0]]) + "\n")
    out = io.StringIO()
    code = main(
        [
            "enrich",
            "-i",
            str(folder / "in.jsonl"),
            "-o",
            str(folder / "o.jsonl"),
            "--graph-store",
            str(folder / "graphs.sqlite"),
            "--no-progress",
            "--link-index",
            str(folder / "l.jsonl"),
        ],
        out=out,
    )
    assert code == 2


KEY = "a secret the rerankers share"


def test_a_signed_run_signs_every_graph_and_reads_only_graphs_signed_under_its_key(
    tmp_path, monkeypatch
):
    fingerprint = PassageGraphs().fingerprint
    rows, passages = [], []
    with GraphStore(tmp_path / "graphs.sqlite", integrity_key=KEY) as store:  # signed entries
        for pid, (passage, graph) in corpus(12).items():
            store.put(
                graph_key(passage.content, fingerprint, "light"), replace(graph, source=fingerprint)
            )
            rows.append({"id": pid, "title": passage.title, "text": passage.text})
            passages.append(passage)
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    monkeypatch.setenv("CAGE_TEST_KEY", KEY)
    enrich(tmp_path, "out.jsonl", "--integrity-key-env", "CAGE_TEST_KEY")  # nothing parsed
    column = [
        json.loads(line)["cage_graph"] for line in (tmp_path / "out.jsonl").read_text().splitlines()
    ]
    service = PassageGraphs()
    assert all(g is not None for g in service.stored(column, passages, integrity_key=KEY))
    assert service.stored(column, passages, integrity_key="another key") == [None] * 12


def test_a_signed_run_does_not_trust_a_store_written_without_its_key(stopped_run, monkeypatch):
    folder, _ = stopped_run  # its graphs were stored unsigned: each passage is parsed again
    monkeypatch.setenv("CAGE_TEST_KEY", KEY)
    with pytest.raises(AssertionError, match="loads a model"):  # conftest: no model here
        enrich(folder, "out.jsonl", "--integrity-key-env", "CAGE_TEST_KEY")


def test_an_unset_key_variable_is_a_clear_error(stopped_run, monkeypatch, capsys):
    folder, _ = stopped_run
    monkeypatch.delenv("CAGE_TEST_KEY", raising=False)
    code = main(
        [
            "enrich",
            "-i",
            str(folder / "in.jsonl"),
            "-o",
            str(folder / "o.jsonl"),
            "--integrity-key-env",
            "CAGE_TEST_KEY",
            "--no-progress",
        ]
    )
    assert code == 2
    assert "CAGE_TEST_KEY: the environment variable is unset or empty" in capsys.readouterr().err
    assert not (folder / "o.jsonl").exists()
