"""English pronouns: the third-person forms pronoun resolution links to an entity, and the
subject and possessive forms of every person a first-sentence subject never starts with."""

from __future__ import annotations

__all__ = [
    "GROUP_PRONOUNS",
    "PERSON_PRONOUNS",
    "PRONOUNS",
    "SUBJECT_PRONOUNS",
    "THING_PRONOUNS",
]

PERSON_PRONOUNS = frozenset({"he", "him", "his", "himself", "she", "her", "hers", "herself"})
THING_PRONOUNS = frozenset({"it", "its", "itself"})
GROUP_PRONOUNS = frozenset({"they", "them", "their", "theirs", "themselves"})
PRONOUNS = PERSON_PRONOUNS | THING_PRONOUNS | GROUP_PRONOUNS
"""Every pronoun pronoun resolution links to an entity; an entity span made only of these is
no node (:mod:`cage_core.graphs.pronouns`, :mod:`cage_core.graphs.parse`)."""
SUBJECT_PRONOUNS = frozenset(
    {
        "he",
        "she",
        "it",
        "they",
        "we",
        "i",
        "you",
        "his",
        "her",
        "its",
        "their",
        "our",
    }
)
"""Subject and possessive pronouns of every person: a first-sentence subject never starts
with one, not even a title-cased one (:mod:`cage_core.names.subjects`)."""
