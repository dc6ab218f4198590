"""Shared, session-scoped real models: the spaCy pipeline and MiniLM load once per run."""

from __future__ import annotations

import re

import pytest

from cage_core import CageReranker
from cage_core.graphs.parse import GraphParser
from cage_core.models import default_embedder, load_spacy


def pytest_addoption(parser):
    parser.addoption("--run-stress", action="store_true", help="run the long stress tests")


MODEL_FIXTURES = frozenset({"nlp", "parser", "embedder", "reranker", "marie_graph"})
"""Fixtures that load a model: a test using one is marked ``models`` automatically."""


def pytest_ignore_collect(collection_path, config):
    """Under ``-m "not models"``, skip importing the modules whose every test loads a model
    (they declare ``pytestmark = pytest.mark.models``): their imports (LangChain,
    LlamaIndex, Chroma, Ray) are most of the fast loop's time otherwise."""
    if "not models" not in (config.option.markexpr or "") or collection_path.suffix != ".py":
        return None
    source = collection_path.read_text(encoding="utf-8")
    return True if re.search(r"^pytestmark = \[?pytest\.mark\.models\b", source, re.M) else None


def pytest_collection_modifyitems(config, items):
    for item in items:
        if MODEL_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.models)
    if config.getoption("--run-stress"):
        return
    skip = pytest.mark.skip(reason="stress test: run with --run-stress")
    for item in items:
        if "stress" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _models_only_in_tests_marked_models(request, monkeypatch):
    """A test not marked ``models`` that loads the spaCy pipeline or MiniLM fails, so
    ``-m 'not models'`` really is the model-free suite."""
    if "models" in request.node.keywords:
        return
    import cage_core.models as models

    def refuse(*args, **kwargs):
        raise AssertionError(
            "this test loads a model: mark it @pytest.mark.models (or use a model fixture)"
        )

    monkeypatch.setattr(models, "_spacy_cache", {})
    monkeypatch.setattr(models, "_embedder_cache", {})
    monkeypatch.setattr(models, "_try_load_spacy", refuse)
    monkeypatch.setattr(models, "_load_minilm", refuse)


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
