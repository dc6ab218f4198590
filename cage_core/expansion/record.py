"""One passage's record in the link index (:class:`LinkEntry`) and the checks it passes.

What the index holds per passage:

* ``keys`` — the names the passage is *about*: its subject (title, metadata or derived,
  :func:`cage_core.names.subjects.derive_subject`), when the subject is a title or
  metadata also the first-sentence subject ("Charles Mathew" and "Charles James Mathew"),
  and the :func:`~cage_core.expansion.entries.name_aliases` of each ("Sir James Charles
  Mathew" → "James Charles Mathew", "James Mathew");
* ``mentions`` — the names the passage *names*: the non-numeric named entities of its
  light graph, less its own keys.

Names are in :func:`~cage_core.names.forms.normal_name` form. A stored entry is untrusted:
:meth:`LinkEntry.from_stored` raises :class:`LinkIndexFormatError` on wrong types, values over
the limits below, or names not in normal form.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cage_core.names.forms import MAX_NAME_CHARS, is_normal_name
from cage_core.stores.database import is_utf8

__all__ = [
    "MAX_ID_CHARS",
    "MAX_KEYS",
    "MAX_MENTIONS",
    "MAX_POSITION",
    "LinkEntry",
    "LinkIndexFormatError",
    "valid_id",
]

MAX_ID_CHARS = 512
"""Stored passage ids longer than this are rejected."""
MAX_KEYS = 8
"""Stored entries with more keys than this are rejected."""
MAX_MENTIONS = 512
"""Mentions kept per passage (the first in graph order); stored entries with more are rejected."""
MAX_POSITION = 2**63 - 1
"""Stored chunk positions larger than this are rejected (SQLite's integer range)."""


class LinkIndexFormatError(ValueError):
    """A stored link index (or one of its entries) is malformed, oversized or of another version."""


@dataclass(frozen=True)
class LinkEntry:
    """What the index holds of one passage (module docstring): names in normal form.

    Attributes:
        id: the passage id.
        subject: the passage's subject as found (for display; "" when none).
        keys: the names the passage is about (its subject first, then aliases).
        mentions: the names the passage mentions, less its keys.
        doc_id: the document the passage (chunk) belongs to, or ``None``.
        position: the chunk's 0-based order inside its document, or ``None``.
    """

    id: str
    subject: str
    keys: tuple[str, ...]
    mentions: tuple[str, ...]
    doc_id: str | None = None
    position: int | None = None

    def __post_init__(self) -> None:
        if self.doc_id is not None and not valid_id(self.doc_id):
            raise ValueError(
                f"LinkEntry.doc_id must be None or a valid Unicode string of 1 to "
                f"{MAX_ID_CHARS} characters, got {self.doc_id!r:.60}"
            )
        if self.position is not None and not _valid_position(self.position):
            raise ValueError(
                f"LinkEntry.position must be None or an int in [0, {MAX_POSITION}], "
                f"got {self.position!r}"
            )

    def to_dict(self) -> dict[str, Any]:
        """The stored mapping; ``doc_id`` and ``position`` only when set."""
        data: dict[str, Any] = {
            "id": self.id,
            "subject": self.subject,
            "keys": list(self.keys),
            "mentions": list(self.mentions),
        }
        if self.doc_id is not None:
            data["doc_id"] = self.doc_id
        if self.position is not None:
            data["position"] = self.position
        return data

    @classmethod
    def from_stored(cls, data: Any) -> LinkEntry:
        """An entry from its stored mapping, validating everything (module docstring).

        Raises:
            LinkIndexFormatError: on wrong types, oversized values or names not in
                :func:`~cage_core.names.forms.normal_name` form.
        """
        if not isinstance(data, Mapping):
            raise LinkIndexFormatError(f"an entry must be an object, got {type(data).__name__}")
        if not _ENTRY_FIELDS <= set(data) <= _ENTRY_FIELDS | _OPTIONAL_ENTRY_FIELDS:
            raise LinkIndexFormatError(
                "an entry has exactly the fields id, subject, keys, "
                "mentions (and optionally doc_id, position)"
            )
        pid, subject = data["id"], data["subject"]
        if not valid_id(pid):
            raise LinkIndexFormatError(f"id must be a string of 1 to {MAX_ID_CHARS} characters")
        if not isinstance(subject, str) or len(subject) > MAX_NAME_CHARS or not is_utf8(subject):
            raise LinkIndexFormatError(
                f"subject must be a string of at most {MAX_NAME_CHARS} characters"
            )
        keys = _stored_names(data["keys"], MAX_KEYS, "keys")
        mentions = _stored_names(data["mentions"], MAX_MENTIONS, "mentions")
        if set(keys) & set(mentions):
            raise LinkIndexFormatError("a name is both a key and a mention of one entry")
        doc_id, position = data.get("doc_id"), data.get("position")
        if doc_id is not None and not valid_id(doc_id):
            raise LinkIndexFormatError(f"doc_id must be a string of 1 to {MAX_ID_CHARS} characters")
        if position is not None and not _valid_position(position):
            raise LinkIndexFormatError(f"position must be an int in [0, {MAX_POSITION}]")
        return cls(pid, subject, keys, mentions, doc_id, position)


_ENTRY_FIELDS = frozenset({"id", "subject", "keys", "mentions"})
_OPTIONAL_ENTRY_FIELDS = frozenset({"doc_id", "position"})


def valid_id(value: Any) -> bool:
    """Whether ``value`` may be a stored id: a string of 1 to ``MAX_ID_CHARS`` characters that
    can be written as UTF-8."""
    return isinstance(value, str) and 0 < len(value) <= MAX_ID_CHARS and is_utf8(value)


def _valid_position(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_POSITION


def _stored_names(value: Any, most: int, field: str) -> tuple[str, ...]:
    if not isinstance(value, list) or len(value) > most:
        raise LinkIndexFormatError(f"{field} must be a list of at most {most} names")
    for name in value:
        if not isinstance(name, str) or len(name) > MAX_NAME_CHARS or not is_normal_name(name):
            raise LinkIndexFormatError(f"{field} must hold names in link_name form")
    if len(set(value)) != len(value):
        raise LinkIndexFormatError(f"{field} must not repeat a name")
    return tuple(value)
