"""The settings the document view reads are reachable from both wrappers, and a wrapper's knob
that cannot act on chunks of split documents says so once.

Two Markdown reports split by each framework's own splitter (LangChain's
``RecursiveCharacterTextSplitter`` with ``add_start_index``, LlamaIndex's ``SentenceSplitter``),
ingested with the wrappers' graph components and reranked with the retriever's scores for three
questions: each ``DocumentConfig`` setting, changed through
``CageRerank(config=...)``, moves one of the rankings; the wrappers' ``alpha`` and
``chain.length = 0`` move none and are logged once per process, whatever their value.
"""

from __future__ import annotations

import logging

import pytest

from cage_core import CageConfig
from cage_core.config import ChainConfig, DocumentConfig, validation

pytestmark = pytest.mark.models  # every test here parses with spaCy and embeds with MiniLM

ACME = (
    "Acme Foods Ltd. is a food company based in Leeds. It makes cereals and snacks.\n\n"
    "In March 2021 the company raised its dividend by ten percent after strong sales.\n\n"
    "The board expects costs to rise next year because of grain prices.\n\n"
    "The company opened a new plant in York in 2019 and plans another in Hull."
)
BOLT = (
    "Bolt Motors is a carmaker based in Coventry. It builds electric vans.\n\n"
    "In 2021 the company cut its dividend as chip shortages slowed production.\n\n"
    "The company plans two new models for 2023 and a plant in Wales."
)
QUESTIONS = [
    "Did Bolt Motors cut its dividend?",
    "Which company cut its dividend, and why?",
    "Where does the company plan new plants?",
]
DOCUMENT_PROBES = {
    "enabled": False,
    "document_weight": 0.0,
    "adjacent_weight": 0.0,
    "anchors": 0,
    "lexical_weight": 0.0,
}
"""Each ``DocumentConfig`` setting at a value other than its default."""


@pytest.fixture
def fresh_warnings(monkeypatch):
    """Forget the settings this process has already warned about."""
    monkeypatch.setattr(validation, "_warned", set())


def _ignored(caplog) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "cage_core.config" and "has no effect on pools with document" in r.getMessage()
    ]


# -- LangChain --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def chunks():
    pytest.importorskip("langchain_text_splitters")
    from langchain_core.documents import Document
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    from cage_langchain import CageGraphTransformer

    splitter = RecursiveCharacterTextSplitter(chunk_size=90, chunk_overlap=0, add_start_index=True)
    docs = [
        Document(ACME, metadata={"source": "acme.md"}),
        Document(BOLT, metadata={"source": "bolt.md"}),
    ]
    out = splitter.split_documents(docs)
    for n, chunk in enumerate(out):
        chunk.id = f"c{n}"
    return CageGraphTransformer().transform_documents(out)  # graphs parsed once, at ingest


@pytest.fixture(scope="module")
def retrieved(chunks, reranker):
    """Per question, the chunks with the retriever's score (MiniLM's cosine), as
    ``ScoredVectorStoreRetriever`` hands them on."""
    out = []
    for q in QUESTIONS:
        sims = reranker.similarities(q, [c.page_content for c in chunks])
        out.append(
            [
                c.model_copy(update={"metadata": {**c.metadata, "retrieval_score": float(s)}})
                for c, s in zip(chunks, sims)
            ]
        )
    return out


def _langchain_rankings(retrieved, **settings) -> list[list[str]]:
    from cage_langchain import CageRerank

    rerank = CageRerank(top_n=None, **settings)
    return [
        [d.id for d in rerank.compress_documents(docs, q)] for q, docs in zip(QUESTIONS, retrieved)
    ]


@pytest.fixture(scope="module")
def langchain_default(retrieved) -> list[list[str]]:
    return _langchain_rankings(retrieved)


@pytest.mark.parametrize("name", sorted(DOCUMENT_PROBES))
def test_each_document_setting_given_to_langchain_moves_a_ranking_of_split_documents(
    retrieved, langchain_default, name
):
    config = CageConfig(document=DocumentConfig(**{name: DOCUMENT_PROBES[name]}))
    assert _langchain_rankings(retrieved, config=config) != langchain_default


