"""The fixed relation vocabulary of passage graphs and the tag sets of node features.

Edges are directed towards the more grounded end of a fact (subject → object, head →
modifier, head → number, earlier entity → later entity), so the sinks of a graph — the
nodes with the minimum out-degree — are its anchors: entities, numbers, fact endpoints.
The order of :data:`RELATIONS` fixes the relation ids; changing it changes the stored
graph format (bump ``GRAPH_FORMAT_VERSION`` in ``passage_graph.py``).
"""

from __future__ import annotations

from enum import IntEnum

__all__ = [
    "ENTITY_TYPES",
    "NUM_RELATIONS",
    "POS_TAGS",
    "RELATIONS",
    "SPATIAL_ENTITY_TYPES",
    "SPATIAL_PREPOSITIONS",
    "TEMPORAL_ENTITY_TYPES",
    "TEMPORAL_PREPOSITIONS",
    "Relation",
]


class Relation(IntEnum):
    """Edge types. Values are the relation ids used by the R-GCN."""

    SUBJ_OBJ = 0
    """subject → object (or attribute) through a verb; the verb lemma is kept on the edge."""
    SUBJ_OBJ_NEG = 1
    """as SUBJ_OBJ, under negation ("did not sell")."""
    MODIFIER = 2
    """head → adjectival/compound/possessive modifier."""
    APPOSITIVE = 3
    """head → appositive ("Paris, a city")."""
    NUMERIC = 4
    """head → number or quantity attached to it ("3 million cars")."""
    PREP_SPATIAL = 5
    """head (or the verb's subject) → object of a spatial preposition ("born in Warsaw")."""
    PREP_TEMPORAL = 6
    """head (or the verb's subject) → object of a temporal preposition ("in 1898")."""
    PREP_OTHER = 7
    """head (or the verb's subject) → object of any other preposition."""
    COOCCURRENCE = 8
    """earlier named entity → later named entity of the same sentence."""


RELATIONS: tuple[Relation, ...] = tuple(Relation)
NUM_RELATIONS: int = len(RELATIONS)

#: Universal POS tags (spaCy ``token.pos_``), one-hot in node features.
POS_TAGS: tuple[str, ...] = (
    "ADJ",
    "ADP",
    "ADV",
    "AUX",
    "CCONJ",
    "DET",
    "INTJ",
    "NOUN",
    "NUM",
    "PART",
    "PRON",
    "PROPN",
    "PUNCT",
    "SCONJ",
    "SYM",
    "VERB",
    "X",
)

#: OntoNotes entity labels (the English spaCy pipelines); any other label maps to "MISC".
ENTITY_TYPES: tuple[str, ...] = (
    "CARDINAL",
    "DATE",
    "EVENT",
    "FAC",
    "GPE",
    "LANGUAGE",
    "LAW",
    "LOC",
    "MONEY",
    "NORP",
    "ORDINAL",
    "ORG",
    "PERCENT",
    "PERSON",
    "PRODUCT",
    "QUANTITY",
    "TIME",
    "WORK_OF_ART",
    "MISC",
)

#: Entity labels that make a prepositional object spatial or temporal.
SPATIAL_ENTITY_TYPES: frozenset[str] = frozenset({"GPE", "LOC", "FAC"})
TEMPORAL_ENTITY_TYPES: frozenset[str] = frozenset({"DATE", "TIME"})

#: Prepositions that are temporal or spatial whatever their object.
TEMPORAL_PREPOSITIONS: frozenset[str] = frozenset(
    {"during", "before", "after", "since", "until", "till", "throughout", "following"}
)
SPATIAL_PREPOSITIONS: frozenset[str] = frozenset(
    {
        "near",
        "inside",
        "outside",
        "beneath",
        "under",
        "above",
        "below",
        "across",
        "along",
        "behind",
        "beside",
        "between",
        "into",
        "onto",
        "toward",
        "towards",
        "within",
    }
)
