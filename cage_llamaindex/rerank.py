"""CageRerank: CAGE as a LlamaIndex ``BaseNodePostprocessor``."""

from __future__ import annotations

import logging
import math
from typing import Any, Literal

import numpy as np
from llama_index.core.bridge.pydantic import Field, PrivateAttr, SecretStr, field_serializer
from llama_index.core.callbacks import CBEventType, EventPayload
from llama_index.core.indices.vector_store import VectorStoreIndex
from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.events.rerank import ReRankEndEvent, ReRankStartEvent
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import NodeWithScore, QueryBundle

from cage_core import CageConfig, CageReranker
from cage_core.call_checks import check_query
from cage_core.config import config_as_json
from cage_core.integrations.document_routing import ROUTING_KEYS, route_similarities
from cage_core.integrations.fused_scores import rank_fusion_values
from cage_core.integrations.pickled_state import without_private_attributes
from cage_core.integrations.rerank_call import (
    embedded_similarities,
    lazy_reranker,
    ranked_items,
    routed_pool,
    routed_similarities,
    warn_once,
)
from cage_core.integrations.steps import run
from cage_core.metadata import GRAPH_KEY, RANKED_KEYS, TITLE_KEY, is_finite_score
from cage_core.names.routes import DocumentRoute
from cage_core.reranker import DEFAULT_MAX_POOL
from cage_core.scoring import cosine_matrix
from cage_llamaindex.index_vectors import COSINE_KEY, index_cosines
from cage_llamaindex.structure import node_passages, with_metadata

__all__ = [
    "CageRerank",
    "UNKNOWN_SCALE",
    "SimilaritySource",
]

logger = logging.getLogger(__name__)
dispatcher = get_dispatcher(__name__)

SimilaritySource = Literal["auto", "embedding", "score", "embed"]

UNKNOWN_SCALE = (
    "CageRerank: the retriever's node scores are read as cosine similarities, the scale the "
    "0-1 relevance_score was calibrated on, but nothing says they are: LlamaIndex's vector "
    "stores score on their own scales (ChromaVectorStore exp(-distance), FaissVectorStore "
    "the distance or inner product of its faiss index), where a cutoff such as 0.5 keeps or "
    "drops too much. Pass CageRerank(index=index) (the index the nodes come from: the cosines "
    "of its stored vectors, on any store), rerank behind CageExpansionRetriever (it hands on "
    'cosines), or pass similarity_source="score" where the store scores by cosine '
    "(SimpleVectorStore, QdrantVectorStore's default collection) (warned once per CageRerank)"
)
"""The warning of a pool whose scores ``CageRerank`` reads without knowing their scale."""


