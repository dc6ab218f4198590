"""Validated settings of the CAGE reranker and of the graph encoder it trains.

A :class:`CageConfig` holds what the reranker itself needs: the fusion (α, coherence mode,
the bridge-mode relevance and links, the contradiction penalty), the parser and cache
bounds, and — as one :class:`EncoderConfig` — the R-GCN that the paper's coherence trains.
The other methods own their settings (:class:`~cage_core.methods.grapher.GraphERConfig`,
:class:`~cage_core.methods.tegr.TEGRConfig`). ``EncoderConfig`` is defined here, not in
:mod:`cage_core.paper.encoder`, so that importing a configuration never loads torch.

Every config is immutable; derive variants with ``replace``. Each config declares the
accepted value of every field in one table, ``RANGES`` (field → :class:`Real`, :class:`Int`,
:class:`Flag`, …), checked in one place (:func:`validate`): invalid values raise
:class:`ValueError` (or :class:`TypeError`) at construction, naming the field and the
accepted range, so a bad setting never reaches spaCy or torch. A setting changed from its
default that has no effect in the chosen mode is logged once as a warning; one that has no
effect on one kind of pool (:meth:`CageConfig.ineffective_on`) is logged once when the first
such pool is ranked.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Protocol

from cage_core.lang.en import STRING_RULES, check_rules

__all__ = [
    "ENCODER_SETTINGS",
    "PRESETS",
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
    "Real",
    "RuleSet",
    "UntitledConfig",
    "check_bool",
    "config_as_json",
    "check_int",
    "check_real",
    "validate",
    "warn_once",
]


logger = logging.getLogger(__name__)

EncoderKind = Literal["rgcn", "gcn"]
CoherenceKind = Literal["bridge", "rgcn"]

_ENCODERS: tuple[str, ...] = ("rgcn", "gcn")
_COHERENCE: tuple[str, ...] = ("bridge", "rgcn")


# -- declarative ranges ------------------------------------------------------------------------
class Range(Protocol):
    """The accepted values of one field: ``check(name, value)`` raises unless ``value`` is one."""

    def check(self, name: str, value: object) -> None: ...


Ranges = Mapping[str, Range]
"""A config's table of field name → accepted values (its ``RANGES``)."""


@dataclass(frozen=True)
class Real:
    """A finite real in ``[low, high]`` (``(low, high]`` with ``low_open``); not a bool."""

    low: float
    high: float
    low_open: bool = False

    def check(self, name: str, value: object) -> None:
        check_real(name, value, low=self.low, high=self.high, low_open=self.low_open)


@dataclass(frozen=True)
class Int:
    """An int (not a bool) in ``[low, high]``."""

    low: int
    high: int

    def check(self, name: str, value: object) -> None:
        check_int(name, value, low=self.low, high=self.high)


@dataclass(frozen=True)
class Flag:
    """A bool (not 0/1 or another truthy value)."""

    def check(self, name: str, value: object) -> None:
        check_bool(name, value)


@dataclass(frozen=True)
class OneOf:
    """One of ``choices``; the error calls the field ``label`` (default its name)."""

    choices: tuple[str, ...]
    label: str = ""

    def check(self, name: str, value: object) -> None:
        if value not in self.choices:
            raise ValueError(f"{self.label or name} must be one of {self.choices}, got {value!r}")


@dataclass(frozen=True)
class InstanceOf:
    """An instance of ``kind`` (a nested config)."""

    kind: type

    def check(self, name: str, value: object) -> None:
        if not isinstance(value, self.kind):
            raise TypeError(
                f"{name} must be a{'n' if self.kind.__name__[0] in 'AEIOU' else ''} "
                f"{self.kind.__name__}, got {type(value).__name__}"
            )


@dataclass(frozen=True)
class RuleSet:
    """A frozenset of :data:`~cage_core.lang.en.STRING_RULES` names."""

    def check(self, name: str, value: object) -> None:
        if not isinstance(value, frozenset):
            raise TypeError(f"{name} must be a frozenset of rule names, got {type(value).__name__}")
        check_rules(value, name)


