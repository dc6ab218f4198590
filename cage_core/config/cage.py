"""Settings of the CAGE reranker: the fusion, the parser and cache bounds, and one config per
pool kind (:class:`ChainConfig`, :class:`UntitledConfig`, :class:`DocumentConfig`,
:class:`GateConfig`, :class:`EncoderConfig`).

A setting changed from its default that has no effect in the chosen mode is logged once as a
warning; one that has no effect on one kind of pool (:meth:`CageConfig.ineffective_on`) is
logged once when the first such pool is ranked.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from cage_core.config.chain import ChainConfig
from cage_core.config.document import DocumentConfig
from cage_core.config.encoder import EncoderConfig
from cage_core.config.gate import GateConfig
from cage_core.config.kinds import (
    PoolKind,
    kinds_reading,
    leaf_settings,
    settings_read,
    unread_on,
)
from cage_core.config.untitled import UntitledConfig
from cage_core.config.validation import (
    UNIT,
    WEIGHT,
    Flag,
    InstanceOf,
    Int,
    OneOf,
    Ranges,
    RuleSet,
    Validated,
    warn_once,
)
from cage_core.lang.en import STRING_RULES

__all__ = ["PRESETS", "CageConfig", "CoherenceKind", "config_as_json", "kinds_by_setting"]

CoherenceKind = Literal["bridge", "rgcn"]

_COHERENCE: tuple[str, ...] = ("bridge", "rgcn")

_BRIDGE_SETTINGS: tuple[str, ...] = (
    "lexical_weight",
    "entity_weight",
    "title_links",
    "core_size",
    "rgcn_weight",
    "chain",
    "untitled",
    "document",
    "gate",
    "string_rules",
)

_KIND_TEXT: dict[str, str] = {
    "titled": "titled pools (a passage has a title: alpha and the evidence chain, or "
    "core_size with the chain off, rank them)",
    "untitled": "untitled pools (no passage has a title: the subject core, untitled.*, ranks "
    "them, with untitled.alpha as their α)",
    "document": "pools with document structure (chunks sharing a doc_id, e.g. split documents: "
    "the document view ranks them, with its own settings document.*)",
    "paper": "pools in the paper's mode (coherence='rgcn': the R-GCN, encoder.*, and alpha rank "
    "them)",
}
"""How a warning of :meth:`CageConfig.warn_ineffective_on` names each kind of pool."""


@dataclass(frozen=True)
class CageConfig(Validated):
    """Settings of the CAGE reranker (formulas in :mod:`cage_core.methods.cage`).

    The default fuses pool-normalised relevance with *bridge coherence* (links from a passage
    to the query-relevant core of the pool; see :mod:`cage_core.ranking.links`).
    ``CageConfig.preset("paper")`` is the published method: R-GCN coherence, raw cosine
    relevance, α = 0.7. With the chain on (``chain.length > 0``), a titled pool takes the
    chain as its core (``core_size`` is read by untitled pools only) and an untitled pool
    uses ``untitled.alpha`` (``alpha`` is read by titled pools only). A pool with document
    structure (chunks of split documents) is ranked by the document view, which reads
    ``document.*`` and none of ``alpha``, ``core_size``, ``lexical_weight``, ``chain.*``,
    ``untitled.*`` or ``gate.*``. What each kind of pool reads is the table of
    :mod:`cage_core.config.kinds`; a changed setting that a pool does not read is logged
    once per setting and kind, when the first such pool is ranked.

    Attributes:
        alpha: fusion weight α in [0, 1].
        coherence: ``"bridge"`` (default) or ``"rgcn"`` (the paper's coherence term).
        lexical_weight: weight of pool-IDF BM25 in the bridge-mode relevance (0: cosine only).
        entity_weight: weight of shared named entities against title mentions in bridge links.
        title_links: whether a passage naming another passage's title links them.
        core_size: how many of the most relevant passages form the core of bridge coherence.
        rgcn_weight: weight of the R-GCN coherence to the core added to bridge coherence (0: none).
        contradiction_weight: weight of the factual-consistency penalty (0: off).
        contradiction_overlap: word overlap from which two passages can conflict.
        max_parse_chars: passages longer than this are cut before parsing (with a warning).
        graph_cache_size: graphs and embeddings kept in the in-memory LRU caches (0: none).
        chain: the evidence chain that places a titled pool's first passages (:class:`ChainConfig`).
        untitled: how a pool with no title is ranked, chain on (:class:`UntitledConfig`).
        document: how a pool with document structure is ranked (:class:`DocumentConfig`).
        gate: which pools keep their relevance order (:class:`GateConfig`).
        encoder: the R-GCN encoder (its ``vector_dim`` also sizes parsed graphs' word vectors).
        string_rules: the named string rules of subjects and aliases (``cage eval --ablate-rule``).

    ``chain``, ``untitled``, ``document``, ``gate`` and ``string_rules`` act in bridge mode only.
    Where each default comes from (grid, metric, out-of-fold result, script, commit):
    ``docs/provenance.md``, one row per field.

    The encoder's settings are set on its config: ``CageConfig(encoder=EncoderConfig(epochs=7))``,
    or by dotted name, ``with_setting(config, "encoder.epochs", 7)``
    (:func:`~cage_core.config.kinds.with_setting`).
    """

    alpha: float = 1 / 3
    coherence: CoherenceKind = "bridge"
    lexical_weight: float = 0.5
    entity_weight: float = 0.5
    title_links: bool = True
    core_size: int = 3
    rgcn_weight: float = 0.0
    contradiction_weight: float = 0.0
    contradiction_overlap: float = 0.5
    max_parse_chars: int = 20_000
    graph_cache_size: int = 4096
    chain: ChainConfig = field(default_factory=ChainConfig)
    untitled: UntitledConfig = field(default_factory=UntitledConfig)
    encoder: EncoderConfig = field(default_factory=EncoderConfig)
    string_rules: frozenset[str] = STRING_RULES
    document: DocumentConfig = field(default_factory=DocumentConfig)
    gate: GateConfig = field(default_factory=GateConfig)

    def __post_init__(self) -> None:
        super().__post_init__()
        _warn_ineffective(self)

    RANGES: ClassVar[Ranges] = {
        "alpha": UNIT,
        "coherence": OneOf(_COHERENCE),
        "lexical_weight": WEIGHT,
        "entity_weight": WEIGHT,
        "title_links": Flag(),
        "core_size": Int(1, 10_000),
        "rgcn_weight": WEIGHT,
        "contradiction_weight": WEIGHT,
        "contradiction_overlap": UNIT,
        "max_parse_chars": Int(1, 10_000_000),
        "graph_cache_size": Int(0, 10_000_000),
        "chain": InstanceOf(ChainConfig),
        "untitled": InstanceOf(UntitledConfig),
        "document": InstanceOf(DocumentConfig),
        "gate": InstanceOf(GateConfig),
        "encoder": InstanceOf(EncoderConfig),
        "string_rules": RuleSet(),
    }

    @property
    def uses_rgcn(self) -> bool:
        """Whether ranking under this config trains the encoder (reads node word vectors)."""
        return self.coherence == "rgcn" or bool(self.rgcn_weight)

    def ineffective_settings(self) -> dict[str, tuple[str, ...]]:
        """The settings changed from their defaults that cannot change a ranking under this
        config, by the reason why (empty when every change matters)."""
        changed = dict(_changed(self))
        unused: dict[str, tuple[str, ...]] = {}
        if not self.uses_rgcn:
            unused["coherence='bridge' with rgcn_weight=0 never trains the encoder"] = tuple(
                f"encoder.{n}" for n, _ in _changed(self.encoder)
            )
        if self.coherence == "rgcn":
            unused["coherence='rgcn' reads no bridge relevance or links"] = tuple(
                n for n in _BRIDGE_SETTINGS if n in changed
            )
        if self.coherence == "bridge" and not self.chain.length and "untitled" in changed:
            unused[
                "untitled pools are ranked by UntitledConfig only while the chain is on "
                "(chain.length > 0)"
            ] = ("untitled",)
        if self.coherence == "bridge" and not self.chain.length:
            unused[
                "chain.length=0 turns the chain off, and with it the gates (they act on "
                "titled pools with the chain and on untitled pools, which are then ranked "
                "as titled)"
            ] = tuple(f"chain.{n}" for n, _ in _changed(self.chain) if n != "length") + tuple(
                f"gate.{n}" for n, _ in _changed(self.gate)
            )
        if self.coherence == "bridge" and self.chain.length and not self.untitled.chain_window:
            unused["untitled.chain_window=0 turns the untitled pools' short chain off"] = tuple(
                f"untitled.{n}"
                for n, _ in _changed(self.untitled)
                if n.startswith("chain_") and n != "chain_window"
            )
        if not self.document.enabled:
            unused["document.enabled=False turns the document view off"] = tuple(
                f"document.{n}" for n, _ in _changed(self.document) if n != "enabled"
            )
        gates_off = not (self.gate.titled or self.gate.untitled or self.gate.sentence_titles)
        if gates_off and self.chain.length and "min_query_subjects" in dict(_changed(self.gate)):
            unused[
                "gate.titled=gate.untitled=gate.sentence_titles=False turn off the gates that "
                "read gate.min_query_subjects"
            ] = ("gate.min_query_subjects",)
        if not self.contradiction_weight and "contradiction_overlap" in changed:
            unused["contradiction_weight=0 turns the contradiction penalty off"] = (
                "contradiction_overlap",
            )
        return {reason: names for reason, names in unused.items() if names}

    def ineffective_on(self, pool: PoolKind) -> tuple[str, ...]:
        """The settings (dotted names) changed from their defaults that cannot change the
        ranking of a ``pool`` of that kind under this config, though they change another
        kind's (:func:`~cage_core.config.kinds.unread_on`; the table of what each kind reads
        is :mod:`cage_core.config.kinds`): with the chain on, a titled pool's core is the
        chain (``core_size`` is read by untitled pools only) and an untitled pool's α is
        ``untitled.alpha`` (``alpha`` is read by titled pools only); the document view reads
        ``document.*`` and none of ``alpha``, ``core_size``, ``lexical_weight``, ``chain.*``,
        ``untitled.*``, ``gate.*``."""
        return unread_on(self, pool)

    def warn_ineffective_on(self, pool: PoolKind) -> None:
        """Log each of :meth:`ineffective_on` once per process, setting and pool kind (cheap
        when empty): the dispatch calls it for every pool it ranks."""
        for name in self.ineffective_on(pool):
            applies = kinds_reading(self, name)
            where = " and ".join(applies) + " pools only" if applies else "no pool"
            if "titled" in applies and not self.chain.length:
                where += " (with the chain off, every pool without document structure)"
            value = leaf_settings(self)[name]
            warn_once(
                f"CageConfig: {name}={value!r} has no effect on {_KIND_TEXT[pool]}; it applies "
                f"to {where}",
                key=f"{pool}:{name}",
            )

    @classmethod
    def preset(cls, name: str) -> CageConfig:
        """A named configuration: ``"paper"`` is the paper's method as published."""
        try:
            return PRESETS[name]
        except KeyError:
            raise ValueError(f"unknown preset {name!r}; choose one of {sorted(PRESETS)}") from None


def _changed(config: Any) -> list[tuple[str, Any]]:
    """The ``(name, value)`` fields of a config dataclass that differ from their defaults."""
    changed = []
    for f in dataclasses.fields(config):
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        if getattr(config, f.name) != default:
            changed.append((f.name, getattr(config, f.name)))
    return changed


def _warn_ineffective(config: CageConfig) -> None:
    """Log each of :meth:`CageConfig.ineffective_settings` once per process."""
    for reason, names in config.ineffective_settings().items():
        warn_once(
            f"CageConfig: {', '.join(names)} ha{'s' if len(names) == 1 else 've'} "
            f"no effect: {reason}"
        )


PRESETS: dict[str, CageConfig] = {
    "default": CageConfig(),
    "paper": CageConfig(
        coherence="rgcn",
        alpha=0.7,
        encoder=EncoderConfig(beta=2.0, hidden_dim=128, epochs=50, learning_rate=1e-3),
    ),
}


def kinds_by_setting() -> dict[str, tuple[PoolKind, ...]]:
    """Each setting (dotted name) → the kinds of pool whose ranking it can change under the
    shipped configs: ``CageConfig()`` for titled, untitled and document pools,
    ``preset("paper")`` for paper pools (:func:`~cage_core.config.kinds.settings_read`). The
    "acts on" column of the settings table in docs/configuration.md;
    ``tests/config/test_settings_effect.py`` checks it against real rankings."""
    default, paper = CageConfig(), PRESETS["paper"]
    bridge: tuple[PoolKind, ...] = ("titled", "untitled", "document")
    return {
        name: tuple(k for k in bridge if name in settings_read(default, k))
        + (("paper",) if name in settings_read(paper, "paper") else ())
        for name in leaf_settings(default)
    }


def config_as_json(config: CageConfig) -> dict[str, Any]:
    """``config`` as plain JSON values (nested configs as dicts, ``string_rules`` as a sorted
    list): what serialisers (``cage eval``'s results.json, LlamaIndex's ``to_json`` and
    ingestion cache keys) write."""
    return {**dataclasses.asdict(config), "string_rules": sorted(config.string_rules)}
