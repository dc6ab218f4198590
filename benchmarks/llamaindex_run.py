import json
from pathlib import Path

from llama_index.core import Document, VectorStoreIndex
from llama_index.core.ingestion import IngestionPipeline

from cage_llamaindex import CageGraphExtractor, CageRerank, PackagedMiniLMEmbedding

DATA = Path(__file__).resolve().parents[1] / "examples" / "data" / "wiki_passages.jsonl"
rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
docs = [Document(text=r["text"], metadata={"title": r["title"]}) for r in rows]
nodes = IngestionPipeline(transformations=[CageGraphExtractor()]).run(documents=docs)
index = VectorStoreIndex(nodes, embed_model=PackagedMiniLMEmbedding())
retrieved = index.as_retriever(similarity_top_k=10).retrieve(
    "Where was the place of burial of Charles Mathew's father?"
)
for n in CageRerank(top_n=5).postprocess_nodes(
    retrieved, query_str="Where was the place of burial of Charles Mathew's father?"
):
    m = n.node.metadata
    print(
        f"{m['cage_rank']} {m['title']:<34} score={n.score:+.3f} cage_similarity={m['cage_similarity']:.3f} cage_coherence={m['cage_coherence']:.3f}"
    )
