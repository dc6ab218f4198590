"""Which settings each kind of pool reads (:func:`settings_read`), and so which changed
settings cannot change the ranking of a pool of that kind (:func:`unread_on`).

The kinds are those of :func:`cage_core.methods.cage.pool_kind`; a setting is named by its
dotted path (``chain.length``). Under a config, a pool of each kind reads:

==========  ================================================================================
kind        settings read
==========  ================================================================================
every kind  ``coherence``, ``contradiction_weight`` (and ``contradiction_overlap`` when the
            weight is > 0), ``max_parse_chars``
paper       ``alpha``, ``encoder.*``
document    ``document.*``
titled      ``alpha``, ``chain.length``, the bridge settings (below); with the chain on,
            ``chain.*`` and the gates ``gate.titled``, ``gate.sentence_titles`` (with
            ``gate.min_query_subjects`` while one of them is on); with it off, ``core_size``
untitled    ``core_size``, ``chain.length``, the bridge settings, ``untitled.*`` (the short
            chain's ``untitled.chain_*`` while ``untitled.chain_window`` > 0), the gates
            ``gate.untitled`` (with ``gate.min_query_subjects`` while it is on),
            ``gate.min_subject_share``,
            ``gate.unnamed_subjects``
==========  ================================================================================

The bridge settings are ``lexical_weight``, ``entity_weight``, ``title_links``,
``rgcn_weight`` and ``string_rules``, with ``encoder.*`` while ``rgcn_weight`` > 0; a titled
or untitled pool also reads ``document.enabled`` while it is ``False`` (a pool with document
structure is then one of them). ``graph_cache_size`` bounds a cache: no ranking reads it.

``tests/config/test_settings_effect.py`` checks this table against rankings: each setting,
changed, moves a ranking of small real pools of exactly the kinds that read it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Literal, Protocol, TypeVar

from cage_core.config.chain import ChainConfig
from cage_core.config.document import DocumentConfig
from cage_core.config.encoder import EncoderConfig
from cage_core.config.gate import GateConfig
from cage_core.config.untitled import UntitledConfig

__all__ = [
    "CACHE_BOUNDS",
    "CageConfigLike",
    "KINDS",
    "PoolKind",
    "changed_settings",
    "kinds_reading",
    "leaf_settings",
    "possible_kinds",
    "settings_read",
    "unread_on",
    "with_setting",
    "with_settings",
]

PoolKind = Literal["paper", "document", "untitled", "titled"]
"""The kinds of pool (:data:`cage_core.ranking.pool_scores.PoolKind`)."""
KINDS: tuple[PoolKind, ...] = ("titled", "untitled", "document", "paper")
CACHE_BOUNDS: tuple[str, ...] = ("graph_cache_size",)
"""Settings that bound a cache: no ranking reads them, and no warning names them."""


class CageConfigLike(Protocol):
    """What this module reads of a :class:`cage_core.config.CageConfig` (which imports it)."""

    @property
    def coherence(self) -> str: ...
    @property
    def contradiction_weight(self) -> float: ...
    @property
    def rgcn_weight(self) -> float: ...
    @property
    def chain(self) -> ChainConfig: ...
    @property
    def untitled(self) -> UntitledConfig: ...
    @property
    def document(self) -> DocumentConfig: ...
    @property
    def gate(self) -> GateConfig: ...
    @property
    def encoder(self) -> EncoderConfig: ...
    def ineffective_settings(self) -> dict[str, tuple[str, ...]]: ...
    def replace(self, **changes: Any) -> Any: ...


_Config = TypeVar("_Config", bound=CageConfigLike)

_EVERY_KIND = ("coherence", "contradiction_weight", "max_parse_chars")
_BRIDGE = ("lexical_weight", "entity_weight", "title_links", "rgcn_weight", "string_rules")
_SHORT_CHAIN = (
    "chain_length",
    "chain_mention_weight",
    "chain_entity_weight",
    "chain_entity_cap",
    "chain_query_named_penalty",
)


def leaf_settings(config: Any, prefix: str = "") -> dict[str, Any]:
    """Every setting of ``config`` by dotted name (a field holding a config is entered)."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(config):
        value = getattr(config, f.name)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            out.update(leaf_settings(value, f"{prefix}{f.name}."))
        else:
            out[prefix + f.name] = value
    return out


_DEFAULTS: dict[type, dict[str, Any]] = {}
"""The :func:`leaf_settings` of each config class's default, made once."""