WEIGHT = Real(0.0, 100.0)
"""The range of a non-negative weight or gain."""
UNIT = Real(0.0, 1.0)
"""The range of a fraction (α, a decay, an overlap)."""


def validate(config: object, ranges: Ranges, prefix: str = "") -> None:
    """Raise unless every field of ``config`` named in ``ranges`` has an accepted value (the
    error names the field ``prefix + name``, e.g. ``"document.anchors"``)."""
    for name, accepted in ranges.items():
        accepted.check(prefix + name, getattr(config, name))


@dataclass(frozen=True)
class EncoderConfig:
    """Settings of the per-query trained graph encoder (:mod:`cage_core.paper.encoder`).

    Equal configs give equal encodings of the same graphs, so a config is the key under
    which a pool's encoding is shared (:class:`~cage_core.paper.encodings.EncodingCache`).

    Attributes:
        kind: ``"rgcn"`` (relation-specific weights, the paper) or ``"gcn"`` (one shared
            weight, the paper's ablation).
        beta: min-out-degree reweighting factor β (features and adjacent edge weights of
            the nodes with ``deg⁺(v) = δ⁺(G)`` are multiplied by it); ≥ 1, 1 disables it.
        hidden_dim: size of the graph embedding ``Z_i``; paper: 128.
        epochs: per-query training epochs of the diversity objective; paper: 30–60.
        learning_rate: Adam learning rate; paper: 1e-3.
        seed: seed of the freshly initialised encoder, so rankings are reproducible.
        vector_dim: width of the word-vector part of node features; vectors of another
            width are truncated or zero-padded to it (300 = en_core_web_md/lg).
    """

    kind: EncoderKind = "rgcn"
    beta: float = 2.0
    hidden_dim: int = 128
    epochs: int = 50
    learning_rate: float = 1e-3
    seed: int = 0
    vector_dim: int = 300

    RANGES: ClassVar[Ranges] = {
        "kind": OneOf(_ENCODERS, "encoder kind"),
        "beta": Real(1.0, 1e3),
        "hidden_dim": Int(1, 4096),
        "epochs": Int(0, 10_000),
        "learning_rate": Real(0.0, 1.0, low_open=True),
        "seed": Int(0, 2**63 - 1),
        "vector_dim": Int(1, 4096),
    }
    """The accepted value of each field (checked by :func:`validate` at construction)."""

    def __post_init__(self) -> None:
        validate(self, self.RANGES)

    def replace(self, **changes: Any) -> EncoderConfig:
        """Return a copy with ``changes`` applied (validated like a new config)."""
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True)
class ChainConfig:
    """Settings of the evidence-chain selection of the default coherence
    (:mod:`cage_core.ranking.chain`, where the formula is). Chosen by 5-fold
    cross-validation over the questions of the DEV files (README, "Evaluation").

    Attributes:
        length: how many passages the chain selects before the rest of the pool is ranked
            by bridge coherence to them; 0 turns the selection off (the ``core_size`` most
            relevant passages then form the core, as before cage-rag 0.3).
        title_weight: gain of a candidate whose title a selected passage's text names
            (the forward hop of a bridge question).
        entity_weight: gain per unit of shared-entity weight ``E_sj`` with a selected
            passage (:func:`~cage_core.ranking.links.shared_entity_links`).
        entity_cap: the shared-entity weight counted at most, so near-copies that share
            many names do not outweigh a single bridge.
        query_title_weight: gain of a candidate whose title the query names (both compared
            entities of a comparison question, the first hop of a bridge question).

    A redundancy check (no link gain from a near-copy of a selected passage, by word overlap)
    was cross-validated too and not chosen (commit d299c8b); it left in cage-rag 0.4.
    """

    length: int = 3
    title_weight: float = 6.0
    entity_weight: float = 0.6
    entity_cap: float = 5.0
    query_title_weight: float = 1.5

    RANGES: ClassVar[Ranges] = {
        "length": Int(0, 10_000),
        "title_weight": WEIGHT,
        "entity_weight": WEIGHT,
        "entity_cap": Real(0.0, 1e6),
        "query_title_weight": WEIGHT,
    }
    """The accepted value of each field (checked by :func:`validate` at construction)."""

    def __post_init__(self) -> None:
        validate(self, self.RANGES)

    def replace(self, **changes: Any) -> ChainConfig:
        """Return a copy with ``changes`` applied (validated like a new config)."""
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True)
class UntitledConfig:
    """Settings of the default coherence on a pool where no passage has a title, which the
    evidence chain cannot rank (:mod:`cage_core.ranking.untitled_core`, where the formula is). Chosen
    by 5-fold cross-validation over DEV questions pooled across HotpotQA, 2WikiMultihopQA and
    MuSiQue, open retrieval without titles, among the settings that keep RAMDocs' closed-pool
    Recall@5 and its misinformation in the top 5 and top 2 (closed and open pools) at least as
    good as the 0.2 ranking's (``benchmarks/untitled_cv.py``; the ``chain_*`` fields:
    ``benchmarks/untitled_chain_cv.py``).

    Attributes:
        query_subject_weight: relevance added to the most relevant passage about each subject
            the query names (both compared entities of a comparison question).
        forward_weight: link weight when a core passage's text names the candidate's subject
            (the forward hop of a bridge question).
        backward_weight: link weight when the candidate's text names a core passage's subject.
        core_decay: the link to the t-th most relevant core passage (0-based) counts
            ``core_decay**t``: a link to the best passage outweighs one to the third.
        alpha: fusion weight α of these pools, in place of :attr:`CageConfig.alpha` (which
            then has no effect on them: a changed ``CageConfig.alpha`` is logged once, when
            the first untitled pool is ranked).
        aliases: match subjects also by their shorter forms
            (:func:`~cage_core.ranking.subjects.subject_aliases`).
        chain_window: the short chain reorders only the ``chain_window`` best passages of
            the fused ranking, so Recall@``chain_window`` is the subject core's; 0 turns the
            short chain off (chosen with ``benchmarks/untitled_chain_cv.py``, as are the
            fields below).
        chain_length: how many passages the short chain ranks first.
        chain_mention_weight: gain of a candidate whose subject a chain passage's text names.
        chain_entity_weight: gain per shared-entity link to a chain passage, the link capped
            at ``chain_entity_cap``.
        chain_entity_cap: cap of the shared-entity link in the short chain.
        chain_query_named_penalty: loss of a candidate the query names that is not the most
            relevant passage about that part of the query.

    A loss for a candidate sharing a name with a chain passage was cross-validated too
    (``benchmarks/untitled_chain_cv.py`` before cage-rag 0.4) and not chosen; it left in 0.4.
    """

    query_subject_weight: float = 1.0
    forward_weight: float = 2.0
    backward_weight: float = 1.0
    core_decay: float = 0.85
    alpha: float = 0.25
    aliases: bool = True
    chain_window: int = 5
    chain_length: int = 3
    chain_mention_weight: float = 6.0
    chain_entity_weight: float = 1.0
    chain_entity_cap: float = 2.0
    chain_query_named_penalty: float = 6.0

    RANGES: ClassVar[Ranges] = {
        "query_subject_weight": WEIGHT,
        "forward_weight": WEIGHT,
        "backward_weight": WEIGHT,
        "core_decay": UNIT,
        "alpha": UNIT,
        "aliases": Flag(),
        "chain_window": Int(0, 1000),
        "chain_length": Int(1, 1000),
        "chain_mention_weight": WEIGHT,
        "chain_entity_weight": WEIGHT,
        "chain_entity_cap": Real(0.0, 1e6),
        "chain_query_named_penalty": WEIGHT,
    }
    """The accepted value of each field (checked by :func:`validate` at construction)."""

    def __post_init__(self) -> None:
        validate(self, self.RANGES)

    def replace(self, **changes: Any) -> UntitledConfig:
        """Return a copy with ``changes`` applied (validated like a new config)."""
        return dataclasses.replace(self, **changes)


