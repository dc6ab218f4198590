"""The named string rules a run can switch off, one by one, to measure each
(``CageConfig(string_rules=...)``, ``cage eval --ablate-rule NAME``)."""

from __future__ import annotations

__all__ = [
    "STRING_RULES",
    "check_rules",
]

STRING_RULES: frozenset[str] = frozenset(
    {
        "quoted_subject",
        "first_sentence_subject",
        "entity_subject",
        "honorifics",
        "name_suffixes",
        "short_forms",
        "also_known_as",
    }
)
"""The string rules of the untitled-pool ranking that a run can switch off, by name:

* ``first_sentence_subject``: a passage without title or metadata is about the leading name
  of its first sentence (:func:`~cage_core.names.subjects.first_sentence_subject`);
* ``quoted_subject``: ... or about the quoted name it opens with ("On My Mind" is a song);
* ``entity_subject``: failing those, about its most central named entity;
* ``honorifics``: a subject also goes without a leading title (:data:`HONORIFICS`, ...);
* ``name_suffixes``: ... and without trailing suffixes and post-nominal letters;
* ``short_forms``: a full name of three or more capitalised words also goes by shorter forms;
* ``also_known_as``: a passage also goes by the names its opening gives it ("known
  professionally as ...").
"""


def check_rules(rules: object, name: str = "string_rules") -> frozenset[str]:
    """``rules`` as a frozenset of :data:`STRING_RULES` names; TypeError/ValueError otherwise."""
    if not isinstance(rules, (frozenset, set)) or not all(isinstance(r, str) for r in rules):
        raise TypeError(f"{name} must be a frozenset of rule names, got {type(rules).__name__}")
    unknown = sorted(set(rules) - STRING_RULES)
    if unknown:
        raise ValueError(
            f"{name} has unknown rules {unknown}; the rules are {sorted(STRING_RULES)}"
        )
    return frozenset(rules)
