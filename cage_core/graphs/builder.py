"""A parsed spaCy ``Doc`` → its :class:`PassageGraph` (the full graph and the light one);
running the pipeline is :mod:`cage_core.graphs.parse`.

Nodes are the lemmatised content words of a passage (nouns, proper nouns, adjectives,
numbers; stop words dropped) with every named-entity span merged into one node, one node
per distinct lower-cased label. Resolved pronouns (:mod:`cage_core.graphs.pronouns`) stand
for their antecedent's node. Edges come from the dependency parse, typed by
:class:`~cage_core.graphs.relations.Relation`:

* verb with subject S and object/attribute O: ``S → O`` (``SUBJ_OBJ``, or ``SUBJ_OBJ_NEG``
  when the verb is negated), the verb lemma kept on the edge; passive agents count as
  subjects and the passive subject as object; verbs without a subject (``xcomp``, ``conj``)
  inherit their head verb's;
* prepositional object P of a verb: ``S → P``; of a nominal head H: ``H → P``; typed spatial,
  temporal or other from the preposition and the entity type of P;
* ``H → modifier`` (amod, compound, poss, nmod), ``H → appositive``, ``H → number``
  (nummod, quantmod);
* named entities of one sentence: earlier → later (``COOCCURRENCE``).

Self-loops and repeated ``(src, dst, type)`` edges are dropped (the first verb is kept).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from cage_core.graphs.passage_graph import GraphLimits, PassageGraph, graph_limits
from cage_core.graphs.pronouns import resolve_pronouns
from cage_core.graphs.relations import (
    ENTITY_TYPES,
    POS_TAGS,
    SPATIAL_ENTITY_TYPES,
    SPATIAL_PREPOSITIONS,
    TEMPORAL_ENTITY_TYPES,
    TEMPORAL_PREPOSITIONS,
    Relation,
)
from cage_core.lang.en import LEADING_DETERMINERS, PRONOUNS

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

__all__ = [
    "CONTENT_POS",
    "INHERITING_DEPS",
    "MAX_ENTITIES_PER_SENTENCE",
    "MODIFIER_DEPS",
    "NUMERIC_DEPS",
    "OBJECT_DEPS",
    "RELATIVE_TAGS",
    "SUBJECT_DEPS",
    "entity_spans",
    "graph_from_doc",
    "light_graph_from_doc",
]

logger = logging.getLogger("cage_core.graphs.parse")  # the name its warnings always had

CONTENT_POS = frozenset({"NOUN", "PROPN", "ADJ", "NUM"})
SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "csubj"})
OBJECT_DEPS = frozenset({"dobj", "obj", "attr", "oprd", "dative", "acomp"})
MODIFIER_DEPS = frozenset({"amod", "compound", "poss", "nmod"})
NUMERIC_DEPS = frozenset({"nummod", "quantmod"})
INHERITING_DEPS = frozenset({"xcomp", "conj"})
RELATIVE_TAGS = frozenset({"WP", "WDT"})
MAX_ENTITIES_PER_SENTENCE = 16
"""Co-occurrence edges are drawn among at most this many entities of a sentence."""
_MAX_INHERIT_DEPTH = 4


class _NodeTable:
    """Accumulates distinct nodes in order of first appearance, at most ``limit`` of them
    (a label first seen after that is no node)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.index: dict[str, int] = {}
        self.labels: list[str] = []
        self.pos: list[str] = []
        self.ents: list[str] = []

    def add(self, label: str, pos: str, ent: str) -> int | None:
        key = label.lower()
        found = self.index.get(key)
        if found is not None:
            if ent and not self.ents[found]:
                self.ents[found] = ent
            return found
        if len(self.labels) >= self.limit:
            return None
        self.index[key] = len(self.labels)
        self.labels.append(label)
        self.pos.append(pos if pos in POS_TAGS else "X")
        self.ents.append(ent)
        return self.index[key]


def entity_spans(doc: Doc) -> list[Span]:
    """The entity spans that become nodes: ``doc.ents`` less spans made only of pronouns
    (a pronoun stands for its antecedent's node, never for a node of its own)."""
    return [e for e in doc.ents if not all(w.lower_ in PRONOUNS for w in e)]


def _entity_label(span: Span) -> str:
    words = list(span)
    while len(words) > 1 and words[0].lower_ in LEADING_DETERMINERS:
        words.pop(0)
    return "".join(w.text_with_ws for w in words).strip()