ENCODER_SETTINGS: tuple[str, ...] = tuple(
    f.name for f in dataclasses.fields(EncoderConfig) if f.name != "kind"
)
"""The :class:`EncoderConfig` fields that :class:`CageConfig` also accepts flat
(``CageConfig(epochs=7)``), as before the encoder had its own config."""

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


@dataclass(frozen=True)
class DocumentConfig:
    """Settings of the document view (:mod:`cage_core.ranking.document_links`, where the formula is).

    Chosen by 5-fold cross-validation over every DEV file pooled (HotpotQA, 2WikiMultihopQA,
    MuSiQue, RAMDocs closed and open, DragonBall, SciFact abstracts and chunks, with and
    without expansion; 2,854 pools; ``benchmarks/beyond_cv.py``, a grid of 192 points for the
    view: the point chosen on all folds; the folds chose ``document_weight`` 2,
    ``adjacent_weight`` 1.5 and ``lexical_weight`` 1.5 five times, ``anchors`` 2 four times
    and 1 once); only the DragonBall
    and SciFact-chunk pools have document structure, the others are ranked as before whatever
    these are. A bonus for each named document's best chunk (a third weight) was chosen 0 by
    every fold of the grid with it: the best chunks anchor adjacency instead (a field that
    only ever ran at 0, removed). Variants not chosen: ``benchmarks/document_view_variants.py``.

    Attributes:
        enabled: rank pools with document structure by the document view (``False``: as any
            other pool).
        document_weight: ``w_d``, relevance added to every chunk of a document the query names.
        adjacent_weight: ``w_a``, a chunk adjacent to a lead or anchor gains
            ``max(w_d · N, w_a)`` instead of ``w_d · N``.
        anchors: ``m``, how many of the most relevant passages also anchor adjacency.
        lexical_weight: ``w_lex`` of the view's relevance ``r = z(sim) + w_lex · z(bm25)``,
            BM25 over each untitled chunk after its document's subject unless the chunk
            names it (``CageConfig.lexical_weight`` is the other pools'): chunks of
            documents written alike (one template, one domain) differ in their terms more
            than in their embeddings.
    """

    enabled: bool = True
    document_weight: float = 2.0
    adjacent_weight: float = 1.5
    anchors: int = 2
    lexical_weight: float = 1.5

    RANGES: ClassVar[Ranges] = {
        "enabled": Flag(),
        "document_weight": WEIGHT,
        "adjacent_weight": WEIGHT,
        "anchors": Int(0, 1000),
        "lexical_weight": WEIGHT,
    }
    """The accepted value of each field (checked by :func:`validate` at construction)."""

    def __post_init__(self) -> None:
        validate(self, self.RANGES, "document.")

    def replace(self, **changes: Any) -> DocumentConfig:
        """Return a copy with ``changes`` applied (validated like a new config)."""
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True)
class GateConfig:
    """Settings of the relevance gate (:mod:`cage_core.ranking.relevance_gate`). Over every DEV
    file pooled (``benchmarks/beyond_cv.py``) the titled gate brought SciFact abstracts to
    hybrid (R@5 .777 → .783) but cost MuSiQue's closed pools .007 R@5 and HotpotQA's .002:
    off (not chosen on all folds); the sentence-titles gate acts on no Wikipedia pool and
    brings SciFact abstracts to .738 / .788 (hybrid .738 / .783): on, as a rule, not a
    choice (a pool of titles that are sentences has no confident subjects, so its links are
    shared entities alone, the weak evidence that must not move a passage; when the grid
    held it, 4 folds of 5 chose it); the untitled gate cost MuSiQue's open pools .038 R@5: off.
    The subject-share gate (``min_subject_share``; grid 0, 0.1, …, 0.5 in the same CV) was
    chosen at 0.2 by all five folds and on all folds: it acts on no Wikipedia pool and on no
    pool with document structure, brings RAMDocs open to .604 / .772 (from .595 / .769;
    closed .688 / .888 from .690 / .886, .687 with ``unnamed_subjects``; misinformation
    unchanged) and DragonBall chunks kept without their document ids to .672 / .754 (from
    .614 / .713; hybrid .664 / .757; not in the objective); 0.3 and above raise RAMDocs'
    misinformation. A gated pool is ranked in the hybrid order itself (no coherence, no
    query-subject gain).

    Attributes:
        titled: keep the relevance order of a titled pool whose link evidence is weak.
        untitled: keep the relevance order of an untitled pool whose link evidence is weak.
        sentence_titles: keep the relevance order of a titled pool whose link evidence is
            weak and fewer than half of whose titles are names (paper titles, headlines:
            :func:`~cage_core.ranking.relevance_gate.titles_are_names`).
        min_query_subjects: the fewest passages about a part of the query (``Σ Q``, or the
            titles it names) a pool needs for its links to move passages.
        min_subject_share: keep the relevance order of an untitled pool (ranked with the
            chain on) in which fewer than this share of the passages have a confident subject
            (:func:`~cage_core.ranking.relevance_gate.few_subjects`), whatever the query
            names; 0 turns it off.
        unnamed_subjects: keep the relevance order of an untitled pool (ranked with the
            chain on) fewer than half of whose subjects are names — tagged as a named entity
            by the parser, or named by the query
            (:func:`~cage_core.ranking.relevance_gate.few_named_subjects`) — whatever the
            query names: the untitled twin of ``sentence_titles``, and like it a rule, not a
            grid choice (scientific abstracts open with capitalised common nouns, "Hypoxia,
            a characteristic feature of ...", not names; SciFact chunks kept without their
            document ids ranked .683 / .773 without it, hybrid's .722 / .805 with it; it
            changes no figure of HotpotQA, 2Wiki or MuSiQue, RAMDocs' closed R@3 .688 →
            .687 and not its misinformation; ``benchmarks/beyond_cv.py``).
    """

    titled: bool = False
    untitled: bool = False
    sentence_titles: bool = True
    min_query_subjects: int = 1
    min_subject_share: float = 0.2
    unnamed_subjects: bool = True

    @property
    def enabled(self) -> bool:
        """Whether the gate acts on any pool."""
        return (self.titled or self.untitled or self.sentence_titles
                or self.min_subject_share > 0 or self.unnamed_subjects)  # fmt: skip

    RANGES: ClassVar[Ranges] = {
        "titled": Flag(),
        "untitled": Flag(),
        "sentence_titles": Flag(),
        "unnamed_subjects": Flag(),
        "min_query_subjects": Int(1, 1000),
        "min_subject_share": Real(0.0, 1.0),
    }
    """The accepted value of each field (checked by :func:`validate` at construction)."""

    def __post_init__(self) -> None:
        validate(self, self.RANGES, "gate.")

    def replace(self, **changes: Any) -> GateConfig:
        """Return a copy with ``changes`` applied (validated like a new config)."""
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True, init=False)
class CageConfig:
    """Settings of the CAGE reranker (formulas in :mod:`cage_core.ranking.fusion`).

    The default fuses pool-normalised relevance with *bridge coherence* (links from a passage
    to the query-relevant core of the pool; see :mod:`cage_core.ranking.links`).
    ``CageConfig.preset("paper")`` is the published method: R-GCN coherence, raw cosine
    relevance, α = 0.7.

    Attributes:
        alpha: fusion weight α; in [0, 1]. An untitled pool (no passage has a title) ranked
            with the chain on uses ``untitled.alpha`` instead (:class:`UntitledConfig`); a
            changed ``alpha`` is logged once when the first such pool is ranked.
        coherence: ``"bridge"`` (default) or ``"rgcn"`` (the paper's coherence term).
        lexical_weight: weight of pool-IDF BM25 in the bridge-mode relevance (0 = cosine
            only) of pools without document structure (those with it use
            ``document.lexical_weight``).
        entity_weight: weight of shared named entities against title mentions in bridge links.
        title_links: whether a passage naming another passage's title links them.
        core_size: how many of the most relevant passages form the core that bridge
            coherence is measured against: in every pool when the evidence chain is off
            (``chain.length == 0``), else in untitled pools only (:class:`UntitledConfig`),
            titled pools taking the chain as their core (a changed ``core_size`` is logged
            once when the first titled pool is ranked with the chain on).
        rgcn_weight: weight of the R-GCN coherence to the core added to bridge coherence
            (0 skips the R-GCN entirely).
        contradiction_weight: weight of the factual-consistency penalty (0 = off; see
            :mod:`cage_core.ranking.contradiction`).
        contradiction_overlap: word overlap from which two passages can conflict.
        max_parse_chars: passages longer than this are cut before parsing (a warning is
            logged); bounds the work a single huge passage can cause.
        graph_cache_size: passage graphs, and passage embeddings, kept in the reranker's
            in-memory LRU caches (0 disables them).
        chain: the evidence-chain selection that places the first passages
            (:class:`ChainConfig`; bridge mode only).
        untitled: how the default ranks a pool where no passage has a title, when the chain
            is on (:class:`UntitledConfig`; bridge mode only).
        document: how the default ranks a pool whose passages share documents (``doc_id``;
            :class:`~cage_core.ranking.document_links.DocumentConfig`; bridge mode only).
        gate: when an untitled pool keeps its relevance order
            (:class:`~cage_core.ranking.relevance_gate.GateConfig`; the subject core only).
        encoder: the graph encoder of the R-GCN coherence (``coherence="rgcn"`` or
            ``rgcn_weight > 0``); its ``vector_dim`` also sets the width of the word vectors
            attached to parsed graphs.
        string_rules: the named string rules of the subjects and aliases applied (default
            all of :data:`~cage_core.lang.en.STRING_RULES`); leave one out to measure it
            (``cage eval --ablate-rule NAME``; bridge mode only).

    Compatibility: the encoder's settings (:data:`ENCODER_SETTINGS`: ``beta``,
    ``hidden_dim``, ``epochs``, ``learning_rate``, ``seed``, ``vector_dim``) are also
    accepted flat, by the constructor and :meth:`replace`, and read back as properties;
    ``encoder`` may be given as just its kind (``encoder="gcn"``). A flat setting that
    contradicts an ``encoder`` given in the same call raises :class:`ValueError`.
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

    def __init__(  # the fields' defaults above, plus the flat encoder settings
        self,
        alpha: float = alpha,
        coherence: CoherenceKind = coherence,
        lexical_weight: float = lexical_weight,
        entity_weight: float = entity_weight,
        title_links: bool = title_links,
        core_size: int = core_size,
        rgcn_weight: float = rgcn_weight,
        contradiction_weight: float = contradiction_weight,
        contradiction_overlap: float = contradiction_overlap,
        max_parse_chars: int = max_parse_chars,
        graph_cache_size: int = graph_cache_size,
        chain: ChainConfig | None = None,
        untitled: UntitledConfig | None = None,
        encoder: EncoderConfig | EncoderKind | None = None,
        string_rules: frozenset[str] = string_rules,
        document: DocumentConfig | None = None,
        gate: GateConfig | None = None,
        **encoder_settings: Any,
    ) -> None:
        values = {
            "alpha": alpha, "coherence": coherence, "lexical_weight": lexical_weight,
            "entity_weight": entity_weight, "title_links": title_links, "core_size": core_size,
            "rgcn_weight": rgcn_weight, "contradiction_weight": contradiction_weight,
            "contradiction_overlap": contradiction_overlap, "max_parse_chars": max_parse_chars,
            "graph_cache_size": graph_cache_size, "chain": ChainConfig() if chain is None else chain,
            "untitled": UntitledConfig() if untitled is None else untitled,
            "encoder": _encoder(encoder, encoder_settings), "string_rules": string_rules,
            "document": DocumentConfig() if document is None else document,
            "gate": GateConfig() if gate is None else gate,
        }  # fmt: skip
        for name, value in values.items():
            object.__setattr__(self, name, value)
        self._validate()
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
        "string_rules": RuleSet(),
    }
    """The accepted value of each field (checked by :func:`validate` at construction)."""

    def _validate(self) -> None:
        validate(self, self.RANGES)

    # -- the encoder's settings, read flat (see "Compatibility") ---------------------------
    @property
    def beta(self) -> float:
        return self.encoder.beta

    @property
    def hidden_dim(self) -> int:
        return self.encoder.hidden_dim

    @property
    def epochs(self) -> int:
        return self.encoder.epochs

    @property
    def learning_rate(self) -> float:
        return self.encoder.learning_rate

    @property
    def seed(self) -> int:
        return self.encoder.seed

    @property
    def vector_dim(self) -> int:
        return self.encoder.vector_dim

    @property
    def uses_rgcn(self) -> bool:
        """Whether ranking under this config trains the encoder (reads node word vectors)."""
        return self.coherence == "rgcn" or bool(self.rgcn_weight)

    def ineffective_settings(self) -> dict[str, tuple[str, ...]]:
        """The settings changed from their defaults that cannot change a ranking under this
        config, by the reason why (empty when every change matters)."""
        changed = dict(_changed(self))
        unused = {
            "coherence='bridge' with rgcn_weight=0 never trains the encoder":
                tuple(f"encoder.{n}" for n, _ in _changed(self.encoder)) if not self.uses_rgcn else (),
            "coherence='rgcn' reads no bridge relevance or links":
                tuple(n for n in _BRIDGE_SETTINGS if n in changed) if self.coherence == "rgcn" else (),
            "untitled pools are ranked by UntitledConfig only while the chain is on (chain.length > 0)":
                ("untitled",) if self.coherence == "bridge" and not self.chain.length and "untitled" in changed
                else (),
            "document.enabled=False turns the document view off":
                tuple(f"document.{n}" for n, _ in _changed(self.document) if n != "enabled")
                if not self.document.enabled else (),
            "gate.titled=gate.untitled=gate.sentence_titles=False turn off the gates that read gate.min_query_subjects":
                ("gate.min_query_subjects",) if "min_query_subjects" in dict(_changed(self.gate))
                and not (self.gate.titled or self.gate.untitled or self.gate.sentence_titles) else (),
            "contradiction_weight=0 turns the contradiction penalty off":
                ("contradiction_overlap",) if not self.contradiction_weight and
                "contradiction_overlap" in changed else (),
        }  # fmt: skip
        return {reason: names for reason, names in unused.items() if names}

    def ineffective_on(self, pool: Literal["titled", "untitled", "document"]) -> tuple[str, ...]:
        """The settings changed from their defaults that cannot change the ranking of a
        ``pool`` ("titled": some passage has a title; "untitled": none has; "document": a
        pool with document structure, ranked by the document view) under this config,
        though they change other pools': with the chain on, a titled pool's core is the
        chain (``core_size`` is read by untitled pools only) and an untitled pool's α is
        ``untitled.alpha`` (``alpha`` is read by titled pools only); the document view reads
        none of ``alpha``, ``core_size`` and ``lexical_weight`` (its own is
        ``document.lexical_weight``)."""
        if self.coherence != "bridge":
            return ()
        if pool == "document":
            names: tuple[str, ...] = ("alpha", "core_size", "lexical_weight")
        elif not self.chain.length:
            return ()
        else:
            names = ("core_size",) if pool == "titled" else ("alpha",)
        fields = type(self).__dataclass_fields__
        return tuple(n for n in names if getattr(self, n) != fields[n].default)

    def warn_ineffective_on(self, pool: Literal["titled", "untitled", "document"]) -> None:
        """Log :meth:`ineffective_on` once per process and setting (cheap when empty)."""
        names = self.ineffective_on(pool)
        if not names:
            return
        changed = ", ".join(f"{n}={getattr(self, n)!r}" for n in names)
        if pool == "document":
            warn_once(
                f"CageConfig: {changed} has no effect on pools with document structure (the "
                "document view ranks them, with document.lexical_weight as its BM25 weight); "
                "it applies to the other pools only"
            )
            return
        read = "untitled.alpha is their α" if pool == "untitled" else "the chain is their core"
        warn_once(
            f"CageConfig: {changed} has no effect on {pool} pools ({read}); it applies to "
            f"{'titled' if pool == 'untitled' else 'untitled'} pools only"
        )

    def replace(self, **changes: Any) -> CageConfig:
        """Return a copy with ``changes`` applied (validated like a new config); encoder
        settings may be changed flat (``replace(epochs=7)``) or as ``encoder=``."""
        flat = {n: changes.pop(n) for n in ENCODER_SETTINGS if n in changes}
        given = changes.pop("encoder", None)
        if isinstance(given, EncoderConfig):
            encoder = _encoder(given, flat)  # a flat setting must agree with it
        else:
            encoder = (self.encoder if given is None else self.encoder.replace(kind=given)).replace(
                **flat
            )
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        return CageConfig(**{**values, **changes, "encoder": encoder})

    @classmethod
    def preset(cls, name: str) -> CageConfig:
        """A named configuration: ``"paper"`` is the paper's method as published."""
        try:
            return PRESETS[name]
        except KeyError:
            raise ValueError(f"unknown preset {name!r}; choose one of {sorted(PRESETS)}") from None


