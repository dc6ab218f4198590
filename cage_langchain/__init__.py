"""CAGE for LangChain: ``CageRerank`` (a document compressor), ``CageGraphTransformer`` and
``CageExpansionRetriever`` (adds the passages linked to the retrieved ones).

Install with ``pip install "cage-rag[langchain]"``.
"""

try:
    import langchain_core  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'cage_langchain needs langchain-core: pip install "cage-rag[langchain]"'
    ) from exc

from cage_langchain.embeddings import PackagedMiniLMEmbeddings
from cage_langchain.expansion import CageExpansionRetriever
from cage_langchain.rerank import CageRerank
from cage_langchain.retriever import ScoredVectorStoreRetriever
from cage_langchain.transformer import CageGraphTransformer

__all__ = [
    "CageExpansionRetriever",
    "CageGraphTransformer",
    "CageRerank",
    "PackagedMiniLMEmbeddings",
    "ScoredVectorStoreRetriever",
]
