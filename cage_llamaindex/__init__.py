"""CAGE for LlamaIndex: ``CageRerank`` (a node postprocessor), ``CageGraphExtractor`` and
``CageExpansionRetriever`` (adds the nodes linked to the retrieved ones).

Install with ``pip install "cage-rag[llamaindex]"``.
"""

try:
    import llama_index.core  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'cage_llamaindex needs llama-index-core: pip install "cage-rag[llamaindex]"'
    ) from exc

from cage_llamaindex.embeddings import PackagedMiniLMEmbedding
from cage_llamaindex.expansion import CageExpansionRetriever
from cage_llamaindex.extractor import CageGraphExtractor
from cage_llamaindex.rerank import CageRerank

__all__ = ["CageExpansionRetriever", "CageGraphExtractor", "CageRerank", "PackagedMiniLMEmbedding"]
