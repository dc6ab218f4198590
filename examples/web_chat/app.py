"""A small web chat over the example documents, showing why CAGE ranked what it ranked.

    python examples/web_chat/app.py [--port 7860] [--docs DIR [--store PATH]]
        [--max-upload-mb 20] [--llm extractive|openai:MODEL|ollama:MODEL|llamacpp:PATH]

Each question shows the answer, the reranked passages with their similarity, coherence and
fused scores and the evidence chain (which earlier passage each one is linked to, and through
which title, entity or document; the coherence is that link's strength), and the candidates'
coherence matrix as a heatmap (the paper's Figure 3 view). The offline answerer follows the
chain.

With ``--docs DIR`` it answers from your own folder, in the LangChain example's store
(examples/langchain_folder.py: Chroma and a SQL record manager in ``DIR.cage-chat/langchain/``
beside the folder, only new and changed files ingested), each source named by file and
heading. Files uploaded in the page are checked (at most ``--max-upload-mb``, enforced by
Gradio's own ``max_file_size``; a type read here; UTF-8 text by content, whatever the name
says; not a hidden name), saved into DIR (a file of the same name is replaced) and ingested in
a background thread: questions are answered meanwhile, over what is stored, and the status line
shows the progress, then what was ingested and a line for every file that was not. Without
``--docs`` uploads go to a temporary folder and are searched beside the bundled passages.
Temporary files (that folder and its store, the heatmaps, Gradio's copies) are removed when
the app stops (Ctrl-C or SIGTERM).

Why Gradio: the whole app is one Python file run with ``python``, with ready components for
chat, tables and images, served by one local process — Streamlit re-runs the script on every
interaction (models would need explicit caching) and Chainlit centres on the chat transcript,
with tables and images as secondary elements.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import signal
import sys
import tempfile
import threading
from pathlib import Path

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/ for chat_models

import gradio as gr
from chat_models import answer, llm_spec, load_chat_model, via_label
from folder_docs import (
    TYPES_READ,
    add_folder_arguments,
    check_folder_arguments,
    read_problem,
    source_label,
    store_dir,
)
from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_folder import FolderIndex

from cage_core import CageReranker
from cage_core.heatmap import render_heatmap
from cage_core.metadata import GRAPH_KEY, RETRIEVAL_SCORE_KEY, passages_from_metadata
from cage_core.ranking.explanation import explain_ranking
from cage_core.scoring import ranking
from cage_langchain import (
    CageGraphTransformer,
    PackagedMiniLMEmbeddings,
    ScoredVectorStoreRetriever,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "wiki_passages.jsonl"
CANDIDATES = 10
TOP_N = 5
MAX_UPLOAD_MB = 20
COLUMNS = ["rank", "source", "similarity", "coherence", "fused", "linked to"]


def upload_problem(path: Path) -> str | None:
    """Why an uploaded file is not ingested (``None``: it is): as a folder's file
    (:func:`folder_docs.read_problem`), by its own name."""
    return read_problem(path, path.name)


class WebChat:
    def __init__(self, llm: str, docs: Path | None = None, store: Path | None = None) -> None:
        self.model = load_chat_model(llm)  # a missing LLM package fails here, before ingesting
        self.reranker = CageReranker()
        # heatmaps, and without --docs the uploads and their store: removed when the app stops
        self.scratch = tempfile.TemporaryDirectory(prefix="cage-web-", ignore_cleanup_errors=True)
        self.images = Path(self.scratch.name) / "heatmaps"
        self.images.mkdir()
        self.bundled: InMemoryVectorStore | None = None
        if docs is None:
            rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
            self.bundled = InMemoryVectorStore(embedding=PackagedMiniLMEmbeddings())
            self.bundled.add_documents(  # parsed once, at start
                CageGraphTransformer().transform_documents(
                    [Document(page_content=r["text"], metadata={"title": r["title"]}) for r in rows]
                )
            )
            docs = Path(self.scratch.name) / "uploads"
            docs.mkdir()
            self.answering_from = f"the bundled passages ({DATA.name}) and uploads in {docs}"
        else:
            self.answering_from = str(docs)
        self.docs = docs
        self.index = FolderIndex(store_dir(docs, store) / "langchain")
        self.report: list[str] = []
        self.refused: list[str] = []
        self.progress = ""
        self.jobs: queue.Queue[None] = queue.Queue()
        threading.Thread(target=self._ingest_forever, daemon=True, name="ingest").start()
        self.jobs.put(None)  # the folder's first sync, off the question path too

    # -- ingest, in one background thread -------------------------------------------------
    def _ingest_forever(self) -> None:
        while True:
            self.jobs.get()
            while not self.jobs.empty():  # uploads queued meanwhile: one sync for them all
                self.jobs.get_nowait()
            self.progress = "ingesting: reading the folder"
            try:
                lines = self.index.sync(self.docs, self._progress).lines()
            except Exception as exc:  # the chat keeps answering over what is stored
                lines = [f"ingest failed: {type(exc).__name__}: {exc}"]
            print("\n".join(lines), flush=True)
            self.report, self.progress = lines, ""

    def _progress(self, done: int, total: int, name: str) -> None:
        self.progress = f"ingesting {done}/{total} files" + (f": {name}" if name else "")

    def status(self) -> str:
        """The status line: what is answered from, the ingest's progress or last report, and
        the uploads refused."""
        lines = [*self.refused, *([self.progress] if self.progress else self.report)]
        return f"Answering from {self.answering_from}: " + "; ".join(lines) + "."

    def upload(self, files: list[str] | None) -> str:
        """Save the acceptable uploaded files into the folder and queue their ingest; the new
        status line (a line for each file refused)."""
        self.refused = []
        saved = []
        for name in files or ():
            path = Path(name)
            problem = upload_problem(path)
            if problem is not None:
                self.refused.append(f"not ingested: {path.name} ({problem})")
                continue
            partial = self.docs / f".{path.name}.partial"  # hidden: no sync reads it
            partial.write_bytes(path.read_bytes())
            os.replace(partial, self.docs / path.name)
            saved.append(path.name)
        if saved:
            self.progress = f"queued: {', '.join(saved)}"
            self.jobs.put(None)
        return self.status()

    # -- questions ------------------------------------------------------------------------
    def candidates(self, question: str) -> list[Document]:
        """The best ``CANDIDATES`` chunks of the folder (and the bundled passages), with the
        store's cosine similarity under ``retrieval_score``."""
        stores = [self.index.vectorstore] + ([self.bundled] if self.bundled is not None else [])
        hits = [
            d
            for store in stores
            for d in ScoredVectorStoreRetriever(vectorstore=store, k=CANDIDATES).invoke(question)
        ]
        return sorted(hits, key=lambda d: -float(d.metadata[RETRIEVAL_SCORE_KEY]))[:CANDIDATES]

    def ask(self, question: str, history: list[dict[str, str]]):
        question = question.strip()
        if not question:
            return history, [], None, ""
        hits = self.candidates(question)
        if not hits:
            reply = "No documents yet: add some, or wait for the ingest to finish."
            history = history + [
                {"role": "user", "content": question},
                {"role": "assistant", "content": reply},
            ]
            return history, [], None, ""
        metadatas = [d.metadata for d in hits]
        passages = passages_from_metadata([d.page_content for d in hits], metadatas, "title")
        graphs = self.reranker.stored_graphs([m.get(GRAPH_KEY) for m in metadatas], passages)
        similarities = [float(m[RETRIEVAL_SCORE_KEY]) for m in metadatas]
        scores = self.reranker.score(
            question, passages, query_similarities=similarities, graphs=graphs
        )
        order = ranking(scores.fused)[:TOP_N]
        explained = explain_ranking(question, passages, scores, order)
        chain = [e.via for e in explained]
        titles = [source_label(metadatas[i]) for i in order]
        reply = answer(question, [passages[i].text for i in order], self.model, chain, titles)
        table = [
            [
                r + 1,
                source_label(metadatas[i]),
                round(float(scores.similarities[i]), 3),
                round(explained[r].coherence, 3),
                round(float(scores.fused[i]), 3),
                via_label(chain[r]),
            ]
            for r, i in enumerate(order)
        ]
        image = render_heatmap(
            question, passages, scores, self.images / f"heatmap-{len(history)}.png"
        )
        history = history + [
            {"role": "user", "content": question},
            {"role": "assistant", "content": reply},
        ]
        return history, table, str(image), ""

    def build(self) -> gr.Blocks:
        # Gradio's copies of heatmaps and uploads: older than an hour hourly, all at shutdown
        with gr.Blocks(title="CAGE web chat", delete_cache=(3600, 3600)) as demo:
            gr.Markdown("## CAGE web chat — coherence-aware reranking, explained")
            status = gr.Markdown(self.status(), elem_id="status")
            gr.Timer(1.0).tick(self.status, None, status)  # the ingest's progress
            upload = gr.File(
                label=f"add documents ({TYPES_READ})",
                file_count="multiple",
                type="filepath",
                elem_id="upload",
            )
            chat = gr.Chatbot(label="conversation", elem_id="chat")
            question = gr.Textbox(
                label="question", placeholder="Ask about the documents", elem_id="question"
            )
            ask = gr.Button("Ask", elem_id="ask")
            table = gr.Dataframe(
                headers=COLUMNS,
                label="reranked passages (top 5 of 10 candidates)",
                elem_id="passages",
            )
            heatmap = gr.Image(
                label="coherence matrix of the 10 candidates", elem_id="heatmap", type="filepath"
            )
            ask.click(self.ask, [question, chat], [chat, table, heatmap, question])
            question.submit(self.ask, [question, chat], [chat, table, heatmap, question])
            upload.upload(self.upload, [upload], [status])
        return demo


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=7860)
    parser.add_argument(
        "--llm", help="extractive (default), openai:MODEL, ollama:MODEL, llamacpp:PATH"
    )
    parser.add_argument(
        "--max-upload-mb",
        type=int,
        default=MAX_UPLOAD_MB,
        help=f"the largest file an upload may hold, in MB (default {MAX_UPLOAD_MB})",
    )
    add_folder_arguments(parser)
    args = parser.parse_args(argv)
    check_folder_arguments(parser, args)
    # a SIGTERM stops the server as Ctrl-C does, so that its temporary files are removed
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    app = WebChat(llm_spec(args.llm), args.docs, args.store).build()
    app.launch(
        server_name="127.0.0.1",
        server_port=args.port,
        share=False,
        show_error=True,
        max_file_size=args.max_upload_mb * gr.FileSize.MB,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
