"""One validated configuration for the CAGE reranker.

Every number the engine uses lives here, with the paper's default beside it. A
``CageConfig`` is immutable; derive variants with :meth:`CageConfig.replace`.
Invalid values raise :class:`ValueError` at construction, naming the field and the
accepted range, so a bad setting never reaches spaCy or torch.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Literal

EncoderKind = Literal["rgcn", "gcn"]
CoherenceKind = Literal["bridge", "rgcn"]

_ENCODERS: tuple[str, ...] = ("rgcn", "gcn")
#: TEGR's typed-edge vocabulary (seed 002).
EDGE_TYPES: tuple[str, ...] = ("contradicts", "elaborates", "supersedes", "example-of", "defines",
                               "sequence", "synthesizes")
_COHERENCE: tuple[str, ...] = ("bridge", "rgcn")


@dataclass(frozen=True)
class CageConfig:
    """Settings of the CAGE reranker.

    The default fuses pool-normalised relevance with *bridge coherence* (links from a passage
    to the query-relevant core of the pool, read off the passage graphs; see
    :mod:`cage_core.fusion` and :mod:`cage_core.bridge`). ``CageConfig.preset("paper")`` is
    the published method: R-GCN coherence, raw cosine relevance, α = 0.7.

    Attributes:
        alpha: fusion weight α in ``f_i = α·relevance_i + (1−α)·coherence_i``; in [0, 1].
        coherence: ``"bridge"`` (default) or ``"rgcn"`` (the paper's coherence term).
        lexical_weight: weight of pool-IDF BM25 in the bridge-mode relevance (0 = cosine only).
        entity_weight: weight of shared named entities against title mentions in bridge links.
        title_links: whether a passage naming another passage's title links them.
        core_size: how many of the most relevant passages form the core that bridge
            coherence is measured against.
        rgcn_weight: weight of the R-GCN coherence to the core added to bridge coherence
            (0 skips the R-GCN entirely).
        beta: min-out-degree reweighting factor β (features and adjacent edge weights of
            the nodes with ``deg⁺(v) = δ⁺(G)`` are multiplied by it); ≥ 1, 1 disables it.
        hidden_dim: size of the graph embedding ``Z_i`` (R-GCN output); paper: 128.
        epochs: per-query training epochs of the diversity objective; paper: 30–60.
        learning_rate: Adam learning rate; paper: 1e-3.
        encoder: ``"rgcn"`` (relation-specific weights, the paper) or ``"gcn"`` (one shared
            weight, the paper's ablation).
        seed: seed of the freshly initialised encoder, so rankings are reproducible.
        max_parse_chars: passages longer than this are cut before parsing (a warning is
            logged); bounds the work a single huge passage can cause.
        vector_dim: width of the word-vector part of node features; vectors of another
            width are truncated or zero-padded to it (300 = en_core_web_md/lg).
        graph_cache_size: passage graphs, and passage embeddings, kept in the reranker's
            in-memory LRU caches (0 disables them).
        contradiction_weight: weight of the factual-consistency penalty subtracted from the
            fused score (0 = off; see :mod:`cage_core.contradiction`).
        contradiction_overlap: word overlap from which two passages can conflict.
        ppr_damping: GraphER's personalised PageRank damping d.
        ppr_temperature: GraphER's seed temperature τ (personalisation ∝ exp(z(sim)/τ)).
        tegr_decay: TEGR walk decay per hop.
        tegr_seeds: TEGR walk seed chunks (the most similar ones).
        tegr_type_weights: TEGR edge-type weights, as ``(type, weight)`` pairs.
    """

    alpha: float = 1 / 3
    coherence: CoherenceKind = "bridge"
    lexical_weight: float = 0.5
    entity_weight: float = 0.5
    title_links: bool = True
    core_size: int = 3
    rgcn_weight: float = 0.0
    beta: float = 2.0
    hidden_dim: int = 128
    epochs: int = 50
    learning_rate: float = 1e-3
    encoder: EncoderKind = "rgcn"
    seed: int = 0
    max_parse_chars: int = 20_000
    vector_dim: int = 300
    graph_cache_size: int = 4096
    contradiction_weight: float = 0.0
    contradiction_overlap: float = 0.5
    ppr_damping: float = 0.5
    ppr_temperature: float = 0.5
    tegr_decay: float = 0.7
    tegr_seeds: int = 3
    tegr_type_weights: tuple[tuple[str, float], ...] = (
        ("contradicts", 0.6), ("elaborates", 1.0), ("supersedes", 0.8), ("example-of", 0.7),
        ("defines", 1.0), ("sequence", 0.8), ("synthesizes", 0.9),
    )

    def __post_init__(self) -> None:
        _check_real("alpha", self.alpha, low=0.0, high=1.0)
        if self.coherence not in _COHERENCE:
            raise ValueError(f"coherence must be one of {_COHERENCE}, got {self.coherence!r}")
        _check_real("lexical_weight", self.lexical_weight, low=0.0, high=100.0)
        _check_real("entity_weight", self.entity_weight, low=0.0, high=100.0)
        if not isinstance(self.title_links, bool):
            raise TypeError(f"title_links must be a bool, got {type(self.title_links).__name__}")
        _check_int("core_size", self.core_size, low=1, high=10_000)
        _check_real("rgcn_weight", self.rgcn_weight, low=0.0, high=100.0)
        _check_real("beta", self.beta, low=1.0, high=1e3)
        _check_int("hidden_dim", self.hidden_dim, low=1, high=4096)
        _check_int("epochs", self.epochs, low=0, high=10_000)
        _check_real("learning_rate", self.learning_rate, low=0.0, high=1.0, low_open=True)
        if self.encoder not in _ENCODERS:
            raise ValueError(f"encoder must be one of {_ENCODERS}, got {self.encoder!r}")
        _check_int("seed", self.seed, low=0, high=2**63 - 1)
        _check_int("max_parse_chars", self.max_parse_chars, low=1, high=10_000_000)
        _check_int("vector_dim", self.vector_dim, low=1, high=4096)
        _check_int("graph_cache_size", self.graph_cache_size, low=0, high=10_000_000)
        _check_real("contradiction_weight", self.contradiction_weight, low=0.0, high=100.0)
        _check_real("contradiction_overlap", self.contradiction_overlap, low=0.0, high=1.0)
        _check_real("ppr_damping", self.ppr_damping, low=0.0, high=0.99)
        _check_real("ppr_temperature", self.ppr_temperature, low=0.0, high=100.0, low_open=True)
        _check_real("tegr_decay", self.tegr_decay, low=0.0, high=1.0)
        _check_int("tegr_seeds", self.tegr_seeds, low=1, high=1000)
        for pair in self.tegr_type_weights:
            if (not isinstance(pair, tuple) or len(pair) != 2 or pair[0] not in EDGE_TYPES):
                raise ValueError(f"tegr_type_weights entries must be (type, weight) with type in "
                                 f"{EDGE_TYPES}, got {pair!r}")
            _check_real(f"tegr_type_weights[{pair[0]}]", pair[1], low=0.0, high=100.0)

    @property
    def encoder_key(self) -> tuple[Any, ...]:
        """The settings that determine R-GCN graph embeddings (equal keys, equal encodings)."""
        return (self.encoder, self.beta, self.hidden_dim, self.epochs, self.learning_rate,
                self.seed, self.vector_dim)  # fmt: skip

    def replace(self, **changes: Any) -> CageConfig:
        """Return a copy with ``changes`` applied (validated like a new config)."""
        return dataclasses.replace(self, **changes)

    @classmethod
    def preset(cls, name: str) -> CageConfig:
        """A named configuration: ``"paper"`` is the paper's method as published."""
        try:
            return PRESETS[name]
        except KeyError:
            raise ValueError(f"unknown preset {name!r}; choose one of {sorted(PRESETS)}") from None


def _check_real(
    name: str, value: object, *, low: float, high: float, low_open: bool = False
) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    v = float(value)
    too_low = v <= low if low_open else v < low
    if not math.isfinite(v) or too_low or v > high:
        bracket = "(" if low_open else "["
        raise ValueError(f"{name} must be in {bracket}{low}, {high}], got {value!r}")


def _check_int(name: str, value: object, *, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be in [{low}, {high}], got {value!r}")


PRESETS: dict[str, CageConfig] = {
    "default": CageConfig(),
    "paper": CageConfig(coherence="rgcn", alpha=0.7, beta=2.0, hidden_dim=128, epochs=50,
                        learning_rate=1e-3),
}
