"""Routing in ``cage eval --open --expand``: the corpus's documents and the routed pools."""

from __future__ import annotations

import numpy as np

from cage_core.eval.corpus import build_corpus
from cage_core.eval.open_routing import CorpusDocuments, RoutedPools
from cage_core.expansion.routing import RoutingSettings, route_question
from cage_core.names.routes import DocumentRoute

CHUNKS = [
    ("b1", "Birch may not assign this agreement without consent.", "birch", 1),
    ("b0", "MARKETING AFFILIATE AGREEMENT between Birch First Global and Mount Knowledge.", "birch", 0),  # noqa: E501
    ("c0", "LICENSE AGREEMENT between ConvergTV Inc and Fulucai Productions.", "conv", 0),
    ("c1", "Licensee may not assign this agreement.", "conv", 1),
    ("c2", "The term is perpetual.", "conv", 2),
    ("a0", "SUPPLY AGREEMENT between Acme Widgets and Globex Industrial.", "acme", 0),
    ("x", "A passage of no document.", None, None),
]  # fmt: skip


def corpus():  # type: ignore[no-untyped-def]
    return build_corpus(
        ((pid, "", text, doc, pos) for pid, text, doc, pos in CHUNKS), source="t", titles=False
    )


def test_each_document_is_named_by_its_first_chunk_and_lists_its_chunks() -> None:
    documents = CorpusDocuments(corpus())
    assert documents.chunks == {"birch": [0, 1], "conv": [2, 3, 4], "acme": [5]}
    birch = documents.names.document("birch")
    assert birch is not None
    assert "mount" in birch.words and "assign" not in birch.words
    assert documents.names.document_count() == 3


def test_a_routed_pool_gains_the_named_documents_best_chunks_after_its_own() -> None:
    documents = CorpusDocuments(corpus())
    route = route_question(
        "Can the agreement between Birch First Global and Mount Knowledge be assigned?",
        documents.names,
        RoutingSettings(min_score=2.0),
    )
    assert route.doc_ids == ("birch",)
    similarities = np.array([[0.9, 0.1, 0.0, 0.8, 0.0, 0.0, 0.0]])
    routed = RoutedPools.build(
        [route, DocumentRoute((), "q")], [[3, 6], [3]], documents, similarities, chunks=1
    )
    assert routed.pools == {0: [3, 6, 0]}  # b1, Birch's best chunk for the shortened question
    assert list(routed.similarities) == [0]
