"""The former home of the "may link" rule, now :mod:`cage_core.names.may_link` (a layer
below both ranking and expansion); its names stay importable from here."""

from cage_core.names.may_link import CODE_CHARACTERS, GENERIC_WORDS, MIN_MAY_LINK_CHARS, may_link

__all__ = [
    "CODE_CHARACTERS",
    "GENERIC_WORDS",
    "MIN_CHARS",
    "is_link_name",
]

MIN_CHARS = MIN_MAY_LINK_CHARS
"""The former name of :data:`~cage_core.names.may_link.MIN_MAY_LINK_CHARS`."""
is_link_name = may_link
"""The former name of :func:`~cage_core.names.may_link.may_link`."""
