"""Every Python block of README.md and docs/*.md runs exactly as printed.

Each ```python block is executed on its own, in a fresh namespace, with the repository root
as the working directory (the blocks load ``docs/examples/sample_docs/`` from there, as a
reader who copies them into a file at the root does): no prelude, no hidden input. A block
that starts Ray runs in a fresh interpreter (Ray does not start twice in one process). The
only way to leave a block out is a visible marker on its fence, ```python title="not run"
(none does today). A block that loads a model (it ranks, embeds, ingests or parses) is marked
``models``; ``tests/conftest.py`` fails a block that loads one without the mark.

The README is a front page: at most 200 lines, its first Python block the LangChain
quickstart, before line 60, and its install command the one ``.ci/run`` runs.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]
NOT_RUN = 'title="not run"'
FENCE = re.compile(r"^```python([^\n]*)\n(.*?)^```", re.M | re.S)
LOADS_A_MODEL = re.compile(
    r"\.rerank\(|\.invoke\(|\.retrieve\(|\.query\(|\.graphs\(|\.score\(|transform_documents"
    r"|IngestionPipeline|PackagedMiniLM|ray\.data"
)


def python_blocks(path: Path) -> list[tuple[int, str, str]]:
    """The ``(line, fence info, code)`` of each ```python block of a Markdown file."""
    text = path.read_text(encoding="utf-8")
    return [
        (text.count("\n", 0, m.start()) + 1, m.group(1).strip(), m.group(2))
        for m in FENCE.finditer(text)
    ]


def _cases() -> list[object]:
    cases = []
    for path in PAGES:
        for line, info, code in python_blocks(path):
            name = f"{path.relative_to(ROOT)}:{line}"
            marks = [pytest.mark.models] if LOADS_A_MODEL.search(code) else []
            if NOT_RUN in info:
                marks.append(pytest.mark.skip(reason=f"{name} is marked {NOT_RUN}"))
            cases.append(pytest.param(name, code, marks=marks, id=name))
    return cases


README_FIRST_BLOCK = f"README.md:{python_blocks(README)[0][0]}"
SAID_ORDER = {README_FIRST_BLOCK: ("marie_curie.md", "warsaw.md", "paris.md")}
"""What the text after a block says it prints, in this order (the README's quickstart)."""


@pytest.mark.parametrize(("name", "code"), _cases())
def test_python_block_runs_as_printed(name, code, monkeypatch, capsys):
    if re.search(r"^import ray\b", code, re.M):
        _run_in_fresh_interpreter(name, code)
        return
    monkeypatch.chdir(ROOT)
    chroma = "Chroma" in code
    if chroma:  # a fresh in-process Chroma: other tests' clients had other settings
        from chromadb.api.shared_system_client import SharedSystemClient

        SharedSystemClient.clear_system_cache()
    try:
        exec(compile(code, name, "exec"), {"__name__": "__main__"})
    finally:
        if chroma:  # and none left behind for the tests after it, with their own settings
            SharedSystemClient.clear_system_cache()
    if name in SAID_ORDER:
        printed = capsys.readouterr().out
        positions = [printed.find(word) for word in SAID_ORDER[name]]
        assert -1 not in positions and positions == sorted(positions), printed


def _run_in_fresh_interpreter(name: str, code: str) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, f"{name} failed:\n{done.stderr[-4000:]}"


def test_every_page_has_its_blocks_found():
    """The fence pattern finds the blocks the pages hold (a changed fence style would
    silently test nothing)."""
    fences = sum(p.read_text(encoding="utf-8").count("```python") for p in PAGES)
    assert fences == sum(len(python_blocks(p)) for p in PAGES) > 0


def test_readme_is_a_front_page():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200
    line, _, code = python_blocks(README)[0]
    assert line < 60
    assert "from cage_langchain import" in code and "RecursiveCharacterTextSplitter" in code
    assert "add_start_index=True" in code and "sample_docs" in code


def test_readme_install_command_is_the_one_ci_runs():
    install = re.search(r"^pip install (.+)$", README.read_text(encoding="utf-8"), re.M)
    ci = re.search(r'"\$venv/bin/pip" install (.+)$', (ROOT / ".ci/run").read_text(), re.M)
    assert install and ci
    assert install.group(1).split("#")[0].strip() == ci.group(1).strip()
