"""What a routed pool carries from the expansion retrievers to the rerankers
(cage_core.integrations.document_routing): the route, read back only for its own question and
only when well formed, and the metadata equalities that select one document's chunks."""

import math

import numpy as np
import pytest

from cage_core.integrations.document_routing import (
    NAMED_DOCUMENT_KEY,
    ROUTE_KEY,
    ROUTE_SCORE_KEY,
    document_conditions,
    is_chunk_of,
    named_metadata,
    pool_route,
    route_from_metadata,
    route_metadata,
    route_similarities,
)
from cage_core.metadata import EXPANDED_VIA_KEY
from cage_core.names.routes import DocumentRoute, NamedDocument

ASKED = (
    "Consider the Distribution Agreement between Birch Inc. and Mount Inc.; is consent required?"
)
BIRCH = NamedDocument("contracts/birch.txt", "Birch Mount", 11.8, ("birch", "mount"))
ROUTE = DocumentRoute(
    (BIRCH,), "Consider the Distribution Agreement between Inc. and Inc.; is consent required?"
)


def test_a_route_round_trips_through_json_safe_metadata():
    import json

    stored = json.loads(json.dumps(route_metadata(ASKED, ROUTE)))
    assert stored == {
        "asked": ASKED,
        "question": ROUTE.question,
        "documents": [
            {
                "doc_id": "contracts/birch.txt",
                "name": "Birch Mount",
                "score": 11.8,
                "naming_words": ["birch", "mount"],
            }
        ],
    }
    assert route_from_metadata(stored, ASKED) == ROUTE


def test_a_route_asked_for_another_question_is_no_route():
    assert route_from_metadata(route_metadata(ASKED, ROUTE), "Is consent required?") is None


@pytest.mark.parametrize(
    "change",
    [
        {"question": ""},
        {"question": 3},
        {"documents": []},
        {"documents": "contracts/birch.txt"},
        {"documents": [{"doc_id": "", "name": "", "score": 1.0, "naming_words": ["birch"]}]},
        {"documents": [{"doc_id": "d", "name": "", "score": math.nan, "naming_words": ["x"]}]},
        {"documents": [{"doc_id": "d", "name": "", "score": True, "naming_words": ["x"]}]},
        {"documents": [{"doc_id": "d", "name": "", "score": 1.0, "naming_words": []}]},
        {"documents": [{"doc_id": "d", "name": "", "score": 1.0, "naming_words": [7]}]},
        {"documents": [{"doc_id": "d", "name": "x" * 201, "score": 1.0, "naming_words": ["x"]}]},
        {"documents": [{"doc_id": "d", "name": "", "score": 1.0, "naming_words": ["x"]}] * 2},
    ],
)
def test_a_malformed_route_is_no_route(change):
    assert route_from_metadata({**route_metadata(ASKED, ROUTE), **change}, ASKED) is None


def test_the_pools_route_is_the_first_well_formed_one_for_the_query():
    metadatas = [
        {},
        {ROUTE_KEY: "not a route"},
        {ROUTE_KEY: route_metadata("another question", ROUTE)},
        {ROUTE_KEY: route_metadata(ASKED, ROUTE)},
    ]
    assert pool_route(metadatas, ASKED) == ROUTE
    assert pool_route(metadatas[:3], ASKED) is None
    assert pool_route([], ASKED) is None


def test_route_similarities_need_a_finite_score_on_every_passage():
    scores = [{ROUTE_SCORE_KEY: 0.5}, {ROUTE_SCORE_KEY: np.float32(0.25)}]
    assert route_similarities(scores).tolist() == [0.5, 0.25]
    assert route_similarities([*scores, {}]) is None
    assert route_similarities([*scores, {ROUTE_SCORE_KEY: math.inf}]) is None
    assert route_similarities([]) is None


def test_a_named_documents_passage_says_why_it_is_there():
    out = named_metadata({"source": "contracts/birch.txt"}, "contracts/birch.txt", ROUTE)
    assert out[EXPANDED_VIA_KEY] == (
        "the question names its document: Birch Mount (named by birch mount)"
    )
    assert out[NAMED_DOCUMENT_KEY] == "contracts/birch.txt"
    assert named_metadata({"a": 1}, "contracts/cedar.txt", ROUTE) == {"a": 1}
    assert named_metadata({"a": 1}, None, ROUTE) == {"a": 1}


@pytest.mark.parametrize(
    ("metadata", "doc_id", "conditions"),
    [
        ({"source": "c/birch.txt", "start_index": 0}, "c/birch.txt", (("source", "c/birch.txt"),)),
        (
            {"source": "corpus.jsonl", "title": "Birch"},
            "corpus.jsonl#Birch",
            (("source", "corpus.jsonl"), ("title", "Birch")),
        ),
        ({"doc_id": "b1", "source": "c/birch.txt"}, "b1", (("doc_id", "b1"),)),
        ({"document_id": 7}, "7", (("document_id", 7),)),
        (
            {"file_path": "/data/birch.pdf", "title": "  "},
            "/data/birch.pdf",
            (("file_path", "/data/birch.pdf"),),
        ),
        ({"source": ""}, "", None),
        ({"source": "c/cedar.txt"}, "c/birch.txt", None),
        ({"doc_id": "b1", "source": "c/birch.txt"}, "c/birch.txt", None),
        ({}, "c/birch.txt", None),
    ],
)
def test_document_conditions_follow_the_ingest_rule(metadata, doc_id, conditions):
    assert document_conditions(metadata, doc_id, "title") == conditions
    if conditions is not None:
        assert is_chunk_of(metadata, doc_id, "title")


def test_a_chunk_is_of_a_document_by_the_frameworks_own_id_first():
    assert is_chunk_of({"source": "c/birch.txt"}, "ref-1", "title", own_doc_id="ref-1")
    assert not is_chunk_of({"source": "c/birch.txt"}, "c/birch.txt", "title", own_doc_id="ref-1")
    assert not is_chunk_of({"doc_id": "b1", "source": "c/birch.txt"}, "c/birch.txt", "title")
