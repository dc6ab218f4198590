"""The fields a document writes about itself at its top, as ``(key, value)`` pairs in order:

* :func:`header_fields` — an RFC 822-style block of ``Key: value`` lines that opens the text,
  as PEPs, RFCs and e-mail-like files open (blank lines before it skipped, a continuation
  line that starts with a space joined to its field); Org-mode writes the same lines as
  keywords, ``#+TITLE: value``;
* :func:`front_matter` — the front matter of a static site's page: YAML between ``---`` lines
  (Jekyll, Docusaurus, MkDocs: its ``key: value`` lines, values stripped) or TOML between
  ``+++`` lines (Hugo, Zola: its top-level values that are a string, a number or a date, each
  as its text; TOML that does not parse gives none).

Only the first :data:`HEADER_LINES` lines of a header block or of YAML are read.
"""

from __future__ import annotations

import datetime
import re
import tomllib

__all__ = ["HEADER_LINES", "front_matter", "front_matter_block", "header_fields"]

HEADER_LINES = 40
"""How many lines at a document's top are read for header fields and front matter."""

_HEADER_FIELD = re.compile(r"^(?:#\+)?([A-Za-z][\w -]{0,40}?):[ \t]+(\S.*)$")
_YAML = re.compile(r"\A---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*\n", re.DOTALL)
_TOML = re.compile(r"\A\+\+\+[ \t]*\n(.*?)\n\+\+\+[ \t]*\n", re.DOTALL)
_TOML_VALUE = (str, int, float, datetime.date, datetime.time)
"""The TOML values read as a field: ``bool`` is an ``int``, and is left out by name."""


def header_fields(opening: str) -> list[tuple[str, str]]:
    """The ``Key: value`` lines of the block at the text's top (module docstring); none when
    the first line of the block is not a field."""
    fields: list[tuple[str, str]] = []
    for line in opening.lstrip("\n").splitlines()[:HEADER_LINES]:
        if not line.strip():
            break
        if line[0] in " \t" and fields:
            key, value = fields[-1]
            fields[-1] = (key, f"{value} {line.strip()}")
            continue
        field = _HEADER_FIELD.match(line.rstrip())
        if field is None:
            break
        fields.append((field.group(1).strip(), field.group(2).strip()))
    return fields


def front_matter_block(text: str) -> str:
    """The front matter that opens ``text`` as written, its fences and the line break after
    them included (``text[len(block):]`` is the page's body); "" when it opens with none."""
    found = _YAML.match(text) or _TOML.match(text)
    return found.group(0) if found else ""


def front_matter(opening: str) -> list[tuple[str, str]]:
    """The fields of the YAML or TOML front matter that opens the text (module docstring);
    none without one."""
    if yaml := _YAML.match(opening):
        fields = []
        for line in yaml.group(1).splitlines()[:HEADER_LINES]:
            key, colon, value = line.partition(":")
            if colon and key.strip() and not key[0].isspace():
                fields.append((key.strip(), value.strip()))
        return fields
    toml = _TOML.match(opening)
    if toml is None:
        return []
    try:
        table = tomllib.loads(toml.group(1))
    except tomllib.TOMLDecodeError:
        return []
    return [
        (key, str(value))
        for key, value in table.items()
        if isinstance(value, _TOML_VALUE) and not isinstance(value, bool)
    ]