class _GraphBuilder:
    def __init__(self, doc: Doc, limits: GraphLimits) -> None:
        self.doc = doc
        self.limits = limits
        self.nodes = _NodeTable(limits.nodes)
        self.entity_of: dict[int, Span] = {
            i: e for e in entity_spans(doc) for i in range(e.start, e.end)
        }
        self.antecedent = resolve_pronouns(doc)
        self.node_of: dict[int, int | None] = {}
        self.edges: dict[tuple[int, int, int], str] = {}

    def node(self, token: Token) -> int | None:
        """The node a token stands for, or None for function words and unresolved pronouns."""
        if token.i in self.node_of:
            return self.node_of[token.i]
        self.node_of[token.i] = None  # guards against antecedent cycles
        result: int | None = None
        target = self.antecedent.get(token.i)
        if target is not None:
            result = self.node(self.doc[target])
        elif token.i in self.entity_of:
            span = self.entity_of[token.i]
            label = _entity_label(span)
            ent = span.label_ if span.label_ in ENTITY_TYPES else "MISC"
            result = self.nodes.add(label, span.root.pos_, ent)
        elif (
            token.pos_ in CONTENT_POS
            and not token.is_stop
            and any(ch.isalnum() for ch in token.text)
        ):
            lemma = token.lemma_.strip() or token.text
            result = self.nodes.add(lemma, token.pos_, "")
        self.node_of[token.i] = result
        return result

    def add_edge(self, src: int | None, dst: int | None, rel: Relation, verb: str = "") -> None:
        if src is None or dst is None or src == dst or len(self.edges) >= self.limits.edges:
            return
        self.edges.setdefault((src, dst, int(rel)), verb)

    def expand(self, tokens: Iterable[Token]) -> list[Token]:
        """Tokens plus their coordinated conjuncts ("Marie and Pierre")."""
        out: list[Token] = []
        for t in tokens:
            out.append(t)
            out.extend(c for c in t.conjuncts if c.i > t.i)
        return out

    def subjects(self, verb: Token, depth: int = 0) -> list[Token]:
        agents = [
            pobj
            for child in verb.children
            if child.dep_ == "agent"
            for pobj in child.children
            if pobj.dep_ == "pobj"
        ]
        subs = agents or [c for c in verb.children if c.dep_ in SUBJECT_DEPS]
        subs = [
            verb.head if (s.tag_ in RELATIVE_TAGS and verb.dep_ == "relcl") else s for s in subs
        ]
        if (
            not subs
            and verb.dep_ in INHERITING_DEPS
            and depth < _MAX_INHERIT_DEPTH
            and verb.head.i != verb.i
        ):
            return self.subjects(verb.head, depth + 1)
        return self.expand(subs)

    def objects(self, verb: Token) -> list[Token]:
        objs = [c for c in verb.children if c.dep_ in OBJECT_DEPS]
        if any(c.dep_ == "agent" for c in verb.children):
            objs += [c for c in verb.children if c.dep_ == "nsubjpass"]
        return self.expand(objs)

    def prepositional_objects(self, head: Token) -> list[tuple[Token, Token]]:
        return [
            (prep, pobj)
            for prep in head.children
            if prep.dep_ == "prep"
            for pobj in self.expand(c for c in prep.children if c.dep_ == "pobj")
        ]

    def prep_relation(self, prep: Token, pobj: Token) -> Relation:
        ent = self.entity_of[pobj.i].label_ if pobj.i in self.entity_of else ""
        word = prep.lower_
        if word in TEMPORAL_PREPOSITIONS or ent in TEMPORAL_ENTITY_TYPES:
            return Relation.PREP_TEMPORAL
        if word in SPATIAL_PREPOSITIONS or ent in SPATIAL_ENTITY_TYPES:
            return Relation.PREP_SPATIAL
        return Relation.PREP_OTHER

    def run(self) -> None:
        for token in self.doc:
            if token.pos_ in ("VERB", "AUX"):
                self.verb_edges(token)
            head = self.node(token)
            if head is not None:
                self.nominal_edges(token, head)
        for sent in self.doc.sents:
            self.cooccurrence_edges(sent)

    def verb_edges(self, verb: Token) -> None:
        subjects = self.subjects(verb)
        if not subjects:
            return
        negated = any(c.dep_ == "neg" for c in verb.children)
        rel = Relation.SUBJ_OBJ_NEG if negated else Relation.SUBJ_OBJ
        lemma = verb.lemma_.lower()
        subject_nodes = [self.node(s) for s in subjects]
        for obj in self.objects(verb):
            for s in subject_nodes:
                self.add_edge(s, self.node(obj), rel, lemma)
        for prep, pobj in self.prepositional_objects(verb):
            for s in subject_nodes:
                self.add_edge(s, self.node(pobj), self.prep_relation(prep, pobj), lemma)

    def nominal_edges(self, token: Token, head: int) -> None:
        for child in token.children:
            if child.dep_ in MODIFIER_DEPS:
                self.add_edge(head, self.node(child), Relation.MODIFIER)
            elif child.dep_ == "appos":
                self.add_edge(head, self.node(child), Relation.APPOSITIVE)
            elif child.dep_ in NUMERIC_DEPS:
                self.add_edge(head, self.node(child), Relation.NUMERIC)
        for prep, pobj in self.prepositional_objects(token):
            self.add_edge(head, self.node(pobj), self.prep_relation(prep, pobj))

    def cooccurrence_edges(self, sent: Span) -> None:
        seen: list[int] = []
        for ent in sent.ents:
            n = self.node(ent.root)
            if n is not None and n not in seen:
                seen.append(n)
        seen = seen[:MAX_ENTITIES_PER_SENTENCE]
        for i, a in enumerate(seen):
            for b in seen[i + 1 :]:
                self.add_edge(a, b, Relation.COOCCURRENCE)

    def graph(self, source: str, content_sha: str) -> PassageGraph:
        nodes = self.nodes
        _warn_if_full(nodes.limit, len(nodes.labels), self.limits.edges, len(self.edges))
        keys = list(self.edges)
        arr = np.array(keys, dtype=np.int64).reshape(-1, 3)
        return PassageGraph(
            labels=tuple(nodes.labels),
            pos=tuple(nodes.pos),
            entity_types=tuple(nodes.ents),
            edge_src=arr[:, 0].copy(),
            edge_dst=arr[:, 1].copy(),
            edge_type=arr[:, 2].copy(),
            edge_verbs=tuple(self.edges[k] for k in keys),
            source=source,
            content_sha=content_sha,
        )


