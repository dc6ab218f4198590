"""The example chatbots run end to end on the offline default (scripted terminal input)."""

import io
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.models  # every test here loads the spaCy pipeline or MiniLM

ROOT = Path(__file__).resolve().parents[2]
QUESTION = (
    "What is the name of the fight song of the university whose main campus is in "
    "Lawrence, Kansas?\n"
)


def _chat(example: str, script: str, *args: str) -> str:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / example / "app.py"), *args],
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


SAMPLE_DOCS = ROOT / "examples" / "sample_docs"


def _turns(out: str) -> list[tuple[str, list[str]]]:
    """Each turn's answer line and its sources (``file › heading``)."""
    turns = []
    for turn in out.split("\nQ: ")[1:]:
        lines = turn.splitlines()
        answer = next(line for line in lines if line.startswith("A: "))
        sources = [
            line.split("]", 1)[1].split("  score=")[0].strip()
            for line in lines
            if line.strip().startswith("[")
        ]
        turns.append((answer, sources))
    return turns


def _run(example: str, script: str, argv: list[str], monkeypatch, capsys) -> str:
    """The example's ``main`` run in this process (the models load once for all tests)."""
    app = _example_module(example)
    monkeypatch.setattr("sys.stdin", io.StringIO(script))
    capsys.readouterr()
    assert app.main(argv) == 0
    return capsys.readouterr().out


def _consistent(store: Path) -> list[str]:
    """The ids in the store's Chroma collection, after checking that the link index holds
    exactly them (and, for LangChain, the record manager too)."""
    import chromadb
    from chromadb.config import Settings

    from cage_core.expansion.index import LinkIndex

    client = chromadb.PersistentClient(
        path=str(store / "chroma"), settings=Settings(anonymized_telemetry=False)
    )
    ids = sorted(client.get_collection("cage-chat").get(include=[])["ids"])
    with LinkIndex.open(store / "links.sqlite") as links:
        assert sorted(e.id for e in links.entries()) == ids
    if (store / "records.sqlite").exists():
        from langchain_classic.indexes import SQLRecordManager

        records = SQLRecordManager(
            "chroma/cage-chat", db_url=f"sqlite:///{store / 'records.sqlite'}"
        )
        assert sorted(records.list_keys()) == ids
    return ids


@pytest.mark.parametrize(
    ("example", "kind", "own_store"),
    [("langchain_chat", "langchain", False), ("llamaindex_query_engine", "llamaindex", True)],
)
def test_terminal_chat_on_a_folder_ingests_only_new_and_changed_files(
    example, kind, own_store, tmp_path, monkeypatch, capsys
):
    docs = tmp_path / "docs"
    shutil.copytree(SAMPLE_DOCS, docs)
    (docs / "scan.pdf").write_bytes(b"%PDF-1.4 not a real PDF")
    (docs / "tides.xlsx").write_bytes(b"PK\x03\x04 a spreadsheet")
    store = tmp_path / "store" if own_store else tmp_path / "docs.cage-chat"
    argv = ["--docs", str(docs)] + (["--store", str(store)] if own_store else [])

    out = _run(
        example, "Which file does Tidewater read its settings from?\n\n", argv, monkeypatch, capsys
    )
    refused, damaged, report = out.splitlines()[:3]
    assert refused == (
        "not ingested: tides.xlsx (not .md, .markdown, .rst, .txt, .html, .htm, .ipynb, .eml, "
        ".pdf, .docx or no extension)"
    )
    assert damaged.startswith("not ingested: scan.pdf (ValueError: a PDF pypdf cannot read: ")
    assert report == "ingested 4 files (0 unchanged, 0 removed)"
    [(answer, sources)] = _turns(out)
    assert "[extractive answer" in answer
    assert (
        "Tidewater reads its settings from the file ~/.config/tidewater/config.toml when it "
        "starts. [1]" in answer
    )
    assert sources[0] == "configuration.rst › Configuration file"
    assert sorted(p.name for p in docs.iterdir()) == [  # nothing written inside the folder
        "README.md",
        "changelog.html",
        "configuration.rst",
        "faq.txt",
        "scan.pdf",
        "tides.xlsx",
    ]
    first = _consistent(store / kind)

    again = _run(example, "\n", argv, monkeypatch, capsys)
    assert again.splitlines()[2] == "nothing to ingest: 0 files (4 unchanged, 0 removed)"
    assert _consistent(store / kind) == first

    faq = docs / "faq.txt"
    faq.write_text(
        faq.read_text(encoding="utf-8")
        + "\nCan Tidewater predict tsunamis?\n-------------------------------\n\n"
        "Tidewater cannot predict tsunamis, which are caused by earthquakes.\n",
        encoding="utf-8",
    )
    (docs / "changelog.html").unlink()
    changed = _run(example, "What causes tsunamis?\n\n", argv, monkeypatch, capsys)
    assert changed.splitlines()[2] == "ingested 1 file (2 unchanged, 1 removed)"
    [(answer, sources)] = _turns(changed)
    assert "Tidewater cannot predict tsunamis, which are caused by earthquakes. [1]" in answer
    assert sources[0] == "faq.txt › Can Tidewater predict tsunamis?"
    assert not any(s.startswith("changelog.html") for s in sources)
    after = _consistent(store / kind)
    assert len(after) == len(first) + 1 - 2  # one chunk added, changelog's two removed


def _ingested(chat) -> list[str]:
    """The web chat's report, once its background ingest has finished."""
    deadline = time.monotonic() + 300
    while not chat.report or chat.progress:
        assert time.monotonic() < deadline, "the ingest did not finish in 300 s"
        time.sleep(0.2)
    return chat.report


def test_the_web_chat_ingests_a_folder_in_the_background_and_a_rerun_ingests_nothing(tmp_path):
    app = _example_module("web_chat")
    docs = tmp_path / "docs"
    shutil.copytree(SAMPLE_DOCS, docs)
    first = app.WebChat("extractive", docs)
    assert _ingested(first) == ["ingested 4 files (0 unchanged, 0 removed)"]
    _, table, _, _ = first.ask("Which file does Tidewater read its settings from?", [])
    assert table[0][1] == "configuration.rst › Configuration file"
    again = app.WebChat("extractive", docs)
    assert _ingested(again) == ["nothing to ingest: 0 files (4 unchanged, 0 removed)"]
    assert again.status() == (
        f"Answering from {docs}: nothing to ingest: 0 files (4 unchanged, 0 removed)."
    )
