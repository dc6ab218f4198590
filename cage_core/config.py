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

_ENCODERS: tuple[str, ...] = ("rgcn", "gcn")


@dataclass(frozen=True)
class CageConfig:
    """Settings of the CAGE reranker (defaults follow the paper, ``../shared/DESIGN.md``).

    Attributes:
        alpha: fusion weight α in ``f_i = α·sim(q, C_i) + (1−α)·s_i/(k−1)``; in [0, 1].
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
        graph_cache_size: passage graphs kept in the in-memory LRU cache (0 disables it).
    """

    alpha: float = 0.7
    beta: float = 2.0
    hidden_dim: int = 128
    epochs: int = 50
    learning_rate: float = 1e-3
    encoder: EncoderKind = "rgcn"
    seed: int = 0
    max_parse_chars: int = 20_000
    vector_dim: int = 300
    graph_cache_size: int = 4096

    def __post_init__(self) -> None:
        _check_real("alpha", self.alpha, low=0.0, high=1.0)
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
    "paper": CageConfig(alpha=0.7, beta=2.0, hidden_dim=128, epochs=50, learning_rate=1e-3),
}
