"""A retrieval chatbot over LangChain with CAGE reranking, in the terminal.

    python examples/langchain_chat/app.py [--docs DIR [--store PATH]]
        [--llm extractive|openai:MODEL|ollama:MODEL|llamacpp:PATH]

Bundled passages: splitter → CageGraphTransformer (passage graphs computed once, at ingest, after splitting) →
InMemoryVectorStore with MiniLM embeddings → ScoredVectorStoreRetriever (k=10, the store's own
similarities) → ContextualCompressionRetriever(CageRerank, top 5: nothing re-embedded or
re-parsed) → answer (the extractive default follows the evidence chain in ``cage_via``). Each
source line shows the earlier source it is linked to. Type questions; an empty line or end of input quits.

With ``--docs DIR``: your own folder instead (examples/folder_store.py: chunks named by file
and heading, graphs and embeddings computed once and kept in DIR/.cage-chat/langchain/, only
new and changed files ingested on a re-run).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/ for chat_models

from chat_models import answer, llm_spec, load_chat_model, via_label
from folder_store import (
    LangChainChunkStore,
    add_folder_arguments,
    check_folder_arguments,
    source_label,
    store_folder,
    sync_folder,
)
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


def bundled_store() -> InMemoryVectorStore:
    """The bundled passages, split, with their graphs, in a store."""
    docs = [
        Document(page_content=r["text"], metadata={"title": r["title"], "source": r["source"]})
        for r in map(json.loads, DATA.read_text(encoding="utf-8").splitlines())
    ]
    chunks = RecursiveCharacterTextSplitter(chunk_size=800, chunk_overlap=0).split_documents(docs)
    chunks = CageGraphTransformer().transform_documents(chunks)
    store = InMemoryVectorStore(embedding=PackagedMiniLMEmbeddings())
    store.add_documents(chunks)
    return store


def build_retriever(
    store: InMemoryVectorStore | None = None, top_n: int = 5, k: int = 10
) -> ContextualCompressionRetriever:
    """CAGE over the store's retriever; ``None``: the bundled passages."""
    store = bundled_store() if store is None else store
    return ContextualCompressionRetriever(
        base_compressor=CageRerank(top_n=top_n),
        base_retriever=ScoredVectorStoreRetriever(vectorstore=store, k=k),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--llm", help="extractive (default), openai:MODEL, ollama:MODEL, llamacpp:PATH"
    )
    add_folder_arguments(parser)
    args = parser.parse_args(argv)
    check_folder_arguments(parser, args)
    model = load_chat_model(llm_spec(args.llm))
    store, over = None, DATA.name
    if args.docs is not None:
        chunk_store = LangChainChunkStore(store_folder(args.docs, args.store, "langchain"))
        report = sync_folder(
            args.docs, store_folder(args.docs, args.store, "langchain"), chunk_store
        )
        print("\n".join(report.lines()))
        store, over = chunk_store.vectorstore, str(args.docs)
    retriever = build_retriever(store)
    print(f"CAGE LangChain chat over {over} — answerer: {llm_spec(args.llm)}. Empty line quits.")
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
                f"  [{i}] {source_label(m)}  score={m['relevance_score']:.2f} "
                f"similarity={m['cage_similarity']:.2f} coherence={m['cage_coherence']:.2f} "
                f"{via_label(chain[i - 1])}".rstrip()
            )
        print(flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
