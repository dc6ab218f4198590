"""Chroma's distances computed from stored vectors equal Chroma's own query distances, in each
of its three spaces (cage_core.integrations.chroma_vectors)."""

import itertools

import numpy as np
import pytest

chromadb = pytest.importorskip("chromadb")

from cage_core.integrations.chroma_vectors import chroma_distances, chroma_space

VECTORS = np.random.default_rng(7).normal(size=(12, 8)).astype(np.float32)
IDS = [f"chunk-{i}" for i in range(12)]
QUERY = np.random.default_rng(8).normal(size=8).astype(np.float32)
_CREATED = itertools.count()


def _collection(space):
    from chromadb.config import Settings

    client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
    collection = client.create_collection(  # the ephemeral client is shared per process
        f"vectors-{space}-{next(_CREATED)}", configuration={"hnsw": {"space": space}}
    )
    collection.add(ids=IDS, embeddings=VECTORS.tolist())
    return collection


@pytest.mark.parametrize("space", ["l2", "cosine", "ip"])
def test_distances_from_stored_vectors_are_chromas_own(space):
    collection = _collection(space)
    assert chroma_space(collection) == space
    chosen = IDS[2:7]
    got = chroma_distances(collection, QUERY, chosen)
    own = collection.query(
        query_embeddings=[QUERY.tolist()], n_results=len(chosen), ids=chosen, include=["distances"]
    )
    expected = dict(zip(own["ids"][0], own["distances"][0]))
    assert sorted(got) == sorted(chosen)
    assert [got[i] for i in chosen] == pytest.approx([expected[i] for i in chosen], abs=1e-5)


def test_an_id_the_collection_lacks_gets_no_distance():
    got = chroma_distances(_collection("l2"), QUERY, ["chunk-1", "gone"])
    assert list(got) == ["chunk-1"]


def test_an_unknown_space_or_a_non_collection_gives_none():
    class Odd:
        configuration = {"hnsw": {"space": "hamming"}}

    assert chroma_space(Odd()) is None and chroma_distances(Odd(), QUERY, IDS) is None
    assert chroma_distances(object(), QUERY, IDS) is None
