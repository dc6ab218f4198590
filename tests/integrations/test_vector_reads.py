"""Reading stored vectors the same way for both frameworks: a store class is recognised only
when its module is loaded, and a faiss index's vectors are read at the positions a store
recorded for its ids."""

import collections

import faiss
import numpy as np

from cage_core.integrations.vector_reads import faiss_vectors, instance_of


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
