"""CageRerank: CAGE as a LlamaIndex ``BaseNodePostprocessor``."""

from __future__ import annotations

import logging
import math
from typing import Any, Literal

import numpy as np
from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.callbacks import CBEventType, EventPayload
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle

from cage_core import CageConfig, CageReranker
from cage_core.metadata import (
    GRAPH_KEY,
    RANKED_KEYS,
    TITLE_KEY,
    passage_from_metadata,
    ranked_metadata,
)
from cage_core.pickled_state import without_private_attributes
from cage_core.reranker import configured_reranker
from cage_core.scoring import cosine_matrix

__all__ = [
    "CageRerank",
    "SimilaritySource",
]

logger = logging.getLogger(__name__)

SimilaritySource = Literal["auto", "embedding", "score", "embed"]


class CageRerank(BaseNodePostprocessor):
    """Rerank retrieved nodes by CAGE's fused relevance and between-passage coherence.

    Scores as in :mod:`cage_core.fusion`. With ``similarity_source="auto"``, the similarity is
    the cosine of the query bundle's embedding and the node embeddings when all are
    present, else the retriever's ``NodeWithScore.score`` when every node has one, else
    the packaged all-MiniLM-L6-v2 (``"embedding"``, ``"score"`` and ``"embed"`` force one).

    Returns new ``NodeWithScore``s, best first, cut to ``top_n``, whose ``score`` is the
    fused score and whose node is a copy carrying ``relevance_score``, ``cage_similarity``,
    ``cage_coherence``, ``cage_rank``, ``cage_via`` (the earlier node it is linked to:
    ``{"name", "rank"}`` or ``None``; see :mod:`cage_core.metadata`) and, with
    ``keep_retrieval_score``, ``retrieval_score`` in its metadata, all excluded from embedding
    and LLM prompts (added to the copy's ``excluded_embed_metadata_keys`` and
    ``excluded_llm_metadata_keys``).
    The caller's nodes are not modified. A graph stored by
    :class:`~cage_llamaindex.CageGraphExtractor` is used instead of parsing again, if it was
    built from this very node's content. Pickles and deep-copies without its models; they
    load lazily afterwards.
    """

    top_n: int | None = Field(default=5, ge=0, description="nodes to return; None = all")
    alpha: float | None = Field(default=None, ge=0.0, le=1.0, description="overrides config.alpha")
    config: CageConfig = Field(default_factory=CageConfig, description="core configuration")
    keep_retrieval_score: bool = Field(default=False, description="keep the retriever's score "
                                       "in metadata['retrieval_score']")  # fmt: skip
    similarity_source: SimilaritySource = Field(default="auto")
    graph_key: str = Field(default=GRAPH_KEY, description="metadata key of stored graphs")
    title_key: str | None = Field(default=TITLE_KEY, description="metadata key of node titles")
    spacy_model: str | None = Field(default=None, description="spaCy pipeline name or path")
    method: str = Field(default="cage", description="ranking method: cage, grapher, tegr, "
                        "cage-contra, paper, … (cage_core.methods)")

    _reranker: CageReranker | None = PrivateAttr(default=None)

    @classmethod
    def class_name(cls) -> str:
        return "CageRerank"

    @property
    def reranker(self) -> CageReranker:
        """The core reranker (created on first use; models are shared per process)."""
        if self._reranker is None:
            self._reranker = configured_reranker(self.config, alpha=self.alpha,
                                                 nlp=self.spacy_model, method=self.method)
        return self._reranker

    def __getstate__(self) -> dict[Any, Any]:
        return without_private_attributes(super().__getstate__())

    def _postprocess_nodes(
        self,
        nodes: list[NodeWithScore],
        query_bundle: QueryBundle | None = None,
    ) -> list[NodeWithScore]:
        if query_bundle is None:
            raise ValueError("CageRerank needs the query: pass query_bundle or query_str")
        if not nodes:
            return []
        texts = [n.node.get_content(metadata_mode=MetadataMode.NONE) for n in nodes]
        sims = self._similarities(nodes, query_bundle)
        with self.callback_manager.event(
            CBEventType.RERANKING,
            payload={EventPayload.NODES: nodes, EventPayload.MODEL_NAME: "cage",
                     EventPayload.QUERY_STR: query_bundle.query_str,
                     EventPayload.TOP_K: self.top_n},  # fmt: skip
        ) as event:
            reranker = self.reranker
            passages = [passage_from_metadata(t, n.node.metadata, self.title_key, n.node.node_id)
                        for t, n in zip(texts, nodes)]
            graphs = reranker.stored_graphs([n.node.metadata.get(self.graph_key) for n in nodes],
                                            passages)
            ranked = reranker.rerank(query_bundle.query_str, passages, top_n=self.top_n,
                                     query_similarities=sims, graphs=graphs)  # fmt: skip
            out = [self._ranked_node(nodes[r.index], r) for r in ranked]
            event.on_end(payload={EventPayload.NODES: out})
        return out

    def _ranked_node(self, original: NodeWithScore, ranked: Any) -> NodeWithScore:
        node = original.node.model_copy()
        metadata = ranked_metadata(original.node.metadata, ranked)
        excluded = list(RANKED_KEYS)
        if self.keep_retrieval_score:
            metadata["retrieval_score"] = original.score
            excluded.append("retrieval_score")
        node.metadata = metadata
        node.excluded_embed_metadata_keys = _with(original.node.excluded_embed_metadata_keys, excluded)
        node.excluded_llm_metadata_keys = _with(original.node.excluded_llm_metadata_keys, excluded)
        return NodeWithScore(node=node, score=ranked.score)

    def _similarities(self, nodes: list[NodeWithScore], bundle: QueryBundle) -> np.ndarray | None:
        source = self.similarity_source
        have_embeddings = bundle.embedding is not None and all(
            n.node.embedding is not None for n in nodes)
        have_scores = all(n.score is not None and math.isfinite(n.score) for n in nodes)
        if source in ("auto", "embedding") and have_embeddings:
            return cosine_matrix(np.asarray([bundle.embedding], dtype=np.float64),
                                 np.asarray([n.node.embedding for n in nodes], dtype=np.float64))[0]
        if source in ("auto", "score") and have_scores:
            return np.asarray([n.score for n in nodes], dtype=np.float64)
        if source in ("embedding", "score"):
            logger.warning("similarity_source=%r but the %s are missing; embedding instead",
                           source, "embeddings" if source == "embedding" else "scores")
        return None



def _with(keys: list[str], extra: list[str]) -> list[str]:
    return list(keys) + [k for k in extra if k not in keys]