def test_langchain_alpha_and_chain_length_leave_split_documents_alone_and_say_so_once(
    retrieved, langchain_default, caplog, fresh_warnings
):
    with caplog.at_level(logging.WARNING, logger="cage_core.config"):
        assert _langchain_rankings(retrieved, alpha=0.9) == langchain_default
        assert _langchain_rankings(retrieved, alpha=0.1) == langchain_default
        nochain = CageConfig(chain=ChainConfig(length=0))
        assert _langchain_rankings(retrieved, config=nochain) == langchain_default
    ignored = _ignored(caplog)
    assert len(ignored) == 2, ignored
    assert ignored[0].startswith("CageConfig: alpha=0.9 has no effect on pools with document")
    assert ignored[1].startswith("CageConfig: chain.length=0 has no effect on pools with")
    assert all("document.*" in m for m in ignored)


# -- LlamaIndex -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def nodes():
    pytest.importorskip("llama_index.core")
    from llama_index.core import Document
    from llama_index.core.node_parser import SentenceSplitter

    from cage_llamaindex import CageGraphExtractor

    splitter = SentenceSplitter(chunk_size=24, chunk_overlap=0)
    docs = [Document(text=ACME, id_="acme.md"), Document(text=BOLT, id_="bolt.md")]
    return CageGraphExtractor()(splitter.get_nodes_from_documents(docs))  # graphs at ingest


@pytest.fixture(scope="module")
def scored(nodes, reranker):
    """Per question, the nodes with the retriever's score (MiniLM's cosine)."""
    from llama_index.core.schema import NodeWithScore

    out = []
    for q in QUESTIONS:
        sims = reranker.similarities(q, [n.get_content() for n in nodes])
        out.append([NodeWithScore(node=n, score=float(s)) for n, s in zip(nodes, sims)])
    return out


def _llamaindex_rankings(scored, **settings) -> list[list[str]]:
    from cage_llamaindex import CageRerank

    rerank = CageRerank(top_n=None, **settings)
    return [
        [n.node.node_id for n in rerank.postprocess_nodes(pool, query_str=q)]
        for q, pool in zip(QUESTIONS, scored)
    ]


@pytest.fixture(scope="module")
def llamaindex_default(scored) -> list[list[str]]:
    return _llamaindex_rankings(scored)


@pytest.mark.parametrize("name", sorted(DOCUMENT_PROBES))
def test_each_document_setting_given_to_llamaindex_moves_a_ranking_of_split_documents(
    scored, llamaindex_default, name
):
    config = CageConfig(document=DocumentConfig(**{name: DOCUMENT_PROBES[name]}))
    assert _llamaindex_rankings(scored, config=config) != llamaindex_default


def test_llamaindex_alpha_leaves_split_documents_alone_and_says_so_once(
    scored, llamaindex_default, caplog, fresh_warnings
):
    with caplog.at_level(logging.WARNING, logger="cage_core.config"):
        assert _llamaindex_rankings(scored, alpha=0.9) == llamaindex_default
        assert _llamaindex_rankings(scored, alpha=0.1) == llamaindex_default
    ignored = _ignored(caplog)
    assert len(ignored) == 1 and ignored[0].startswith("CageConfig: alpha=0.9 has no effect")


# -- a method that sets its own alpha ---------------------------------------------------------
def test_a_wrappers_alpha_that_its_method_replaces_is_logged_once(caplog, fresh_warnings):
    pytest.importorskip("langchain_core")
    pytest.importorskip("llama_index.core")
    from cage_langchain import CageRerank as LangChainRerank
    from cage_llamaindex import CageRerank as LlamaIndexRerank

    with caplog.at_level(logging.WARNING, logger="cage_core.config"):
        assert LangChainRerank(alpha=0.5, method="paper").reranker.method.config.alpha == 0.7
        assert LlamaIndexRerank(alpha=0.4, method="paper").reranker.method.config.alpha == 0.7
        assert LangChainRerank(alpha=0.5, method="cage-contra").reranker.method.config.alpha == 0.5
    assert [r.getMessage() for r in caplog.records] == [
        "CageReranker: alpha=0.5 has no effect with method='paper', which sets its own or "
        "reads none; it acts with method='cage'"
    ]
