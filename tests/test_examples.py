"""The example chatbots run end to end on the offline default (scripted terminal input)."""

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.models  # every test here loads the spaCy pipeline or MiniLM

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "What is the name of the fight song of the university whose main campus is in Lawrence, Kansas?\n"


def _chat(example: str, script: str) -> str:
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / example / "app.py")], input=script,
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
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
    sources = [line.split("]", 1)[1].split("  score=")[0].strip() for line in first if line.strip().startswith("[")]
    assert "[extractive answer" in answer and "Kansas Song" in answer
    assert "Kansas Song" in _cited(answer, sources)