def changed_settings(config: CageConfigLike) -> tuple[str, ...]:
    """The dotted names of the settings of ``config`` that differ from the defaults."""
    kind = type(config)
    defaults = _DEFAULTS.get(kind) or _DEFAULTS.setdefault(kind, leaf_settings(kind()))
    return tuple(n for n, v in leaf_settings(config).items() if v != defaults[n])


def with_setting(config: _Config, name: str, value: Any) -> _Config:
    """``config`` with the setting of dotted ``name`` (``"document.anchors"``) set to ``value``
    (validated like a new config)."""
    return with_settings(config, {name: value})


def with_settings(config: _Config, changes: Mapping[str, Any]) -> _Config:
    """``config`` with each setting of ``changes`` (dotted name → value:
    ``{"alpha": 1.0, "chain.length": 0}``) set, as one new config: validated like one, and
    warning of what has no effect in it alone, not in a step on the way."""
    values: dict[str, Any] = {}
    nested: dict[str, dict[str, Any]] = {}
    for name, value in changes.items():
        part, _, field = name.rpartition(".")
        if part:
            nested.setdefault(part, {})[field] = value
        else:
            values[name] = value
    for part, fields in nested.items():
        values[part] = dataclasses.replace(getattr(config, part), **fields)
    return config.replace(**values) if values else config


def _fields(config: Any, prefix: str) -> set[str]:
    return {f"{prefix}.{f.name}" for f in dataclasses.fields(config)}


def settings_read(config: CageConfigLike, kind: PoolKind) -> frozenset[str]:
    """The dotted settings the ranking of a ``kind`` pool reads under ``config`` (the table
    of the module docstring)."""
    read = set(_EVERY_KIND)
    if config.contradiction_weight:
        read.add("contradiction_overlap")
    if kind == "paper":
        return frozenset(read | {"alpha"} | _fields(config.encoder, "encoder"))
    if kind == "document":
        return frozenset(read | _fields(config.document, "document"))
    read |= {*_BRIDGE, "chain.length"}
    if config.rgcn_weight:
        read |= _fields(config.encoder, "encoder")
    if not config.document.enabled:
        read.add("document.enabled")
    gate = config.gate
    if kind == "titled":
        read.add("alpha")
        if not config.chain.length:
            return frozenset(read | {"core_size"})
        read |= _fields(config.chain, "chain") | {"gate.titled", "gate.sentence_titles"}
        if gate.titled or gate.sentence_titles:
            read.add("gate.min_query_subjects")
        return frozenset(read)
    read |= {"core_size", "gate.untitled", "gate.min_subject_share", "gate.unnamed_subjects"}
    read |= _fields(config.untitled, "untitled")
    if not config.untitled.chain_window:
        read -= {f"untitled.{n}" for n in _SHORT_CHAIN}
    if gate.untitled:
        read.add("gate.min_query_subjects")
    return frozenset(read)


def possible_kinds(config: CageConfigLike) -> tuple[PoolKind, ...]:
    """The kinds a pool can be under ``config`` (only ``paper`` under ``coherence="rgcn"``;
    no ``untitled`` with the chain off, no ``document`` with the view off)."""
    if config.coherence == "rgcn":
        return ("paper",)
    return tuple(
        kind
        for kind in KINDS
        if kind == "titled"
        or (kind == "untitled" and config.chain.length)
        or (kind == "document" and config.document.enabled)
    )


def kinds_reading(config: CageConfigLike, name: str) -> tuple[PoolKind, ...]:
    """The kinds, among :func:`possible_kinds`, whose ranking reads setting ``name``."""
    return tuple(k for k in possible_kinds(config) if name in settings_read(config, k))


def unread_on(config: CageConfigLike, kind: PoolKind) -> tuple[str, ...]:
    """The settings changed from their defaults that cannot change the ranking of a ``kind``
    pool under ``config`` though they change another kind's; those that change no pool's
    (:meth:`cage_core.config.CageConfig.ineffective_settings`, logged when the config is built) and
    :data:`CACHE_BOUNDS` are left out. Empty for a kind the config never ranks."""
    changed = changed_settings(config)
    if not changed or kind not in possible_kinds(config):
        return ()
    nowhere = {n for names in config.ineffective_settings().values() for n in names}
    read = settings_read(config, kind)
    return tuple(
        n
        for n in changed
        if n not in read
        and n not in CACHE_BOUNDS
        and not any(n == m or n.startswith(f"{m}.") for m in nowhere)
    )
