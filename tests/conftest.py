"""Shared, session-scoped real models: the spaCy pipeline and MiniLM load once per run."""

from __future__ import annotations

import pytest

from cage_core import CageReranker
from cage_core.graph.build import GraphParser
from cage_core.models import default_embedder, load_spacy


def pytest_addoption(parser):
    parser.addoption("--run-stress", action="store_true", help="run the long stress tests")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--run-stress"):
        return
    skip = pytest.mark.skip(reason="stress test: run with --run-stress")
    for item in items:
        if "stress" in item.keywords:
            item.add_marker(skip)


MARIE = "Marie Curie was born in Warsaw. She won the Nobel Prize."


@pytest.fixture(scope="session")
def nlp():
    return load_spacy()


@pytest.fixture(scope="session")
def parser(nlp):
    return GraphParser(nlp)


@pytest.fixture(scope="session")
def embedder():
    return default_embedder()


@pytest.fixture(scope="session")
def reranker(nlp, embedder):
    return CageReranker(nlp=nlp, embedder=embedder)


@pytest.fixture(scope="session")
def marie_graph(parser):
    return parser.with_vectors(parser.parse([MARIE]))[0]
