"""No warning leaks and no stderr noise: ScoredVectorStoreRetriever under asyncio.gather and
threads over an L2 store whose relevance scores leave [0, 1], and a whole pipeline run in a
fresh process (real model loads) that prints nothing on stderr."""

import asyncio
import subprocess
import sys
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytestmark = pytest.mark.models  # every test here loads MiniLM (and spaCy in the subprocess)

pytest.importorskip("langchain_chroma")

from langchain_core.documents import Document
from pools import QUERY, TEXTS

from cage_langchain import (
    CageRerank,
    PackagedMiniLMEmbeddings,
    ScoredVectorStoreRetriever,
)

ROOT = Path(__file__).resolve().parents[2]
OUT_OF_RANGE = "Relevance scores must be between 0 and 1"


@pytest.fixture(scope="module")
def chroma(tmp_path_factory):
    from chromadb.config import Settings
    from langchain_chroma import Chroma

    docs = [Document(page_content=t, id=f"d{i}") for i, t in enumerate(TEXTS)]
    return Chroma.from_documents(
        docs,
        PackagedMiniLMEmbeddings(),
        collection_name="quiet",
        # a store of its own: an in-memory Chroma another test made with other settings
        # (the docs' LangChain guide runs in this process) would refuse these
        persist_directory=str(tmp_path_factory.mktemp("quiet-chroma")),
        client_settings=Settings(anonymized_telemetry=False),
    )


def test_the_store_really_gives_out_of_range_scores_that_langchain_warns_about(chroma):
    with pytest.warns(UserWarning, match=OUT_OF_RANGE):
        found = chroma.similarity_search_with_relevance_scores(QUERY, k=len(TEXTS))
    assert min(score for _, score in found) < 0  # Chroma's squared L2: 1 − d/√2 < 0


def test_scored_retriever_never_warns_under_gather_and_threads(chroma):
    retriever = ScoredVectorStoreRetriever(vectorstore=chroma, k=len(TEXTS))
    rerank = CageRerank(top_n=3)
    queries = [QUERY, "capital of France", "Who was a French physicist?"] * 10

    async def gather():
        return await asyncio.gather(*(retriever.ainvoke(q) for q in queries))

    with warnings.catch_warnings(record=True) as caught:  # the test's own, around all threads
        warnings.simplefilter("always")
        together = asyncio.run(gather())
        with ThreadPoolExecutor(8) as pool:
            threaded = list(pool.map(retriever.invoke, queries))
        sequential = [retriever.invoke(q) for q in queries]
        reranked = [rerank.compress_documents(found, q) for found, q in zip(threaded, queries)]
    assert [str(w.message)[:80] for w in caught if OUT_OF_RANGE in str(w.message)] == []
    assert together == threaded == sequential
    # the store's own relevance of these documents goes below 0 (LangChain would warn); the
    # retriever hands on their cosine instead
    distance = {d.page_content: s for d, s in chroma.similarity_search_with_score(QUERY, k=6)}
    relevance = chroma._select_relevance_score_fn()
    assert min(relevance(distance[d.page_content]) for d in together[0]) < 0
    assert all(-1 <= d.metadata["retrieval_score"] <= 1 for d in together[0])
    assert all(len(r) == 3 for r in reranked)


def test_the_score_threshold_search_kwarg_is_applied_as_langchain_does(chroma):
    """``score_threshold`` keeps the documents whose score (the cosine) reaches it."""
    everything = ScoredVectorStoreRetriever(vectorstore=chroma, k=len(TEXTS)).invoke(QUERY)
    threshold = everything[len(everything) // 2].metadata["retrieval_score"]
    retriever = ScoredVectorStoreRetriever(
        vectorstore=chroma, k=len(TEXTS), search_kwargs={"score_threshold": threshold}
    )
    found = retriever.invoke(QUERY)
    assert found == [d for d in everything if d.metadata["retrieval_score"] >= threshold]
    assert 0 < len(found) < len(everything)


def test_a_fresh_process_running_a_whole_pipeline_prints_nothing_on_stderr(capfd):
    """Models load in this process (spaCy, MiniLM): no "Loading weights" bar, no warning."""
    script = ROOT / "tests" / "quiet_pipeline.py"
    done = subprocess.run(
        [sys.executable, str(script), "quiet-pipeline"],
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        check=False,
    )
    out, err = capfd.readouterr()
    assert done.returncode == 0, err
    assert out == "2 Marie Curie was born in Warsaw.\n"
    assert err == ""
