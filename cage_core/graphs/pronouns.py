"""Rule-based pronoun resolution on a spaCy parse (no coreference model is needed).

No offline coreference model exists for the English spaCy pipelines here, so pronouns
are resolved by agreement rules to the **nearest compatible preceding mention** in the
passage. Mentions are named entities (except numeric ones: dates, numbers, amounts) and
nominal subjects.

=================================  ============================================================
pronoun                            resolves to the nearest preceding …
=================================  ============================================================
he, him, his, himself, she, her,   PERSON entity; failing that, proper-noun subject that is not
hers, herself                      a non-person entity
it, its, itself                    non-person entity or singular nominal subject
they, them, their, theirs,         plural nominal subject, or ORG / NORP entity
themselves
=================================  ============================================================

What it does not handle: gender (he and she both match any person), number agreement
of proper names, cataphora ("Before she left, Marie …"), first/second person, demonstratives
("this", "that"), event or clause antecedents, antecedents in earlier passages, and
pleonastic "it" beyond spaCy's ``expl`` label ("it is likely that …" may be resolved).
An unresolved pronoun is simply not a node.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from cage_core.lang.en import GROUP_PRONOUNS, PERSON_PRONOUNS, THING_PRONOUNS

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

__all__ = [
    "NUMERIC_ENTITY_TYPES",
    "MentionKind",
    "resolve_pronouns",
]

MentionKind = Literal["person", "propn", "thing", "group"]

#: Entity labels that never act as antecedents (numbers, amounts, times).
NUMERIC_ENTITY_TYPES = frozenset(
    {"CARDINAL", "DATE", "TIME", "PERCENT", "MONEY", "QUANTITY", "ORDINAL"}
)
_GROUP_ENTITY_TYPES = frozenset({"ORG", "NORP"})
_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
_PLURAL_TAGS = frozenset({"NNS", "NNPS"})

_COMPATIBLE: dict[str, tuple[MentionKind, ...]] = {
    "person": ("person",),
    "person-fallback": ("propn",),
    "thing": ("thing",),
    "group": ("group",),
}


def _mention_kinds(token: Token) -> tuple[MentionKind, ...]:
    """The pronoun classes a token can be the antecedent of (empty if none)."""
    label = token.ent_type_
    if label:
        if label in NUMERIC_ENTITY_TYPES:
            return ()
        if label == "PERSON":
            return ("person",)
        if label in _GROUP_ENTITY_TYPES:
            return ("group", "thing")
        return ("thing",)
    if token.dep_ not in _SUBJECT_DEPS or token.pos_ not in ("NOUN", "PROPN"):
        return ()
    if token.tag_ in _PLURAL_TAGS:
        return ("group",)
    if token.pos_ == "PROPN":
        return ("propn", "thing")
    return ("thing",)


def resolve_pronouns(doc: Doc) -> dict[int, int]:
    """Map each resolvable third-person pronoun to the token index of its antecedent.

    The antecedent index is the root token of the antecedent mention (for an entity, the
    root of its span). Pronouns with no compatible preceding mention are left out.
    """
    entity_root = {i: ent.root for ent in doc.ents for i in range(ent.start, ent.end)}
    mentions: list[tuple[int, tuple[MentionKind, ...]]] = []
    seen_roots: set[int] = set()
    resolved: dict[int, int] = {}
    for token in doc:
        lower = token.lower_
        if token.pos_ == "PRON" and token.dep_ != "expl":
            wanted: tuple[str, ...]
            if lower in PERSON_PRONOUNS:
                wanted = ("person", "person-fallback")
            elif lower in THING_PRONOUNS:
                wanted = ("thing",)
            elif lower in GROUP_PRONOUNS:
                wanted = ("group",)
            else:
                wanted = ()
            for preference in wanted:
                target = _nearest(mentions, _COMPATIBLE[preference])
                if target is not None:
                    resolved[token.i] = target
                    break
            continue
        root = entity_root.get(token.i)
        anchor = root if root is not None else token
        if anchor.i in seen_roots and root is not None:
            continue
        kinds = _mention_kinds(anchor)
        if kinds:
            seen_roots.add(anchor.i)
            mentions.append((anchor.i, kinds))
    return resolved


def _nearest(
    mentions: list[tuple[int, tuple[MentionKind, ...]]], kinds: tuple[MentionKind, ...]
) -> int | None:
    for index, mention_kinds in reversed(mentions):
        if any(k in mention_kinds for k in kinds):
            return index
    return None
