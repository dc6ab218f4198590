"""The README's Python snippets run as written.

Each ```python block of README.md is executed, in a fresh namespace, in a temporary working
directory (and HOME, for ``~`` paths), after its prelude below: the inputs a reader brings
(``docs``, ``splitter``, ids and passages, a question) as small real objects, and the names a
snippet takes from the earlier snippet of its section. Where a snippet needs an LLM
(``my_llm``), the prelude gives it the frameworks' own test model (LlamaIndex ``MockLLM``).
A README with more or fewer snippets than preludes fails, so a new snippet gets one.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"

LANGCHAIN_DOCS = """
from langchain_core.documents import Document
from langchain_text_splitters import RecursiveCharacterTextSplitter

docs = [Document(page_content="Marie Curie was born in Warsaw. She won the Nobel Prize twice.",
                 metadata={"title": "Marie Curie", "source": "curie.txt"}),
        Document(page_content="Warsaw is the capital of Poland. It lies on the Vistula.",
                 metadata={"title": "Warsaw", "source": "warsaw.txt"})]
splitter = RecursiveCharacterTextSplitter(chunk_size=200, chunk_overlap=0)
"""

LLAMAINDEX_DOCS = """
from llama_index.core import Document
from llama_index.core.llms import MockLLM

docs = [Document(text="Marie Curie was born in Warsaw. She won the Nobel Prize twice.",
                 metadata={"title": "Marie Curie"}),
        Document(text="Warsaw is the capital of Poland. It lies on the Vistula.",
                 metadata={"title": "Warsaw"})]
my_llm = MockLLM(max_tokens=8)
"""

PRELUDES = [
    # 1. Use it from Python: self-contained
    ("", "assert [r.rank for r in ranked] == [0, 1]"),
    # 2. LangChain
    (LANGCHAIN_DOCS, "assert retriever.invoke('Where was Marie Curie born?')"),
    # 3. LlamaIndex
    (LLAMAINDEX_DOCS, ""),
    # 4. a cutoff after CageRerank (LlamaIndex)
    (
        LLAMAINDEX_DOCS
        + """
from llama_index.core import VectorStoreIndex
from cage_llamaindex import CageRerank, PackagedMiniLMEmbedding
index = VectorStoreIndex.from_documents(docs, embed_model=PackagedMiniLMEmbedding())
""",
        "assert engine.query('Where was Marie Curie born?') is not None",
    ),
    # 5. the link index
    (
        """
from cage_core import Passage
ids = ["curie", "warsaw", "banana"]
passages = [Passage("Marie Curie was born in Warsaw.", title="Marie Curie"),
            Passage("Warsaw is the capital of Poland.", title="Warsaw"),
            Passage("Bananas are yellow.", title="Banana")]
question = "Which country's capital was Marie Curie born in?"
retrieved_ids = ["curie"]
""",
        "assert pool[:1] == ['curie'] and 'warsaw' in pool",
    ),
    # 6. the LangChain expansion retriever (names from the LangChain section's snippet)
    (
        """
from langchain_chroma import Chroma
from langchain_classic.retrievers import ContextualCompressionRetriever
from langchain_core.documents import Document
""",
        "assert retriever.invoke('Which country was Marie Curie born in?')",
    ),
    # 7. the LlamaIndex expansion retriever (names from the LlamaIndex section's snippet)
    (
        LLAMAINDEX_DOCS
        + """
from llama_index.core import VectorStoreIndex
from llama_index.core.ingestion import IngestionPipeline
from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.query_engine import RetrieverQueryEngine
from cage_llamaindex import PackagedMiniLMEmbedding
embed_model = PackagedMiniLMEmbedding()
""",
        "assert engine.query('Which country was Marie Curie born in?') is not None",
    ),
    # 8. other methods and the graph store: self-contained
    ("", ""),
    # 9. Ray Data: the two input files, a one-CPU local Ray
    (
        """
import json
import pyarrow as pa
import pyarrow.parquet as pq
import ray
ray.init(num_cpus=1, include_dashboard=False, ignore_reinit_error=True)
pq.write_table(pa.table({"text": ["Marie Curie was born in Warsaw."], "title": ["Marie Curie"]}),
               "passages.parquet")
with open("pools.jsonl", "w") as f:
    f.write(json.dumps({"query": "Where was Marie Curie born?",
                        "passages": ["Marie Curie was born in Warsaw."]}) + "\\n")
""",
        "",
    ),
]


def snippets() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", README.read_text(encoding="utf-8"), re.M | re.S)


def test_every_snippet_has_a_prelude():
    assert len(snippets()) == len(PRELUDES)


@pytest.mark.models
@pytest.mark.parametrize("number", range(1, len(PRELUDES) + 1))
def test_readme_snippet_runs(number, tmp_path, monkeypatch):
    code = snippets()[number - 1]
    prelude, check = PRELUDES[number - 1]
    if "import ray" in prelude:
        pytest.importorskip("ray")
        _run_in_fresh_process(prelude + code + check, tmp_path)  # one local Ray per process
        return
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    if "Chroma" in code:  # a fresh in-process Chroma: other tests' clients had other settings
        from chromadb.api.shared_system_client import SharedSystemClient

        SharedSystemClient.clear_system_cache()
    namespace: dict[str, object] = {"__name__": f"readme_snippet_{number}"}
    try:
        exec(compile(prelude, f"README prelude {number}", "exec"), namespace)
        exec(compile(code, f"README.md snippet {number}", "exec"), namespace)
        if check:
            exec(compile(check, f"README check {number}", "exec"), namespace)
    finally:
        if "ray" in namespace:  # the local Ray the prelude started stops with the test
            namespace["ray"].shutdown()  # type: ignore[attr-defined]


def _run_in_fresh_process(source: str, cwd) -> None:
    """Run a snippet in a new interpreter (Ray does not start twice in one process, and other
    tests start their own), with this checkout first on the path."""
    import os
    import subprocess
    import sys

    script = cwd / "snippet.py"
    script.write_text(source, encoding="utf-8")
    root = str(README.parent)
    env = {**os.environ, "HOME": str(cwd),
           "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}  # fmt: skip
    done = subprocess.run([sys.executable, str(script)], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
