"""The compatibility shim of :class:`~cage_core.config.CageConfig`: the encoder's settings
given flat (``CageConfig(epochs=7)``), as before the encoder had its own config, and the
encoder given as just its kind (``encoder="gcn"``)."""

from __future__ import annotations

from typing import Any

from cage_core.config.encoder import ENCODER_KINDS, ENCODER_SETTINGS, EncoderConfig

__all__ = ["encoder_config"]


def encoder_config(encoder: EncoderConfig | str | None, flat: dict[str, Any]) -> EncoderConfig:
    """The encoder config of ``CageConfig(encoder=…, **flat)`` (see its "Compatibility")."""
    unknown = sorted(set(flat) - set(ENCODER_SETTINGS))
    if unknown:
        raise TypeError(
            f"CageConfig got unexpected settings {unknown}; GraphER's and TEGR's "
            f"settings live in GraphERConfig and TEGRConfig"
        )
    if encoder is None or isinstance(encoder, str):
        settings: dict[str, Any] = {} if encoder is None else {"kind": encoder}
        return EncoderConfig(**settings, **flat)
    if not isinstance(encoder, EncoderConfig):
        raise TypeError(
            f"encoder must be an EncoderConfig or a kind in {ENCODER_KINDS}, "
            f"got {type(encoder).__name__}"
        )
    conflicting = sorted(n for n, v in flat.items() if v != getattr(encoder, n))
    if conflicting:
        raise ValueError(
            f"{', '.join(conflicting)} given both flat and in encoder= with different values"
        )
    return encoder
