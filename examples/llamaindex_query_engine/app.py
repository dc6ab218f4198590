"""A LlamaIndex query engine with CAGE reranking, in the terminal.

    python examples/llamaindex_query_engine/app.py [--docs DIR [--store PATH]]
        [--llm extractive|openai:MODEL|ollama:MODEL|llamacpp:PATH]

Bundled passages: IngestionPipeline(SentenceSplitter, CageGraphExtractor) → VectorStoreIndex with
MiniLM embeddings → query engine (similarity_top_k=10,
node_postprocessors=[CageRerank(top_n=5, index=index)]).
The default answerer quotes the best-matching sentences, following the evidence chain the
reranker put in ``cage_via`` (no generation); the others are
LlamaIndex LLMs (pip install llama-index-llms-openai-like / -ollama / -llama-cpp).
Type questions; an empty line or end of input quits.

With ``--docs DIR``: your own folder instead, kept in a persisted Chroma store beside it
(``DIR.cage-chat/llamaindex/``, or ``--store PATH``) by an ``IngestionPipeline`` with a
docstore (upserts and deletes; examples/llamaindex_folder.py: ``SimpleDirectoryReader`` with a
reader that reads each format with its own parser, one Document per file, cut at its
headings; only new and changed files parsed and embedded on a re-run, deleted files' nodes
removed); the
expansion retriever adds the nodes the link index links to the retrieved ones.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/ for chat_models

from chat_models import EXTRACTIVE, llm_spec, via_label
from folder_docs import add_folder_arguments, check_folder_arguments, source_label, store_dir
from llama_index.core import Document, VectorStoreIndex
from llama_index.core.ingestion import IngestionPipeline
from llama_index.core.llms import MockLLM
from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.response_synthesizers import BaseSynthesizer
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore
from llamaindex_folder import FolderIndex

from cage_core.extractive import extractive_answer
from cage_core.metadata import chain_from_metadata
from cage_llamaindex import (
    CageExpansionRetriever,
    CageGraphExtractor,
    CageRerank,
    PackagedMiniLMEmbedding,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "wiki_passages.jsonl"


class ExtractiveSynthesizer(BaseSynthesizer):
    """Answers with the best-matching sentences of the reranked nodes (no generation)."""

    def __init__(self) -> None:
        super().__init__(llm=MockLLM())

    def _get_prompts(self) -> dict[str, Any]:
        return {}

    def _update_prompts(self, prompts: Any) -> None:
        return None

    def synthesize(
        self,
        query: Any,
        nodes: list[NodeWithScore],
        additional_source_nodes: Any = None,
        **kwargs: Any,
    ) -> Any:
        """As the base class, with the nodes' evidence chain (``cage_via``) and titles
        ("guide.md › Install") handed to the answerer."""
        chain = chain_from_metadata([n.node.metadata for n in nodes])
        titles = [source_label(n.node.metadata) for n in nodes]
        return super().synthesize(
            query, nodes, additional_source_nodes, chain=chain, titles=titles, **kwargs
        )

    async def asynthesize(
        self,
        query: Any,
        nodes: list[NodeWithScore],
        additional_source_nodes: Any = None,
        **kwargs: Any,
    ) -> Any:
        chain = chain_from_metadata([n.node.metadata for n in nodes])
        titles = [source_label(n.node.metadata) for n in nodes]
        return await super().asynthesize(
            query, nodes, additional_source_nodes, chain=chain, titles=titles, **kwargs
        )

    def get_response(
        self,
        query_str: str,
        text_chunks: Sequence[str],
        chain: Any = None,
        titles: Any = None,
        **kwargs: Any,
    ) -> str:
        return extractive_answer(query_str, list(text_chunks), chain=chain, titles=titles).render()

    async def aget_response(
        self,
        query_str: str,
        text_chunks: Sequence[str],
        chain: Any = None,
        titles: Any = None,
        **kwargs: Any,
    ) -> str:
        return self.get_response(query_str, text_chunks, chain, titles)


LLM_PACKAGES = {
    "openai": "llama-index-llms-openai-like",
    "ollama": "llama-index-llms-ollama",
    "llamacpp": "llama-index-llms-llama-cpp",
}


def load_llm(spec: str) -> Any:
    """The LlamaIndex LLM for ``spec`` (``None`` for the extractive answerer); a missing
    integration package is a clear exit, before anything is ingested."""
    if spec == EXTRACTIVE:
        return None
    kind, _, target = spec.partition(":")
    try:
        if kind == "openai":
            from llama_index.llms.openai_like import OpenAILike

            return OpenAILike(
                model=target,
                api_base=os.environ.get("OPENAI_BASE_URL"),
                api_key=os.environ.get("OPENAI_API_KEY", "none"),
                is_chat_model=True,
            )
        if kind == "ollama":
            from llama_index.llms.ollama import Ollama

            return Ollama(model=target, temperature=0)
        if kind == "llamacpp":
            from llama_index.llms.llama_cpp import LlamaCPP

            return LlamaCPP(model_path=target, temperature=0, context_window=4096)
    except ImportError as exc:
        raise SystemExit(
            f"--llm {spec}: {exc}. Install it: pip install {LLM_PACKAGES[kind]}"
        ) from None
    raise SystemExit(
        f"unknown --llm {spec!r}: use extractive, openai:MODEL, ollama:MODEL or llamacpp:PATH"
    )


def bundled_index() -> VectorStoreIndex:
    """The bundled passages, split, with their graphs, in an index."""
    documents = [
        Document(
            text=r["title"] + ". " + r["text"],
            metadata={"title": r["title"]},
            excluded_llm_metadata_keys=["title"],
            excluded_embed_metadata_keys=["title"],
        )
        for r in map(json.loads, DATA.read_text(encoding="utf-8").splitlines())
    ]
    nodes = IngestionPipeline(
        transformations=[SentenceSplitter(chunk_size=256, chunk_overlap=0), CageGraphExtractor()]
    ).run(documents=documents)
    return VectorStoreIndex(nodes, embed_model=PackagedMiniLMEmbedding())


def build_query_engine(
    llm: Any = None,
    index: VectorStoreIndex | None = None,
    top_n: int = 5,
    k: int = 10,
    links: Path | None = None,
) -> Any:
    """The query engine over ``index`` (``None``: the bundled passages), with the nodes the
    link index ``links`` links to the retrieved ones added, when given; ``llm=None``: the
    extractive answerer."""
    index = bundled_index() if index is None else index
    # the extractive answerer needs no LLM; MockLLM keeps LlamaIndex from resolving its default
    extra = (
        {"response_synthesizer": ExtractiveSynthesizer(), "llm": MockLLM()}
        if llm is None
        else {"llm": llm}
    )
    retriever: BaseRetriever = index.as_retriever(similarity_top_k=k)
    if links is not None and links.exists():
        retriever = CageExpansionRetriever(retriever, index, links)
    return RetrieverQueryEngine.from_args(
        retriever, node_postprocessors=[CageRerank(top_n=top_n, index=index)], **extra
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--llm", help="extractive (default), openai:MODEL, ollama:MODEL, llamacpp:PATH"
    )
    add_folder_arguments(parser)
    args = parser.parse_args(argv)
    check_folder_arguments(parser, args)
    llm = load_llm(llm_spec(args.llm))  # first: a missing LLM package fails before ingesting
    index, over, links = None, DATA.name, None
    if args.docs is not None:
        folder = FolderIndex(store_dir(args.docs, args.store) / "llamaindex")
        print("\n".join(folder.sync(args.docs).lines()), flush=True)
        index, over, links = folder.index, str(args.docs), folder.links
    engine = build_query_engine(llm, index, links=links)
    print(
        f"CAGE LlamaIndex query engine over {over} — answerer: {llm_spec(args.llm)}. "
        "Empty line quits."
    )
    for line in sys.stdin:
        question = line.strip()
        if not question:
            break
        response = engine.query(question)
        print(f"\nQ: {question}\nA: {response}")
        chain = chain_from_metadata([n.node.metadata for n in response.source_nodes])
        for i, n in enumerate(response.source_nodes, 1):
            m = n.node.metadata
            print(
                f"  [{i}] {source_label(m)}  score={n.score:.2f} "
                f"similarity={m['cage_similarity']:.2f} coherence={m['cage_coherence']:.2f} "
                f"{via_label(chain[i - 1])}".rstrip()
            )
        print(flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