def _encoder(encoder: EncoderConfig | str | None, flat: dict[str, Any]) -> EncoderConfig:
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
            f"encoder must be an EncoderConfig or a kind in {_ENCODERS}, "
            f"got {type(encoder).__name__}"
        )
    conflicting = sorted(n for n, v in flat.items() if v != getattr(encoder, n))
    if conflicting:
        raise ValueError(
            f"{', '.join(conflicting)} given both flat and in encoder= with different values"
        )
    return encoder


def _changed(config: Any) -> list[tuple[str, Any]]:
    """The ``(name, value)`` fields of a config dataclass that differ from their defaults."""
    changed = []
    for f in dataclasses.fields(config):
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        if getattr(config, f.name) != default:
            changed.append((f.name, getattr(config, f.name)))
    return changed


_warned: set[str] = set()
_warned_lock = threading.Lock()


def warn_once(message: str) -> None:
    """Log ``message`` as a warning the first time this process sees it."""
    with _warned_lock:
        if message in _warned:
            return
        _warned.add(message)
    logger.warning(message)


def _warn_ineffective(config: CageConfig) -> None:
    """Log each of :meth:`CageConfig.ineffective_settings` once per process."""
    for reason, names in config.ineffective_settings().items():
        warn_once(
            f"CageConfig: {', '.join(names)} ha{'s' if len(names) == 1 else 've'} no effect: {reason}"
        )


