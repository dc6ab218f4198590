"""A retrieval chatbot over LangChain with CAGE reranking, in the terminal.

    python examples/langchain_chat/app.py [--docs DIR [--store PATH]]
        [--llm extractive|openai:MODEL|ollama:MODEL|llamacpp:PATH]

Bundled passages: splitter → CageGraphTransformer (passage graphs computed once, at ingest, after
splitting) → InMemoryVectorStore with MiniLM embeddings → ScoredVectorStoreRetriever (k=10, the
store's own similarities) → ContextualCompressionRetriever(CageRerank, top 5: nothing re-embedded or
re-parsed) → answer (the extractive default follows the evidence chain in ``cage_via``). Each
source line shows the earlier source it is linked to. Type questions; an empty line or end of input
quits.

With ``--docs DIR``: your own folder instead, kept in a persisted Chroma store beside it
(``DIR.cage-chat/langchain/``, or ``--store PATH``) by LangChain's indexing API with a SQL
record manager (examples/langchain_folder.py: sections by heading from each format's own
parser, only new and changed files parsed and embedded on a re-run, deleted files' chunks
removed); the expansion retriever adds the chunks the link index links to the retrieved ones.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/ for chat_models

from chat_models import answer, llm_spec, load_chat_model, via_label
from folder_docs import (
    add_folder_arguments,
    check_folder_arguments,
    progress_bar,
    source_label,
    store_dir,
)
from langchain_classic.retrievers import ContextualCompressionRetriever
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.vectorstores import InMemoryVectorStore, VectorStore
from langchain_folder import FolderIndex
from langchain_text_splitters import RecursiveCharacterTextSplitter

from cage_core.metadata import chain_from_metadata
from cage_langchain import (
    CageExpansionRetriever,
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
    store: VectorStore | None = None, top_n: int = 5, k: int = 10, links: Path | None = None
) -> ContextualCompressionRetriever:
    """CAGE over the store's retriever (``None``: the bundled passages), with the chunks the
    link index ``links`` links to the retrieved ones added, when given."""
    store = bundled_store() if store is None else store
    base: BaseRetriever = ScoredVectorStoreRetriever(vectorstore=store, k=k)
    if links is not None and links.exists():
        base = CageExpansionRetriever(base_retriever=base, vectorstore=store, link_index=links)
    return ContextualCompressionRetriever(
        base_compressor=CageRerank(top_n=top_n), base_retriever=base
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
    store, over, links = None, DATA.name, None
    if args.docs is not None:
        folder = FolderIndex(store_dir(args.docs, args.store) / "langchain")
        print("\n".join(folder.sync(args.docs, progress_bar()).lines()), flush=True)
        store, over, links = folder.vectorstore, str(args.docs), folder.links
    retriever = build_retriever(store, links=links)
    print(f"CAGE LangChain chat over {over} — answerer: {llm_spec(args.llm)}. Empty line quits.")
    for line in sys.stdin:
        question = line.strip()
        if not question:
            break
        docs = retriever.invoke(question)
        chain = chain_from_metadata([d.metadata for d in docs])
        texts, titles = [d.page_content for d in docs], [source_label(d.metadata) for d in docs]
        print(f"\nQ: {question}\nA: {answer(question, texts, model, chain, titles)}")
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
