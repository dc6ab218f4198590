"""Settings of the graph encoder the paper's coherence trains (:mod:`cage_core.paper.encoder`).

Defined with the other configs, not in :mod:`cage_core.paper.encoder`, so that importing a
configuration never loads torch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from cage_core.config.validation import Int, OneOf, Ranges, Real, Validated

__all__ = ["ENCODER_KINDS", "EncoderConfig", "EncoderKind"]

EncoderKind = Literal["rgcn", "gcn"]

ENCODER_KINDS: tuple[str, ...] = ("rgcn", "gcn")
"""The values of :data:`EncoderKind`."""


@dataclass(frozen=True)
class EncoderConfig(Validated):
    """Settings of the per-query trained graph encoder (:mod:`cage_core.paper.encoder`).

    Equal configs give equal encodings of the same graphs, so a config is the key under
    which a pool's encoding is shared (:class:`~cage_core.paper.encodings.EncodingCache`).

    Attributes:
        kind: ``"rgcn"`` (relation-specific weights) or ``"gcn"`` (one shared weight).
        beta: min-out-degree reweighting factor β (≥ 1; 1 disables it).
        hidden_dim: size of the graph embedding ``Z_i``.
        epochs: per-query training epochs of the diversity objective.
        learning_rate: Adam learning rate.
        seed: seed of the freshly initialised encoder, so rankings are reproducible.
        vector_dim: width of the word-vector part of node features (truncated or zero-padded).

    Where each default comes from (grid, metric, out-of-fold result, script, commit):
    ``docs/provenance.md``, rows ``encoder.*``.
    """

    kind: EncoderKind = "rgcn"
    beta: float = 2.0
    hidden_dim: int = 128
    epochs: int = 50
    learning_rate: float = 1e-3
    seed: int = 0
    vector_dim: int = 300

    RANGES: ClassVar[Ranges] = {
        "kind": OneOf(ENCODER_KINDS, "encoder kind"),
        "beta": Real(1.0, 1e3),
        "hidden_dim": Int(1, 4096),
        "epochs": Int(0, 10_000),
        "learning_rate": Real(0.0, 1.0, low_open=True),
        "seed": Int(0, 2**63 - 1),
        "vector_dim": Int(1, 4096),
    }
