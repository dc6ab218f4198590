"""Reading stored vectors the same way for both frameworks: a store class is recognised only
when its module is loaded, and a faiss index's vectors are read at the positions a store
recorded for its ids, a Chroma collection's by id."""

import collections

import faiss
import numpy as np
import pytest

from cage_core.integrations.vector_reads import chroma_vectors, faiss_vectors, instance_of


def test_a_class_of_a_loaded_module_is_recognised_and_one_of_a_module_not_loaded_is_not():
    assert instance_of(collections.OrderedDict(), "collections", "OrderedDict")
    assert not instance_of({}, "collections", "OrderedDict")
    assert not instance_of(collections.OrderedDict(), "no_such_module_is_loaded", "OrderedDict")
    assert not instance_of(collections.OrderedDict(), "collections", "no_such_class")


def test_faiss_vectors_are_read_at_their_positions_once_per_id_and_unknown_ids_are_skipped():
    stored = np.float32([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    index = faiss.IndexFlatIP(3)
    index.add(stored)
    positions = {"a": 0, "c": 2}

    vectors = faiss_vectors(index, ["c", "b", "a", "c"], positions.get)

    assert list(vectors) == ["c", "a"]
    assert vectors["c"].dtype == np.float64
    assert vectors["c"].tolist() == [0.0, 0.0, 1.0]
    assert vectors["a"].tolist() == [1.0, 0.0, 0.0]


def test_chroma_vectors_are_the_stored_float32_vectors_of_the_ids_it_holds():
    chromadb = pytest.importorskip("chromadb")
    from chromadb.config import Settings

    client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
    collection = client.get_or_create_collection("vectors")  # the client is per process
    stored = np.random.default_rng(7).normal(size=(4, 8)).astype(np.float32)
    collection.upsert(ids=["a", "b", "c", "d"], embeddings=stored.tolist())

    vectors = chroma_vectors(collection, ["c", "gone", "a"])

    assert sorted(vectors) == ["a", "c"]
    assert vectors["c"].dtype == np.float64
    assert vectors["c"].tolist() == stored[2].astype(np.float64).tolist()
    assert vectors["a"].tolist() == stored[0].astype(np.float64).tolist()


def test_chroma_vectors_of_no_ids_are_none_read_and_of_a_non_collection_none():
    assert chroma_vectors(object(), []) == {}
    assert chroma_vectors(object(), ["a"]) is None
