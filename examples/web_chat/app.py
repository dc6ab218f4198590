"""A small web chat over the example documents, showing why CAGE ranked what it ranked.

    python examples/web_chat/app.py [--port 7860] [--docs DIR [--store PATH]]
        [--llm extractive|openai:MODEL|ollama:MODEL|llamacpp:PATH]

Each question shows the answer, the reranked passages with their similarity, coherence and
fused scores and the evidence chain (which earlier passage each one is linked to, and through
which title, entity or document; the coherence is that link's strength), and the candidates'
coherence matrix as a heatmap (the paper's Figure 3 view). The offline answerer follows the
chain.

With ``--docs DIR`` it answers from your own folder (examples/folder_store.py: the same store
as the LangChain example's, in DIR/.cage-chat/langchain/, only new and changed files ingested
on a re-run), each source named by file and heading. Files uploaded in the page are saved into
DIR (a file of the same name is replaced) and ingested into the store; without ``--docs`` they
go to a temporary folder and are searched beside the bundled passages.

Why Gradio: the whole app is one Python file run with ``python``, with ready components for
chat, tables and images, served by one local process — Streamlit re-runs the script on every
interaction (models would need explicit caching) and Chainlit centres on the chat transcript,
with tables and images as secondary elements.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import threading
from pathlib import Path

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/ for chat_models

import gradio as gr
from chat_models import answer, llm_spec, load_chat_model, via_label
from folder_store import (
    PDF_SUFFIX,
    TEXT_SUFFIXES,
    LangChainChunkStore,
    add_folder_arguments,
    check_folder_arguments,
    source_label,
    store_folder,
    sync_folder,
)
from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore

from cage_core import CageReranker, Passage
from cage_core.heatmap import render_heatmap
from cage_core.metadata import GRAPH_KEY, passages_from_metadata
from cage_core.ranking.explanation import explain_ranking
from cage_core.scoring import ranking
from cage_langchain import PackagedMiniLMEmbeddings

DATA = Path(__file__).resolve().parents[1] / "data" / "wiki_passages.jsonl"
CANDIDATES = 10
TOP_N = 5
COLUMNS = ["rank", "source", "similarity", "coherence", "fused", "linked to"]
UPLOADED = sorted(TEXT_SUFFIXES | {PDF_SUFFIX})
INGEST_PROGRESS = gr.Progress(track_tqdm=True)
"""The folder sync's progress bar, shown in the page during an upload."""


class WebChat:
    def __init__(self, llm: str, docs: Path | None = None, store: Path | None = None) -> None:
        self.model = load_chat_model(llm)  # a missing LLM package fails here, before ingesting
        self.reranker = CageReranker()
        self.images = Path(tempfile.mkdtemp(prefix="cage-web-"))
        self.lock = threading.Lock()  # an upload and a question never meet in the store
        if docs is None:
            rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
            bundled = InMemoryVectorStore(embedding=PackagedMiniLMEmbeddings())
            bundled.add_documents(
                [Document(page_content=r["text"], metadata={"title": r["title"]}) for r in rows]
            )
            self.reranker.graphs(
                [Passage(r["text"], title=r["title"]) for r in rows]
            )  # parse once, at start
            self.docs = Path(tempfile.mkdtemp(prefix="cage-web-uploads-"))
            self.folder = store_folder(self.docs, None, "langchain")
            self.store = LangChainChunkStore(self.folder, bundled)
            self.answering_from = f"the bundled passages ({DATA.name}) and uploads in {self.docs}"
            self.status = f"Answering from the bundled passages ({DATA.name})."
        else:
            self.docs = docs
            self.answering_from = str(docs)
            self.folder = store_folder(docs, store, "langchain")
            self.store = LangChainChunkStore(self.folder)
            lines = sync_folder(docs, self.folder, self.store).lines()
            print("\n".join(lines), flush=True)
            self.status = f"Answering from {self.answering_from}: " + "; ".join(lines) + "."

    def upload(self, files: list[str] | None, progress: gr.Progress = INGEST_PROGRESS) -> str:
        """Save the uploaded files into the folder and ingest them; the new status line."""
        paths = [Path(f) for f in files or ()]
        refused = [p.name for p in paths if p.suffix.lower() not in UPLOADED]
        with self.lock:
            for path in paths:
                if path.name not in refused:
                    shutil.copyfile(path, self.docs / path.name)
            lines = sync_folder(self.docs, self.folder, self.store).lines()
        if refused:
            lines.insert(0, f"not read: {', '.join(refused)} (not {', '.join(UPLOADED)})")
        self.status = f"Answering from {self.answering_from}: " + "; ".join(lines) + "."
        return self.status

    def ask(self, question: str, history: list[dict[str, str]]):
        question = question.strip()
        if not question:
            return history, [], None, ""
        with self.lock:
            hits = self.store.vectorstore.similarity_search_with_score(question, k=CANDIDATES)
        metadatas = [d.metadata for d, _ in hits]
        passages = passages_from_metadata([d.page_content for d, _ in hits], metadatas, "title")
        graphs = self.reranker.stored_graphs([m.get(GRAPH_KEY) for m in metadatas], passages)
        scores = self.reranker.score(
            question, passages, query_similarities=[s for _, s in hits], graphs=graphs
        )
        order = ranking(scores.fused)[:TOP_N]
        explained = explain_ranking(question, passages, scores, order)
        chain = [e.via for e in explained]
        reply = answer(question, [passages[i].text for i in order], self.model, chain)
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
        with gr.Blocks(title="CAGE web chat") as demo:
            gr.Markdown("## CAGE web chat — coherence-aware reranking, explained")
            status = gr.Markdown(self.status, elem_id="status")
            upload = gr.File(
                label=f"add documents ({', '.join(UPLOADED)})",
                file_count="multiple",
                file_types=UPLOADED,
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
    add_folder_arguments(parser)
    args = parser.parse_args(argv)
    check_folder_arguments(parser, args)
    app = WebChat(llm_spec(args.llm), args.docs, args.store).build()
    app.launch(server_name="127.0.0.1", server_port=args.port, share=False, show_error=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