class CageRerank(BaseNodePostprocessor):
    """Rerank retrieved nodes by CAGE's fused relevance and between-passage coherence.

    Scores as in :mod:`cage_core.methods.cage`. With ``similarity_source="auto"``, the similarity
    is, with ``index`` (the ``VectorStoreIndex`` the nodes come from), the cosine of the query and
    each node's vector as the index's store holds it, only nodes it holds none for embedded by
    the index's ``embed_model`` (:func:`~cage_llamaindex.index_vectors.index_cosines`: the scale
    the 0–1 score was calibrated on, over any store, and the way behind a hybrid retriever such
    as ``QueryFusionRetriever``, whose scores are fusion values); without it, each node's
    ``metadata["cage_cosine"]`` when every node has one (the cosines
    :class:`~cage_llamaindex.CageExpansionRetriever` hands on), else the cosine of the query
    bundle's embedding and the node embeddings when all are present, else the retriever's
    ``NodeWithScore.score`` when every node has one in [−1, 1], they do not rise along the
    pool (distances do) and are not reciprocal-rank-fusion values
    (:mod:`cage_core.integrations.fused_scores`), read as cosines with one warning per
    ``CageRerank`` (:data:`UNKNOWN_SCALE`: nothing says they are; over Chroma or FAISS they are
    not), else the packaged all-MiniLM-L6-v2 (``"embedding"``, ``"score"`` and ``"embed"`` force
    one; ``"score"`` reads the scores quietly, for a store that scores by cosine; a fusion value is
    never read as a similarity). A score that is ``None`` or NaN counts as missing. Embedding with
    the packaged model is the slow path (the query and every node, ~1 s a query on a CPU instead of
    milliseconds): the first call that takes it without ``similarity_source="embed"`` logs one
    warning per ``CageRerank`` with the measured cost and the fix
    (:mod:`cage_core.integrations.rerank_call`).

    Returns new ``NodeWithScore``s, best first, cut to ``top_n``, whose ``score`` is a 0–1
    relevance in the fused score's order that also carries how well the pool matches the query
    (a ``SimilarityPostprocessor(similarity_cutoff=t)`` after this keeps on-topic evidence and
    drops off-topic pools; :mod:`cage_core.relevance`), and whose node is a copy carrying the
    keys :mod:`cage_core.metadata` lists (``relevance_score``, the same value, ``cage_score``,
    ``cage_similarity``, ``cage_coherence``, ``cage_rank``, ``cage_via``, ``cage_path``) and,
    with ``keep_retrieval_score``, ``retrieval_score``, all excluded from embedding and LLM
    prompts (added to the copy's ``excluded_embed_metadata_keys`` and
    ``excluded_llm_metadata_keys``). The caller's nodes are not modified. A graph stored by
    :class:`~cage_llamaindex.CageGraphExtractor` is used instead of parsing again, if it was
    built from this very node's content. Each node's place in its document (``ref_doc_id``,
    ``start_char_idx``, or ``doc_id`` / ``position`` metadata) is read by
    :func:`~cage_llamaindex.structure.node_passages`. Pickles and deep-copies without its
    models; they load lazily afterwards.

    A pool that :class:`~cage_llamaindex.CageExpansionRetriever` routed for this very query
    (``metadata["cage_route"]``: the question names documents of the collection;
    :mod:`cage_core.integrations.document_routing`) is ranked for the question less the words
    naming them, with the nodes' ``cage_route_score`` as similarities when every one has it
    and ``similarity_source`` is not ``"embed"`` (else the packaged model embeds that question
    and the pool), and the named documents' nodes first; each of those gets
    ``cage_expanded_via`` (why it is there: the question names its document) and
    ``cage_named_document``, hidden like the scores. The pool's 0–1 score reads the best
    cosine of the question as asked too (the retriever's ``cage_cosine`` of every node, or with
    an ``index`` its vectors' cosine), so shortening the question does not lower it
    (:mod:`cage_core.relevance`). A pool without a route for the query is ranked as if routing
    did not exist.
    """

    top_n: int | None = Field(default=5, ge=0, description="nodes to return; None = all")
    alpha: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="fusion weight of titled pools (and of config=CageConfig.preset('paper')), "
        "overrides config.alpha; no effect on nodes without titles (config.untitled.alpha), on "
        "chunks of split documents (config.document), nor with a method that sets its own "
        "alpha (paper, hybrid) or reads none (grapher, tegr, baselines); logged once",
    )
    config: CageConfig = Field(
        default_factory=CageConfig,
        description="core configuration; the document view that ranks chunks of split "
        "documents reads config.document (DocumentConfig)",
    )
    keep_retrieval_score: bool = Field(
        default=False, description="keep the retriever's score in metadata['retrieval_score']"
    )
    similarity_source: SimilaritySource = Field(default="auto")
    index: VectorStoreIndex | None = Field(
        default=None,
        exclude=True,
        description="the index the nodes come from: with similarity_source='auto' the "
        "similarities are the cosines of its stored vectors (not serialised)",
    )
    graph_key: str = Field(default=GRAPH_KEY, description="metadata key of stored graphs")
    title_key: str | None = Field(default=TITLE_KEY, description="metadata key of node titles")
    spacy_model: str | None = Field(default=None, description="spaCy pipeline name or path")
    method: str = Field(
        default="cage",
        description="ranking method: cage, grapher, tegr, "
        "cage-contra, paper, … (cage_core.methods)",
    )

    max_pool: int | None = Field(
        default=DEFAULT_MAX_POOL, ge=1, description="most nodes one call ranks (None: no bound)"
    )
    integrity_key: SecretStr | None = Field(
        default=None,
        description="secret shared with CageGraphExtractor: only stored graphs with "
        "a valid HMAC under it are used (cage_core.graphs.integrity); None: content hash only",
    )

    _reranker: CageReranker | None = PrivateAttr(default=None)
    _warned_fallback: bool = PrivateAttr(default=False)
    _warned_scale: bool = PrivateAttr(default=False)

    @classmethod
    def class_name(cls) -> str:
        return "CageRerank"

    @field_serializer("config")
    def _serialised_config(self, value: CageConfig) -> dict[str, Any]:
        """Serialised (``to_dict``, ``to_json``, the ingestion cache key) as plain JSON."""
        return config_as_json(value)

    @field_serializer("integrity_key")
    def _serialised_integrity_key(self, value: SecretStr | None) -> str | None:
        """Serialised (``to_dict``, ``to_json``, the ingestion cache key) masked: never the key."""
        return None if value is None else str(value)

    @property
    def reranker(self) -> CageReranker:
        """The core reranker (created on first use; models are shared per process)."""
        return lazy_reranker(self)

    def __getstate__(self) -> dict[Any, Any]:
        return without_private_attributes(super().__getstate__())

    def _postprocess_nodes(
        self,
        nodes: list[NodeWithScore],
        query_bundle: QueryBundle | None = None,
    ) -> list[NodeWithScore]:
        """The reranked nodes, between a ``ReRankStartEvent`` and a ``ReRankEndEvent`` sent
        through the instrumentation dispatcher (as LlamaIndex's own rerankers do; ``top_n``
        ``None`` is reported as the pool's size, ``model_name`` as ``"cage"``)."""
        if query_bundle is None:
            raise ValueError("CageRerank needs the query: pass query_bundle or query_str")
        check_query(query_bundle.query_str)  # a blank query is an error whatever the pool
        top_n = len(nodes) if self.top_n is None else self.top_n
        dispatcher.event(
            ReRankStartEvent(query=query_bundle, nodes=nodes, top_n=top_n, model_name="cage")
        )
        out = self._reranked(nodes, query_bundle) if nodes and top_n else []
        dispatcher.event(ReRankEndEvent(nodes=out))
        return out

    def _reranked(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle
    ) -> list[NodeWithScore]:
        metadatas = [n.node.metadata for n in nodes]
        passages = node_passages([n.node for n in nodes], self.title_key)
        pool, route = routed_pool(self, query_bundle.query_str, passages, metadatas)
        sims: np.ndarray | None
        # a routed pool's similarities for the question as asked: CageExpansionRetriever's
        asked = route_similarities(metadatas, COSINE_KEY) if pool.routed else None
        if self.index is not None and self.similarity_source == "auto":
            sims, _ = index_cosines(
                self.index, nodes, pool.question, None if pool.routed else query_bundle.embedding
            )
            if pool.routed and asked is None:
                asked, _ = index_cosines(self.index, nodes, pool.query, query_bundle.embedding)
            missing = ""
        else:
            sims, missing = self._similarities(nodes, query_bundle, pool.routed)
        if sims is None:
            sims = run(embedded_similarities(self, logger, pool, missing, _FIX))
            asked = None  # embedded for the shortened question: no retriever's scale to mix
        pool = pool.with_similarities(sims, asked)
        with self.callback_manager.event(
            CBEventType.RERANKING,
            payload={
                EventPayload.NODES: nodes,
                EventPayload.MODEL_NAME: "cage",
                EventPayload.QUERY_STR: query_bundle.query_str,
                EventPayload.TOP_K: self.top_n,
            },
        ) as event:
            items = ranked_items(self, pool, metadatas, route)
            out = [self._ranked_node(nodes[i.index], i.metadata, i.score, route) for i in items]
            event.on_end(payload={EventPayload.NODES: out})
        return out

    def _ranked_node(
        self,
        original: NodeWithScore,
        metadata: dict[str, Any],
        score: float,
        route: DocumentRoute | None = None,
    ) -> NodeWithScore:
        """A copy of ``original`` with ``metadata`` (:func:`~cage_core.integrations.
        rerank_call.ranked_items`), the retriever's score with ``keep_retrieval_score``, all of
        it excluded from embedding and LLM prompts, and ``score`` (``metadata`` holds the
        node's own metadata: it is added over it, nothing is dropped)."""
        excluded = list(RANKED_KEYS)
        if route:
            excluded += [k for k in ROUTING_KEYS if k in metadata]
        if self.keep_retrieval_score:
            metadata = {**metadata, "retrieval_score": original.score}
            excluded.append("retrieval_score")
        return NodeWithScore(node=with_metadata(original.node, metadata, excluded), score=score)

    def _similarities(
        self, nodes: list[NodeWithScore], bundle: QueryBundle, routed: bool = False
    ) -> tuple[np.ndarray | None, str]:
        """The similarities from the bundle's and nodes' embeddings or the retriever's scores
        (of a ``routed`` pool: its ``cage_route_score``), or ``None`` and why they could not be
        used (``""``: embedding was asked for)."""
        source = self.similarity_source
        if routed:
            if source == "embed":
                return None, ""
            return routed_similarities([n.node.metadata for n in nodes], "nodes")
        have_embeddings = bundle.embedding is not None and all(
            n.node.embedding is not None for n in nodes
        )
        unscored = sum(n.score is None or not math.isfinite(n.score) for n in nodes)
        cosines = [n.node.metadata.get(COSINE_KEY) for n in nodes]
        if source == "auto" and all(is_finite_score(c) for c in cosines):
            return np.asarray(cosines, dtype=np.float64), ""  # CageExpansionRetriever's
        if source in ("auto", "embedding") and have_embeddings:
            vectors = np.asarray([n.node.embedding for n in nodes], dtype=np.float64)
            return cosine_matrix(np.asarray([bundle.embedding], dtype=np.float64), vectors)[0], ""
        if source in ("auto", "score") and not unscored:
            scores = np.asarray([n.score for n in nodes], dtype=np.float64)
            if rank_fusion_values(scores):
                return None, "the node scores are reciprocal-rank-fusion values, not similarities"
            if source == "auto":
                if np.any(np.abs(scores) > 1.0 + 1e-6) or _ascending(scores):
                    return None, (
                        "the node scores leave [-1, 1] or rise from the first node to the last "
                        "(a distance, such as FaissVectorStore's over IndexFlatL2), so they are "
                        "not cosines"
                    )
                warn_once(self, logger, UNKNOWN_SCALE, "_warned_scale")
            return scores, ""
        if source == "embed":
            return None, ""
        if source == "embedding":
            return None, (
                "similarity_source='embedding' but the query or node embeddings are missing"
            )
        return None, (
            f"{unscored} of {len(nodes)} nodes have no retriever score (None or NaN)"
            + ("" if source == "score" else " and the nodes carry no embeddings")
        )


_FIX = (
    "Pass CageRerank(index=index) (the index the nodes come from: its stored vectors give the "
    "similarities, also behind QueryFusionRetriever), use a retriever that scores its nodes (a "
    'VectorStoreIndex retriever does), or pass similarity_source="embed" to embed on purpose.'
)


def _ascending(scores: np.ndarray) -> bool:
    """Whether ``scores`` rise along the pool, best first (never falling, the last above the
    first): the order of distances, not of similarities."""
    return len(scores) > 1 and scores[-1] > scores[0] and bool(np.all(np.diff(scores) >= 0))
