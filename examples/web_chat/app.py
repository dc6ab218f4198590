"""A small web chat over the example documents, showing why CAGE ranked what it ranked.

    python examples/web_chat/app.py [--port 7860] [--llm extractive|openai:MODEL|ollama:MODEL|llamacpp:PATH]

Each question shows the answer, the reranked passages with their similarity, coherence and
fused scores and the evidence chain (which earlier passage each one is linked to, and through
which title or entity), and the candidates' coherence matrix as a heatmap (the paper's Figure 3
view). The offline answerer follows the chain.

Why Gradio: the whole app is one Python file run with ``python``, with ready components for
chat, tables and images, served by one local process — Streamlit re-runs the script on every
interaction (models would need explicit caching) and Chainlit centres on the chat transcript,
with tables and images as secondary elements.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/ for chat_models

import gradio as gr
from chat_models import answer, llm_spec, load_chat_model, via_label
from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore

from cage_core import CageReranker, Passage
from cage_core.heatmap import render_heatmap
from cage_core.ranking.explanation import evidence_chain
from cage_core.scoring import ranking
from cage_langchain import PackagedMiniLMEmbeddings

DATA = Path(__file__).resolve().parents[1] / "data" / "wiki_passages.jsonl"
CANDIDATES = 10
TOP_N = 5
COLUMNS = ["rank", "title", "similarity", "coherence", "fused", "linked to"]


class WebChat:
    def __init__(self, llm: str) -> None:
        self.model = load_chat_model(llm)  # a missing LLM package fails here, before ingesting
        rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
        self.store = InMemoryVectorStore(embedding=PackagedMiniLMEmbeddings())
        self.store.add_documents(
            [Document(page_content=r["text"], metadata={"title": r["title"]}) for r in rows]
        )
        self.reranker = CageReranker()
        self.reranker.graphs(
            [Passage(r["text"], title=r["title"]) for r in rows]
        )  # parse once, at start
        self.images = Path(tempfile.mkdtemp(prefix="cage-web-"))

    def ask(self, question: str, history: list[dict[str, str]]):
        question = question.strip()
        if not question:
            return history, [], None, ""
        hits = self.store.similarity_search_with_score(question, k=CANDIDATES)
        passages = [Passage(d.page_content, title=d.metadata["title"]) for d, _ in hits]
        scores = self.reranker.score(question, passages, query_similarities=[s for _, s in hits])
        order = ranking(scores.fused)[:TOP_N]
        chain = evidence_chain(question, passages, scores.graphs, order)
        reply = answer(question, [passages[i].text for i in order], self.model, chain)
        table = [
            [
                r + 1,
                passages[i].title,
                round(float(scores.similarities[i]), 3),
                round(float(scores.coherence[i]), 3),
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
            chat = gr.Chatbot(label="conversation", elem_id="chat")
            question = gr.Textbox(
                label="question", placeholder="Ask about the example documents", elem_id="question"
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
        return demo


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=7860)
    parser.add_argument(
        "--llm", help="extractive (default), openai:MODEL, ollama:MODEL, llamacpp:PATH"
    )
    args = parser.parse_args(argv)
    app = WebChat(llm_spec(args.llm)).build()
    app.launch(server_name="127.0.0.1", server_port=args.port, share=False, show_error=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
