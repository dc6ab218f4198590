"""The DEV folders' chunks, gold and README paths, shared by ``claims/dev_folders.py`` (the
benchmark) and ``tuning/named_order_cv.py`` (the routed pools' cross-validation), and the other
DEV files with documents (:data:`DOCUMENT_CORPORA`, also ``tuning/routing_cv.py``'s): each folder's
files read as text and split by the README's splitter, each gold selector's one chunk, and
each framework's methods over them (the benchmark's docstring says what each one is).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from cage_core.expansion.document_names import MemoryDocumentNames
from cage_core.expansion.documents import OPENING_CHARS, TITLE_CHARS, document_record
from crossval.gold import gold_ids as selected_gold

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "benchmarks" / "data" / "dev_folders"
CHUNK_SIZE = 500  # the README's splitter
LEGS = (5, 20)

# method -> question id -> (chunk ids best first, routing fired or None when not asked, the
# top 5's vias (kind, name, linked chunk id) or None each, and the 0-1 scores a cutoff reads
# (LangChain relevance_score, LlamaIndex NodeWithScore.score) in rank order, for the CAGE
# methods; else None)
Via = tuple[str, str, str] | None
Ranking = tuple[list[str], bool | None, list[Via] | None, list[float] | None]
Ranked = dict[str, dict[str, Ranking]]
VIA_RANKS = 5

DOCUMENT_CORPORA = (
    ("cuad", "beyond-wikipedia/cuad.jsonl", "beyond-wikipedia/cuad.corpus.jsonl"),
    ("dragonball", "beyond-wikipedia/dragonball.jsonl", "beyond-wikipedia/dragonball.corpus.jsonl"),
    (
        "scifact-chunks",
        "beyond-wikipedia/scifact.jsonl",
        "beyond-wikipedia/scifact_chunks.corpus.jsonl",
    ),
)
"""The other DEV files whose chunks carry a ``doc_id`` (routing acts on them): name, questions
and corpus, under ``--data``."""


def folder_specs(data: Path, names: str = "") -> list[Path]:
    """The folder specs (``<folder>.json``) under ``data``, sorted; only those of the
    comma-separated folder ``names`` when given. ``ValueError`` when ``data`` holds no spec
    or a name is none of its folders (a misspelt name would otherwise run a part in silence)."""
    specs = sorted(data.glob("*.json"))
    if not specs:
        raise ValueError(f"{data}: no folder spec (*.json) in it")
    wanted = {n.strip() for n in names.split(",") if n.strip()}
    unknown = sorted(wanted - {p.stem for p in specs})
    if unknown:
        known = ", ".join(p.stem for p in specs)
        raise ValueError(f"no folder {', '.join(unknown)} in {data} (it holds {known})")
    return [p for p in specs if not wanted or p.stem in wanted]


def parsed_folder_specs(parser: argparse.ArgumentParser, data: Path, names: str = "") -> list[Path]:
    """:func:`folder_specs` for a script's ``--data`` and ``--folders``: a name ``data`` does
    not hold, or a ``data`` without a spec, is a usage error of ``parser``."""
    try:
        return folder_specs(data, names)
    except ValueError as exc:
        parser.error(str(exc))


def load_chunks(
    spec_path: Path, chunk_size: int = CHUNK_SIZE, *, true_positions: bool = False
) -> tuple[dict, list]:
    """The folder's question file and its chunks, each with the id ``"<source>:<start_index>"``;
    with ``true_positions`` each also with ``metadata["position"]``, its 0-based place among its
    file's chunks (an explicit position: read as is, not ranked among a pool's chunks)."""
    from langchain_core.documents import Document
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    folder = spec_path.with_suffix("")
    docs = [
        Document((folder / f).read_text(encoding="utf-8"), metadata={"source": f})
        for f in spec["files"]
    ]
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=chunk_size, chunk_overlap=0, add_start_index=True
    )
    chunks = splitter.split_documents(docs)
    places: dict[str, int] = {}
    for chunk in chunks:
        source = chunk.metadata["source"]
        chunk.id = f"{source}:{chunk.metadata['start_index']}"
        if true_positions:
            chunk.metadata["position"] = places[source] = places.get(source, -1) + 1
    return spec, chunks


def gold_ids(spec: dict, chunks: Sequence) -> dict[str, list[str]]:
    """Each question's gold chunk ids (:func:`crossval.gold.gold_ids`; two parts in one chunk
    count once)."""
    return selected_gold(spec, chunks, one_part_per_chunk=False)


def is_two_document(question: dict) -> bool:
    return question["type"] == "two_document" or question.get("two_document") is True


def recall(order: Sequence[str], gold: Sequence[str], k: int = 5) -> float:
    return sum(g in order[:k] for g in gold) / len(gold)


def top_vias(ids: Sequence[str], metadatas: Sequence[dict]) -> list[Via]:
    """The ``cage_via`` of each of the first :data:`VIA_RANKS` results, with the id it links to."""
    out: list[Via] = []
    for metadata in metadatas[:VIA_RANKS]:
        via = metadata.get("cage_via")
        out.append(None if not via else (via["kind"], via["name"], ids[via["rank"]]))
    return out


def langchain_ingest(chunks: list) -> tuple[list, Any, Any]:
    """The README's LangChain ingest of ``chunks``: ``CageGraphTransformer`` writing a new link
    index, then an ``InMemoryVectorStore`` with the packaged MiniLM. Returns the chunks as
    ingested, the store and the link index."""
    from langchain_core.vectorstores import InMemoryVectorStore

    from cage_core.expansion.index import LinkIndex
    from cage_langchain import CageGraphTransformer, PackagedMiniLMEmbeddings

    links = LinkIndex()
    enriched = list(CageGraphTransformer(link_index=links).transform_documents(chunks))
    store = InMemoryVectorStore(PackagedMiniLMEmbeddings())
    store.add_documents(enriched)
    return enriched, store, links


def langchain_hybrid(enriched: list, store: Any, legs: int) -> Any:
    """LangChain's hybrid retriever over the ingested chunks: an ``EnsembleRetriever`` of
    ``BM25Retriever`` and the store's retriever, each its top ``legs``, weights 0.5 / 0.5 (their
    union, fused by reciprocal rank)."""
    from langchain_classic.retrievers import EnsembleRetriever
    from langchain_community.retrievers import BM25Retriever

    return EnsembleRetriever(
        retrievers=[
            BM25Retriever.from_documents(enriched, k=legs),
            store.as_retriever(search_kwargs={"k": legs}),
        ],
        weights=[0.5, 0.5],
    )


def llamaindex_hybrid(enriched: list, index: Any, legs: int, top: int) -> Any:
    """LlamaIndex's hybrid retriever over the ingested nodes: a ``QueryFusionRetriever`` of the
    index's retriever and ``BM25Retriever``, each its top ``legs``, fused by reciprocal rank,
    its top ``top``; one query, so no LLM (``MockLLM``)."""
    from llama_index.core.llms import MockLLM
    from llama_index.core.retrievers import QueryFusionRetriever
    from llama_index.retrievers.bm25 import BM25Retriever

    return QueryFusionRetriever(
        [
            index.as_retriever(similarity_top_k=legs),
            BM25Retriever.from_defaults(nodes=enriched, similarity_top_k=legs),
        ],
        llm=MockLLM(),  # num_queries=1 generates no query; no LLM is configured offline
        mode="reciprocal_rerank",
        similarity_top_k=top,
        num_queries=1,
        use_async=False,
    )


def langchain_methods(chunks: list, k: int) -> tuple[dict[str, Callable[[str], Ranking]], Any]:
    """The LangChain path (module docstring): method -> ``rank(question)``."""
    from cage_core.integrations.document_routing import ROUTE_KEY
    from cage_langchain import CageExpansionRetriever, CageRerank, ScoredVectorStoreRetriever

    enriched, store, links = langchain_ingest(chunks)
    base = ScoredVectorStoreRetriever(vectorstore=store, k=k)
    expand = CageExpansionRetriever(base_retriever=base, vectorstore=store, link_index=links)
    cage = CageRerank(top_n=None)

    def plain(q: str) -> Ranking:
        return [d.id for d in base.invoke(q)], None, None, None

    def ranked(pool: Sequence, q: str, routed: bool | None) -> Ranking:
        out = cage.compress_documents(pool, q)
        ids = [d.id for d in out]
        scores = [d.metadata["relevance_score"] for d in out]
        return ids, routed, top_vias(ids, [d.metadata for d in out]), scores

    def reranked(q: str) -> Ranking:
        return ranked(base.invoke(q), q, None)

    def expanded(q: str) -> Ranking:
        pool = expand.invoke(q)
        return ranked(pool, q, any(ROUTE_KEY in d.metadata for d in pool))

    methods = {"plain": plain, "cage": reranked, "cage --expand": expanded}
    for n in LEGS:
        ensemble = langchain_hybrid(enriched, store, n)
        methods[f"hybrid legs {n}"] = lambda q, e=ensemble: (
            [d.id for d in e.invoke(q)],
            None,
            None,
            None,
        )
    return methods, links


def llamaindex_ingest(chunks: list) -> tuple[list, Any, Any]:
    """The LlamaIndex ingest of ``chunks``: the same chunks as ``TextNode``s under the same ids,
    with what a node parser gives them (``SOURCE`` = the file, ``PREVIOUS`` / ``NEXT`` within
    it, ``start_char_idx``; ``source`` in metadata, not embedded), ``CageGraphExtractor`` in an
    ``IngestionPipeline`` writing a new link index, ``VectorStoreIndex`` with the packaged
    MiniLM. Returns the nodes as ingested, the index and the link index."""
    from llama_index.core import VectorStoreIndex
    from llama_index.core.ingestion import IngestionPipeline
    from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode

    from cage_core.expansion.index import LinkIndex
    from cage_llamaindex import CageGraphExtractor, PackagedMiniLMEmbedding

    nodes = []
    for chunk in chunks:
        offset = chunk.metadata["start_index"]
        node = TextNode(
            id_=chunk.id,
            text=chunk.page_content,
            metadata={k: v for k, v in chunk.metadata.items() if k in ("source", "position")},
            excluded_embed_metadata_keys=["source", "position"],
            start_char_idx=offset,
            end_char_idx=offset + len(chunk.page_content),
        )
        node.relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(
            node_id=chunk.metadata["source"]
        )
        nodes.append(node)
    for before, after in zip(nodes, nodes[1:]):
        if before.ref_doc_id == after.ref_doc_id:
            before.relationships[NodeRelationship.NEXT] = RelatedNodeInfo(node_id=after.node_id)
            after.relationships[NodeRelationship.PREVIOUS] = RelatedNodeInfo(node_id=before.node_id)
    links = LinkIndex()
    enriched = IngestionPipeline(transformations=[CageGraphExtractor(link_index=links)]).run(
        nodes=nodes
    )
    index = VectorStoreIndex(enriched, embed_model=PackagedMiniLMEmbedding())
    return enriched, index, links


def llamaindex_methods(chunks: list, k: int) -> tuple[dict[str, Callable[[str], Ranking]], Any]:
    """The LlamaIndex path (:func:`llamaindex_ingest`): method -> ``rank(question)``."""
    from cage_core.integrations.document_routing import ROUTE_KEY
    from cage_llamaindex import CageExpansionRetriever, CageRerank

    enriched, index, links = llamaindex_ingest(chunks)
    base = index.as_retriever(similarity_top_k=k)
    expand = CageExpansionRetriever(base, index, links)
    cage = CageRerank(top_n=None, index=index)  # the README path: cosines of stored vectors

    def plain(q: str) -> Ranking:
        return [n.node_id for n in base.retrieve(q)], None, None, None

    def ranked(pool: Sequence, q: str, routed: bool | None) -> Ranking:
        out = cage.postprocess_nodes(pool, query_str=q)
        ids = [n.node_id for n in out]
        scores = [float(n.score or 0.0) for n in out]
        return ids, routed, top_vias(ids, [n.node.metadata for n in out]), scores

    def reranked(q: str) -> Ranking:
        return ranked(base.retrieve(q), q, None)

    def expanded(q: str) -> Ranking:
        pool = expand.retrieve(q)
        return ranked(pool, q, any(ROUTE_KEY in n.node.metadata for n in pool))

    methods = {"plain": plain, "cage": reranked, "cage --expand": expanded}
    for n in LEGS:
        fusion = llamaindex_hybrid(enriched, index, n, top=n)
        methods[f"hybrid legs {n}"] = lambda q, f=fusion: (
            [x.node_id for x in f.retrieve(q)],
            None,
            None,
            None,
        )
    return methods, links


def folder_names(folder: Path, files: list[str]) -> MemoryDocumentNames:
    """The folder's document records, as ingest writes them from each file's opening (its
    first chunk: stripped of leading blank space by LangChain's and LlamaIndex's splitters)."""
    records = []
    for name in files:
        text = (folder / name).read_text(encoding="utf-8", errors="replace").lstrip()
        records.append(
            document_record(
                name, opening=text[:OPENING_CHARS], source=name, head=text[:TITLE_CHARS]
            )
        )
    return MemoryDocumentNames(records)
