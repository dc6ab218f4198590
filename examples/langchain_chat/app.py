"""A retrieval chatbot over LangChain with CAGE reranking, in the terminal.

    python examples/langchain_chat/app.py [--llm extractive|openai:MODEL|ollama:MODEL|llamacpp:PATH]

splitter → CageGraphTransformer (passage graphs computed once, at ingest, after splitting) →
InMemoryVectorStore with MiniLM embeddings → ScoredVectorStoreRetriever (k=10, the store's own
similarities) → ContextualCompressionRetriever(CageRerank, top 5: nothing re-embedded or
re-parsed) → answer (the extractive default follows the evidence chain in ``cage_via``). Each
source line shows the earlier source it is linked to. Type questions; an empty line or end of input quits.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/ for chat_models

from chat_models import answer, llm_spec, load_chat_model, via_label
from langchain_classic.retrievers import ContextualCompressionRetriever
from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_text_splitters import RecursiveCharacterTextSplitter

from cage_core.metadata import chain_from_metadata
from cage_langchain import (
    CageGraphTransformer,
    CageRerank,
    PackagedMiniLMEmbeddings,
    ScoredVectorStoreRetriever,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "wiki_passages.jsonl"


def build_retriever(top_n: int = 5, k: int = 10) -> ContextualCompressionRetriever:
    docs = [
        Document(page_content=r["text"], metadata={"title": r["title"], "source": r["source"]})
        for r in map(json.loads, DATA.read_text(encoding="utf-8").splitlines())
    ]
    chunks = RecursiveCharacterTextSplitter(chunk_size=800, chunk_overlap=0).split_documents(docs)
    chunks = CageGraphTransformer().transform_documents(chunks)
    store = InMemoryVectorStore(embedding=PackagedMiniLMEmbeddings())
    store.add_documents(chunks)
    return ContextualCompressionRetriever(
        base_compressor=CageRerank(top_n=top_n),
        base_retriever=ScoredVectorStoreRetriever(vectorstore=store, k=k),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--llm", help="extractive (default), openai:MODEL, ollama:MODEL, llamacpp:PATH"
    )
    args = parser.parse_args(argv)
    model = load_chat_model(llm_spec(args.llm))
    retriever = build_retriever()
    print(
        f"CAGE LangChain chat over {DATA.name} — answerer: {llm_spec(args.llm)}. Empty line quits."
    )
    for line in sys.stdin:
        question = line.strip()
        if not question:
            break
        docs = retriever.invoke(question)
        chain = chain_from_metadata([d.metadata for d in docs])
        print(
            f"\nQ: {question}\nA: {answer(question, [d.page_content for d in docs], model, chain)}"
        )
        for i, d in enumerate(docs, 1):
            m = d.metadata
            print(
                f"  [{i}] {m['title']}  score={m['relevance_score']:.2f} "
                f"similarity={m['cage_similarity']:.2f} coherence={m['cage_coherence']:.2f} "
                f"{via_label(chain[i - 1])}".rstrip()
            )
        print(flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
