"""Validated settings of the CAGE reranker and of the graph encoder it trains.

A :class:`CageConfig` holds what the reranker itself needs: the fusion (α, coherence mode,
the bridge-mode relevance and links, the contradiction penalty), the parser and cache
bounds, and — as one :class:`EncoderConfig` — the R-GCN that the paper's coherence trains.
The other methods own their settings (:class:`~cage_core.methods.grapher.GraphERConfig`,
:class:`~cage_core.methods.tegr.TEGRConfig`). ``EncoderConfig`` is defined here, not in
:mod:`cage_core.paper.encoder`, so that importing a configuration never loads torch.

Every config is immutable; derive variants with ``replace``. Each config declares the
accepted value of every field in one table, ``RANGES`` (field → :class:`Real`, :class:`Int`,
:class:`Flag`, …), checked in one place (:func:`validate`, run by :class:`Validated`):
invalid values raise :class:`ValueError` (or :class:`TypeError`) at construction, naming the
field and the accepted range, so a bad setting never reaches spaCy or torch. A setting
changed from its default that has no effect in the chosen mode is logged once as a warning;
one that has no effect on one kind of pool (:meth:`CageConfig.ineffective_on`) is logged once
when the first such pool is ranked, once per setting and kind.

Modules: ``validation`` (the kit: ranges, :func:`validate`, :func:`warn_once`), one config per
pool kind — ``chain`` (titled pools), ``untitled``, ``document``, ``gate`` (the relevance
gate), ``encoder`` (the paper's R-GCN) — ``cage`` (:class:`CageConfig`, the presets) and
``kinds`` (which settings each kind of pool reads, and settings changed by dotted name). Where each
default comes from: ``docs/provenance.md``.
"""

from cage_core.config.cage import (
    PRESETS,
    CageConfig,
    CoherenceKind,
    config_as_json,
    kinds_by_setting,
)
from cage_core.config.chain import ChainConfig
from cage_core.config.document import DocumentConfig
from cage_core.config.encoder import EncoderConfig, EncoderKind
from cage_core.config.gate import GateConfig
from cage_core.config.untitled import UntitledConfig
from cage_core.config.validation import (
    UNIT,
    WEIGHT,
    Flag,
    InstanceOf,
    Int,
    OneOf,
    Range,
    Ranges,
    Real,
    RuleSet,
    Validated,
    check_bool,
    check_int,
    check_real,
    quiet_warnings,
    validate,
    warn_once,
)

__all__ = [
    "PRESETS",
    "UNIT",
    "WEIGHT",
    "CageConfig",
    "ChainConfig",
    "CoherenceKind",
    "DocumentConfig",
    "EncoderConfig",
    "EncoderKind",
    "Flag",
    "GateConfig",
    "InstanceOf",
    "Int",
    "OneOf",
    "Range",
    "Ranges",
    "Real",
    "RuleSet",
    "UntitledConfig",
    "Validated",
    "check_bool",
    "config_as_json",
    "kinds_by_setting",
    "check_int",
    "check_real",
    "quiet_warnings",
    "validate",
    "warn_once",
]
