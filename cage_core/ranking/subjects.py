"""The former home of the subject rules, now :mod:`cage_core.names.subjects` (a layer below
both ranking and expansion); its names stay importable from here."""

from cage_core.names.subjects import (
    HEADING_METADATA_KEYS,
    MAX_SUBJECT_CHARS,
    MAX_SUBJECT_WORDS,
    MIN_ALIAS_SOURCE_WORDS,
    OPENING_CHARS,
    SECTION_METADATA_KEYS,
    SOURCE_METADATA_KEYS,
    SUBJECT_CACHE_SIZE,
    SUBJECT_METADATA_KEYS,
    TITLE_METADATA_KEYS,
    Subject,
    SubjectOrigin,
    also_known_as,
    central_entity,
    derive_subject,
    first_sentence_subject,
    passage_subject,
    subject_aliases,
)

__all__ = [
    "HEADING_METADATA_KEYS",
    "MAX_SUBJECT_CHARS",
    "MAX_SUBJECT_WORDS",
    "MIN_ALIAS_SOURCE_WORDS",
    "OPENING_CHARS",
    "SECTION_METADATA_KEYS",
    "SOURCE_METADATA_KEYS",
    "SUBJECT_CACHE_SIZE",
    "SUBJECT_METADATA_KEYS",
    "TITLE_METADATA_KEYS",
    "Subject",
    "SubjectOrigin",
    "also_known_as",
    "central_entity",
    "derive_subject",
    "first_sentence_subject",
    "passage_subject",
    "subject_aliases",
]
