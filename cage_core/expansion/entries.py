"""The link index's entry of a passage (:func:`entry_for`) and the shorter names it is keyed
by (:func:`name_aliases`).

An entry's ``keys`` are the passage's subject
(:func:`~cage_core.names.subjects.derive_subject`: never a generic file name such as
``README``, never markup), when that is a title or metadata also its first-sentence subject
unless that is debris (:func:`~cage_core.names.may_link.is_debris`), and the
:func:`name_aliases` of each; its ``mentions`` the non-numeric named entities of its graph
that may link (:func:`~cage_core.names.may_link.may_link`, as the ranking's shared entities:
no literal, code fragment, handle, path or URL), less its keys; all in
:func:`~cage_core.names.forms.normal_name` form (:mod:`cage_core.expansion.record`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from cage_core.expansion.record import (
    MAX_ID_CHARS,
    MAX_KEYS,
    MAX_MENTIONS,
    MAX_POSITION,
    LinkEntry,
    valid_id,
)
from cage_core.graphs.passage_graph import PassageGraph
from cage_core.graphs.pronouns import NUMERIC_ENTITY_TYPES
from cage_core.lang.en import EXPANSION_ALIASES, shortened_names
from cage_core.names.forms import normal_name, words
from cage_core.names.may_link import is_debris, may_link
from cage_core.names.subjects import derive_subject, first_sentence_subject
from cage_core.passage import Passage, encodable

__all__ = ["HONORIFICS", "SHORT_NAME_WORDS", "entry_for", "name_aliases"]

SHORT_NAME_WORDS = (EXPANSION_ALIASES.min_words, EXPANSION_ALIASES.max_words)
"""Names of this many words (inclusive range) also stand for their first and last word."""
HONORIFICS = EXPANSION_ALIASES.titles
"""Leading words a name is also known without (:data:`~cage_core.lang.en.EXPANSION_ALIASES`)."""


def entry_for(
    passage_id: str,
    passage: Passage,
    graph: PassageGraph | None,
    metadata: Mapping[str, Any] | None = None,
) -> LinkEntry:
    """The :class:`LinkEntry` of a passage, its light (or full) graph and its metadata."""
    if not valid_id(passage_id):
        raise ValueError(
            f"a passage id must be a valid Unicode string of 1 to {MAX_ID_CHARS} "
            f"characters, got {passage_id!r:.60}"
        )
    if not isinstance(passage, Passage):
        raise TypeError(f"passage must be a cage_core.Passage, got {type(passage).__name__}")
    if graph is not None and not isinstance(graph, PassageGraph):
        raise TypeError(f"graph must be a PassageGraph or None, got {type(graph).__name__}")
    subject = derive_subject(passage, graph, metadata)
    names = [subject.name]
    if subject.origin in ("title", "metadata"):
        opener = first_sentence_subject(passage.text)
        names.append("" if is_debris(opener) else opener)
    names += [alias for n in names for alias in name_aliases(n)]
    keys = tuple(_unique(normal_name(n) for n in names))[:MAX_KEYS]
    mentions: list[str] = []
    if graph is not None:
        own = set(keys)
        entity_labels = (
            label
            for label, ent in zip(graph.labels, graph.entity_types)
            if ent and ent not in NUMERIC_ENTITY_TYPES and may_link(label)
        )
        normal = _unique(normal_name(label) for label in entity_labels)
        mentions = [n for n in normal if n not in own]
    subject_name = encodable(subject.name)  # a lone surrogate of the title would not save
    doc_id = passage.doc_id if passage.doc_id is not None and valid_id(passage.doc_id) else None
    position = passage.position if doc_id is not None else None
    if position is not None and not 0 <= position <= MAX_POSITION:
        position = None
    return LinkEntry(
        passage_id, subject_name, keys, tuple(mentions[:MAX_MENTIONS]), doc_id, position
    )


def name_aliases(name: str) -> list[str]:
    """Shorter forms other passages use for a name, in this order:

    * without a leading honorific (:data:`HONORIFICS`): ``"Sir James Charles Mathew"`` →
      ``"James Charles Mathew"``;
    * the first and last word of a name of ``SHORT_NAME_WORDS`` capitalised words:
      ``"George Timothy Clooney"`` → ``"George Clooney"``, ``"Robert A. Stemmle"`` →
      ``"Robert Stemmle"``. A lower-case word ("University of Cambridge") makes none.
    """
    tokens = words(name)
    core, short = shortened_names(tokens, EXPANSION_ALIASES)  # the ranking's, in another style
    return ([" ".join(core)] if len(core) < len(tokens) else []) + short


def _unique(names: Iterable[str]) -> list[str]:
    """Non-empty names, first occurrence kept, in order."""
    return [n for n in dict.fromkeys(names) if n]