def graph_from_doc(
    doc: Doc, *, source: str = "", content_sha: str = "", limits: GraphLimits | None = None
) -> PassageGraph:
    """Build the full passage graph of a parsed spaCy ``Doc`` (see the module docstring),
    within ``limits`` (default: :func:`~cage_core.graphs.passage_graph.graph_limits` of the
    default ``max_parse_chars``): nodes and edges past them are left out, with a warning
    (no ordinary text comes near them)."""
    builder = _GraphBuilder(doc, limits or graph_limits())
    builder.run()
    return builder.graph(source, content_sha)


def light_graph_from_doc(
    doc: Doc, *, source: str = "", content_sha: str = "", limits: GraphLimits | None = None
) -> PassageGraph:
    """The light graph of a ``Doc``: its named entities, labelled and typed as in the full
    graph (one node per distinct lower-cased label, the first type seen), without edges.
    Needs only the entity recogniser; POS is not known, so it reads ``"X"``. At most
    ``limits.nodes`` nodes, as :func:`graph_from_doc`."""
    nodes = _NodeTable((limits or graph_limits()).nodes)
    for span in entity_spans(doc):
        nodes.add(_entity_label(span), "X", span.label_ if span.label_ in ENTITY_TYPES else "MISC")
    _warn_if_full(nodes.limit, len(nodes.labels), 0, 0)
    empty = np.zeros(0, dtype=np.int64)
    return PassageGraph(
        labels=tuple(nodes.labels),
        pos=tuple(nodes.pos),
        entity_types=tuple(nodes.ents),
        edge_src=empty,
        edge_dst=empty.copy(),
        edge_type=empty.copy(),
        edge_verbs=(),
        source=source,
        content_sha=content_sha,
        level="light",
    )


def _warn_if_full(node_limit: int, nodes: int, edge_limit: int, edges: int) -> None:
    if nodes >= node_limit or (edge_limit and edges >= edge_limit):
        logger.warning(
            "passage graph reached its limits (%d of %d nodes, %d of %d edges); "
            "further nodes and edges were left out",
            nodes,
            node_limit,
            edges,
            edge_limit,
        )