def check_real(
    name: str, value: object, *, low: float, high: float, low_open: bool = False
) -> None:
    """Raise unless ``value`` is a finite real in ``[low, high]`` (``(low, high]`` if ``low_open``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    v = float(value)
    too_low = v <= low if low_open else v < low
    if not math.isfinite(v) or too_low or v > high:
        bracket = "(" if low_open else "["
        raise ValueError(f"{name} must be in {bracket}{low}, {high}], got {value!r}")


def check_bool(name: str, value: object) -> None:
    """Raise unless ``value`` is a bool (not 0/1 or another truthy value)."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, got {type(value).__name__}")


def check_int(name: str, value: object, *, low: int, high: int) -> None:
    """Raise unless ``value`` is an int (not a bool) in ``[low, high]``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be in [{low}, {high}], got {value!r}")


PRESETS: dict[str, CageConfig] = {
    "default": CageConfig(),
    "paper": CageConfig(
        coherence="rgcn", alpha=0.7, beta=2.0, hidden_dim=128, epochs=50, learning_rate=1e-3
    ),
}


def config_as_json(config: CageConfig) -> dict[str, Any]:
    """``config`` as plain JSON values (nested configs as dicts, ``string_rules`` as a sorted
    list): what serialisers (``cage eval``'s results.json, LlamaIndex's ``to_json`` and
    ingestion cache keys) write."""
    return {**dataclasses.asdict(config), "string_rules": sorted(config.string_rules)}
