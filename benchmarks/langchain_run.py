import json
from pathlib import Path

from langchain_classic.retrievers import ContextualCompressionRetriever
from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore

from cage_langchain import (
    CageGraphTransformer,
    CageRerank,
    PackagedMiniLMEmbeddings,
    ScoredVectorStoreRetriever,
)

DATA = Path(__file__).resolve().parents[1] / "examples" / "data" / "wiki_passages.jsonl"
rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
docs = [Document(page_content=r["text"], metadata={"title": r["title"]}) for r in rows]
embeddings = PackagedMiniLMEmbeddings()
docs = CageGraphTransformer().transform_documents(docs)
store = InMemoryVectorStore.from_documents(docs, embeddings)
retriever = ContextualCompressionRetriever(
    base_compressor=CageRerank(top_n=5),
    base_retriever=ScoredVectorStoreRetriever(vectorstore=store, k=10),
)
for d in retriever.invoke(
    "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?"
):
    m = d.metadata
    print(
        f"{m['cage_rank']} {m['title']:<34} relevance_score={m['relevance_score']:+.3f} cage_similarity={m['cage_similarity']:.3f} cage_coherence={m['cage_coherence']:.3f}"
    )
