"""The framework-free part of the expansion retrievers and of writing the link index at ingest:
the added passages' score, the seeds, the order, and the saved index shared by processes."""

import logging
import multiprocessing
from pathlib import Path

import numpy as np
import pytest
from graphs import entity_graph

from cage_core import Passage
from cage_core.expansion.contract import (
    added_score,
    expansion_metadata,
    expansions_for,
    fallback_score,
    in_expansion_order,
    load_link_index,
    validated_bound,
)
from cage_core.expansion.index import Expansion, LinkEntry, LinkIndex, LinkIndexFormatError
from cage_core.expansion.ingest import extend_saved, index_documents

FILM = (
    Passage("Kiss and Tell is a 1945 film starring Shirley Temple.", title="Kiss and Tell"),
    entity_graph(
        [("Kiss and Tell", "WORK_OF_ART"), ("1945", "DATE"), ("Shirley Temple", "PERSON")],
        light=True,
    ),
)
ACTRESS = (
    Passage("Shirley Temple served as Chief of Protocol.", title="Shirley Temple"),
    entity_graph([("Shirley Temple", "PERSON"), ("Chief of Protocol", "ORG")], light=True),
)
OTHER = (
    Passage("Janet Waldo voiced Corliss Archer on radio.", title="Janet Waldo"),
    entity_graph([("Janet Waldo", "PERSON"), ("Corliss Archer", "PERSON")], light=True),
)
QUERY = "What position did the star of Kiss and Tell hold?"


def _index():
    index = LinkIndex()
    for pid, (passage, graph) in {"film": FILM, "actress": ACTRESS, "other": OTHER}.items():
        index.add(pid, passage, graph)
    return index


def test_an_added_passage_gets_the_store_score_when_every_base_result_has_one():
    assert added_score(0.42, fallback_score([0.9, 0.5])) == 0.42


def test_without_a_store_score_an_added_passage_gets_the_lowest_base_score():
    assert fallback_score([0.9, np.float32(0.25), 0.5]) == 0.25
    assert added_score(None, fallback_score([0.9, 0.25])) == 0.25
    assert added_score(float("nan"), 0.25) == 0.25


@pytest.mark.parametrize(
    "scores", [[0.9, None], [0.9, float("inf")], [0.9, True], [0.9, "0.5"], []]
)
def test_when_a_base_result_has_no_finite_score_no_added_passage_gets_one(scores):
    assert fallback_score(scores) is None
    assert added_score(0.42, fallback_score(scores)) is None


def test_results_without_an_id_do_not_seed_and_are_logged_at_debug(caplog):
    with caplog.at_level(logging.DEBUG, logger="cage_core.expansion.contract"):
        found = expansions_for(_index(), QUERY, [None, "", "film"], seeds=1, limit=5)
    assert [(e.id, e.via, e.seed) for e in found] == [("actress", "shirley temple", "film")]
    assert "2 retrieved results have no id" in caplog.text


def test_fetched_items_keep_the_expansion_order_less_missing_ids_and_repeated_texts(caplog):
    expansions = [
        Expansion("a", "x", "s", 0.9),
        Expansion("gone", "x", "s", 0.8),
        Expansion("b", "y", "s", 0.7),
        Expansion("c", "z", "s", 0.6),
    ]
    found = {"c": "text c", "b": "text b", "a": "text a"}
    with caplog.at_level(logging.DEBUG, logger="cage_core.expansion.contract"):
        chosen = in_expansion_order(expansions, found, {"text b"}, lambda text: text)
    assert [(e.id, item) for e, item in chosen] == [("a", "text a"), ("c", "text c")]
    assert "1 linked passage ids are not in the vector store" in caplog.text
    assert "1 linked passages repeat a retrieved text" in caplog.text


def test_expansion_metadata_is_a_copy_with_the_linking_name_and_seed():
    original = {"title": "Shirley Temple", "retrieval_score": 0.1}
    out = expansion_metadata(original, Expansion("actress", "shirley temple", "film", 0.5))
    assert out == {**original, "cage_expanded_via": "shirley temple", "cage_expanded_from": "film"}
    assert original == {"title": "Shirley Temple", "retrieval_score": 0.1}


def test_a_link_index_is_given_as_an_index_or_the_path_of_a_saved_one(tmp_path):
    index = _index()
    assert load_link_index(index) is index
    index.save(tmp_path / "links.jsonl")
    loaded = load_link_index(str(tmp_path / "links.jsonl"))
    assert [e.id for e in loaded.entries()] == ["film", "actress", "other"]
    with pytest.raises(TypeError, match="LinkIndex or the path"):
        load_link_index(42)
    with pytest.raises(FileNotFoundError):
        load_link_index(tmp_path / "missing.jsonl")
    (tmp_path / "bad.jsonl").write_text('{"format": "other"}\n', encoding="utf-8")
    with pytest.raises(LinkIndexFormatError, match="not a cage link index"):
        load_link_index(tmp_path / "bad.jsonl")


@pytest.mark.parametrize("value", [-1, 1.5, True, "3", None])
def test_bounds_must_be_ints_at_least_zero(value):
    with pytest.raises(ValueError, match="seeds must be an int >= 0"):
        validated_bound("seeds", value)


def test_ingest_indexes_documents_with_ids_and_warns_once_about_the_rest(caplog):
    index = LinkIndex()
    items = [
        ("film", *FILM, {}),
        (None, *ACTRESS, {}),
        ("", *OTHER, {}),
        ("x" * 600, *OTHER, {}),
        ("\ud800", *OTHER, {}),
    ]
    with caplog.at_level(logging.WARNING, logger="cage_core.expansion.ingest"):
        assert index_documents(index, items) == 1
    assert [e.id for e in index.entries()] == ["film"]
    assert len(caplog.records) == 1 and "4 documents have no usable id" in caplog.text


def test_ingest_reads_the_subject_of_an_untitled_chunk_from_its_metadata():
    index = LinkIndex()
    untitled = Passage("She served as Chief of Protocol.")
    index_documents(
        index, [("actress", untitled, ACTRESS[1], {"source": "docs/Shirley_Temple.pdf"})]
    )
    assert index.entry("actress").keys[0] == "shirley temple"


def test_ingest_into_a_path_creates_then_extends_the_saved_index(tmp_path):
    path = tmp_path / "links.jsonl"
    assert index_documents(str(path), [("film", *FILM, {})]) == 1
    assert index_documents(path, [("actress", *ACTRESS, {}), ("film", *FILM, {})]) == 2
    assert [e.id for e in LinkIndex.load(path).entries()] == ["actress", "film"]


def test_ingest_never_overwrites_a_file_that_is_no_link_index(tmp_path):
    path = tmp_path / "notes.jsonl"
    path.write_text("my notes\n", encoding="utf-8")
    with pytest.raises(LinkIndexFormatError):
        index_documents(path, [("film", *FILM, {})])
    assert path.read_text(encoding="utf-8") == "my notes\n"


def _extend_with(path: str, worker: int) -> None:
    entries = [LinkEntry(f"w{worker}-{i}", "", (f"name {worker} {i}",), ()) for i in range(40)]
    for start in range(0, 40, 10):  # several calls per process, as batches of an ingest
        extend_saved(Path(path), entries[start : start + 10])


def test_processes_extending_one_saved_index_lose_no_entry(tmp_path):
    path = str(tmp_path / "links.jsonl")
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_extend_with, args=(path, w)) for w in range(4)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(60)
    assert [p.exitcode for p in workers] == [0, 0, 0, 0]
    assert len(LinkIndex.load(path)) == 4 * 40
