"""Do no harm: when a pool's link evidence is too weak to move a passage, keep the relevance order.

Coherence pays off where passages name each other; in an untitled pool where the query names
none of the passages' subjects (:attr:`SubjectLinks.query_subjects
<cage_core.ranking.untitled_core.SubjectLinks.query_subjects>` all 0: a claim about a finding, a
question about "the company"), the subject core's links come from derived subjects and
shared entities alone. With the gate on, such a pool is ranked by its relevance ``r`` (the
hybrid order: no coherence, no short chain, and not the subject core's gain for the passage
about each part of the query either, which is link evidence too):

``weak = Σ_j Q_j < min_query_subjects``

A titled pool is gated likewise when the query names none of its titles and no passage's
text names another's title (``T = 0``: the evidence chain would then follow shared entities
alone; SciFact abstracts are such pools): every such pool with ``titled``, and with
``sentence_titles`` only those fewer than half of whose titles are names
(:func:`titles_are_names`: a paper title or a headline is a sentence, which no text names
and no query names, so its links are shared entities alone whatever the query). A pool
with document structure (the document view, :mod:`cage_core.ranking.document_links`) never
reaches the gate.

An untitled pool is also gated, whatever its query names, when few of its passages have a
confident subject (:func:`few_subjects`; ``min_subject_share``):

``few = |{j : s_j ≠ ""}| / k < min_subject_share``

with ``s_j`` the name passage j is linked by
(:func:`~cage_core.ranking.untitled_core.untitled_subject`: a derived subject that is a
name, not one from the entity fallback). Wikipedia paragraphs open by naming what they are
about; the chunks of a report after its first say "the company", and there the subject
core's only confident name is the opening chunk's, which the short chain would lift on that
name alone.

And, with ``unnamed_subjects``, an untitled pool fewer than half of whose subjects are
names (:func:`subjects_are_names`), whatever its query names: the untitled twin of the
sentence-titles rule. A subject counts as a name when the parser tags it as a named entity
or the query names it; a scientific abstract's chunk opens with a capitalised common noun
("Hypoxia, a characteristic feature of ...", "Importantly, ..."), which the subject rules
take for a subject and no parser for a name.

Why each gate is on or off, and what it changes on the DEV files: the ``gate.*`` rows of
``docs/provenance.md``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cage_core.config import GateConfig  # defined with the other settings
from cage_core.graphs.passage_graph import PassageGraph
from cage_core.graphs.pronouns import NUMERIC_ENTITY_TYPES
from cage_core.names.forms import normal_name, normal_text

__all__ = [
    "few_named_subjects",
    "few_subjects",
    "subjects_are_names",
    "titles_are_names",
    "weak_link_evidence",
    "weak_title_evidence",
]


def weak_link_evidence(query_subjects: np.ndarray, config: GateConfig) -> bool:
    """Whether the gate keeps the relevance order for an untitled pool with these ``Q``
    (module docstring)."""
    return config.untitled and float(np.sum(query_subjects)) < config.min_query_subjects


def weak_title_evidence(
    query_titles: np.ndarray,
    title_mentions: np.ndarray,
    config: GateConfig,
    titles: Sequence[str] = (),
) -> bool:
    """Whether the gate keeps the relevance order for a titled pool: the query names fewer than
    ``min_query_subjects`` of its titles and no passage names another's title, and the gate
    is on for it (``titled``; or ``sentence_titles`` and not :func:`titles_are_names`)."""
    on = config.titled or (config.sentence_titles and not titles_are_names(titles))
    return (
        on
        and float(np.sum(query_titles)) < config.min_query_subjects
        and not np.any(title_mentions)
    )


def titles_are_names(titles: Sequence[str]) -> bool:
    """Whether at least half of the non-empty ``titles`` are names: have a
    :func:`~cage_core.names.forms.normal_name` (at most ``MAX_NAME_WORDS`` words; "Aspirin"
    and "Kiss and Tell (1945 film)" are names, a 14-word paper title is not). ``True`` when
    there are none."""
    given = [t for t in titles if t.strip()]
    return 2 * sum(1 for t in given if normal_name(t)) >= len(given)


def few_subjects(subjects: Sequence[str], config: GateConfig) -> bool:
    """Whether an untitled pool keeps its relevance order because fewer than
    ``config.min_subject_share`` of its passages have a confident subject (``subjects``: each
    passage's :func:`~cage_core.ranking.untitled_core.untitled_subject`, "" for none)."""
    share = sum(1 for s in subjects if s) / len(subjects) if subjects else 1.0
    return share < config.min_subject_share


def few_named_subjects(
    subjects: Sequence[str], graphs: Sequence[PassageGraph], query: str, config: GateConfig
) -> bool:
    """Whether an untitled pool keeps its relevance order because fewer than half of its
    subjects are names (:func:`subjects_are_names`) and ``config.unnamed_subjects`` is on."""
    return config.unnamed_subjects and not subjects_are_names(subjects, graphs, query)


def subjects_are_names(subjects: Sequence[str], graphs: Sequence[PassageGraph], query: str) -> bool:
    """Whether at least half of the non-empty ``subjects`` are names: the words
    (:func:`~cage_core.names.forms.normal_text`) of a non-numeric entity of
    the passage's graph contain the subject's or lie within them ("Georgia Tech" in "1953
    Georgia Tech"), or the query names the subject (whole words: "Revisited" in 'the album
    "Revisited"', a title the parser may not tag). ``True`` when there are none."""
    if len(subjects) != len(graphs):
        raise ValueError(f"got {len(subjects)} subjects for {len(graphs)} graphs")
    asked = f" {normal_text(query)} "
    given = names = 0
    for subject, graph in zip(subjects, graphs):
        words = normal_text(subject)
        if not words:
            continue
        given += 1
        padded = f" {words} "
        entities = (
            normal_text(label)
            for label, kind in zip(graph.labels, graph.entity_types)
            if kind and kind not in NUMERIC_ENTITY_TYPES
        )
        if padded in asked or any(
            e and (f" {e} " in padded or padded in f" {e} ") for e in entities
        ):
            names += 1
    return 2 * names >= given
