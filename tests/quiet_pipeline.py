"""A whole LangChain pipeline in a fresh process (run by tests/frameworks/test_quiet_pipelines.py):
models loaded, documents enriched, stored in Chroma, retrieved with scores, reranked. It should
print only its one line of result on stdout, and nothing on stderr."""

import sys

from chromadb.config import Settings
from langchain_chroma import Chroma
from langchain_core.documents import Document

from cage_langchain import (
    CageGraphTransformer,
    CageRerank,
    PackagedMiniLMEmbeddings,
    ScoredVectorStoreRetriever,
)

TEXTS = [
    "Marie Curie was born in Warsaw.",
    "Warsaw is the capital of Poland.",
    "Bananas are rich in potassium.",
    "Pierre Curie was a French physicist.",
    "Paris is the capital of France.",
    "The Nobel Prize was awarded to Marie Curie.",
]

docs = CageGraphTransformer().transform_documents([Document(page_content=t) for t in TEXTS])
store = Chroma.from_documents(
    docs,
    PackagedMiniLMEmbeddings(),
    collection_name=sys.argv[1],
    client_settings=Settings(anonymized_telemetry=False),
)
found = ScoredVectorStoreRetriever(vectorstore=store, k=6).invoke("Where was Marie Curie born?")
out = CageRerank(top_n=2).compress_documents(found, "Where was Marie Curie born?")
print(len(out), out[0].page_content)
