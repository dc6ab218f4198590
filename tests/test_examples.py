"""The example chatbots run end to end on the offline default (scripted terminal input)."""

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.models  # every test here loads the spaCy pipeline or MiniLM

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "What is the name of the fight song of the university whose main campus is in Lawrence, Kansas?\n"


def _chat(example: str, script: str) -> str:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / example / "app.py")],
        input=script,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def _cited(answer_line: str, sources: list[str]) -> set[str]:
    return {sources[int(n) - 1] for n in __import__("re").findall(r"\[(\d+)\]", answer_line)}


@pytest.mark.parametrize("example", ["langchain_chat", "llamaindex_query_engine"])
def test_terminal_chat_answers_from_a_passage_with_the_fact(example):
    out = _chat(example, QUESTION + "Who portrayed Corliss Archer in Kiss and Tell?\n\n")
    turns = out.split("\nQ: ")[1:]
    assert len(turns) == 2  # multi-turn
    first = turns[0].splitlines()
    answer = next(line for line in first if line.startswith("A: "))
    sources = [
        line.split("]", 1)[1].split("  score=")[0].strip()
        for line in first
        if line.strip().startswith("[")
    ]
    assert "[extractive answer" in answer and "Kansas Song" in answer
    assert "Kansas Song" in _cited(answer, sources)


def _example_module(example: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        f"{example}_app", ROOT / "examples" / example / "app.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def langchain_example_answers():
    """The LangChain example's retriever (its real ingest of examples/data) and extractive answer
    for the questions of issue 27's point 6."""
    from cage_core.extractive import extractive_answer
    from cage_core.metadata import chain_from_metadata

    retriever = _example_module("langchain_chat").build_retriever()

    def ask(question):
        docs = retriever.invoke(question)
        chain = chain_from_metadata([d.metadata for d in docs])
        return extractive_answer(question, [d.page_content for d in docs], chain=chain), docs

    return ask


def test_big_stone_gap_quotes_no_other_films_sentence(langchain_example_answers):
    answer, docs = langchain_example_answers(
        'The director of the romantic comedy "Big Stone Gap" is based in what New York city?'
    )
    assert "Nola (film)" in [d.metadata["title"] for d in docs]  # the distractor is retrieved
    assert {docs[i].metadata["title"] for i in answer.sources} == {"Big Stone Gap (film)"}
    assert "directed by Adriana Trigiani" in answer.sentences[0]
    assert not any("premiered in New York City" in s for s in answer.sentences)


def test_charles_mathews_father_is_answered_with_the_sentence_about_cork(langchain_example_answers):
    answer, docs = langchain_example_answers(
        "Where was the place of burial of Charles Mathew's father?"
    )
    assert "The second son of Sir James Charles Mathew" in answer.sentences[0]
    assert "Born in an Irish Catholic family in Cork" in answer.sentences[1]
    assert docs[answer.sources[1]].metadata["title"] == "James Charles Mathew"


def test_an_off_topic_question_says_that_no_passage_answers_it(langchain_example_answers):
    answer, docs = langchain_example_answers("How many instances does the iris dataset have?")
    assert len(docs) == 5 and answer.sentences == ()
    assert answer.render().endswith("(no passage answers the question)")


def test_the_llamaindex_example_checks_its_llm_before_ingesting(monkeypatch):
    pytest.importorskip("llama_index.core")
    try:
        import llama_index.llms.openai_like  # noqa: F401

        pytest.skip("llama-index-llms-openai-like is installed here")
    except ImportError:
        pass
    app = _example_module("llamaindex_query_engine")
    monkeypatch.setattr(
        app, "build_query_engine", lambda *a, **k: pytest.fail("ingested before checking the LLM")
    )
    with pytest.raises(SystemExit, match="pip install llama-index-llms-openai-like"):
        app.main(["--llm", "openai:some-model"])
