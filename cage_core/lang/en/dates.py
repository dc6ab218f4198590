"""English month names, the dates a question writes to name a document
(:func:`cage_core.names.documents.dates`)."""

from __future__ import annotations

__all__ = [
    "MONTHS",
]

MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
"""Month names and their abbreviations, folded, to their number (the dates a question writes
to name a document: :func:`cage_core.names.documents.dates`)."""
