"""A manual page's source, as a project keeps it: the head and the title its roff macros
(``man/foo.1``) or its POD (Perl's documentation, ``lib/Foo.pod``, which ``pod2man`` renders
to a manual page) write, read as ``man`` renders them (:mod:`cage_core.names.manual_pages`
reads the rendered page).

A roff source opens with requests and comments only (lines that start with ``.`` or ``'``),
up to its head: ``.TH FOO 1 "2024-01-01" …`` (man(7); ``.TH "COMMIT PREPARED" "7"``) or
``.Dt FOO 1`` (mdoc(7)), which :func:`roff_head` gives as ``"FOO(1)"``, the running head's
form. Its title is the text under its first section heading (``.SH NAME`` / ``.Sh NAME``, or
its translation: no heading word is read): man(7)'s lines up to the next request, ``foo \\-
frobnicate the bar``, or mdoc(7)'s ``.Nm foo`` and ``.Nd frobnicate the bar``, both read as
"foo - frobnicate the bar" (:func:`roff_title`), its escapes as they render: ``\\-`` a hyphen,
a font change (``\\fB``, ``\\f[I]``) and a zero-width ``\\&`` nothing.

A POD source opens with a command (``=head1 NAME``, ``=pod``, ``=encoding utf8``; ``#``
comment lines before it are Perl's, which POD ignores); its title
is the paragraph under its first ``=head1`` (:func:`pod_title`: "File::FcntlLock - File
locking with fcntl(2)"), its formatting codes as they render (``L<fcntl(2)>``, ``C<x>``,
``E<gt>``).

A Texinfo source (GNU's manuals, ``doc/libffi.texi``, which ``makeinfo`` renders to info and
HTML pages) opens, below its ``@c`` comments, with ``\\input texinfo``, ``@setfilename``,
``@settitle``, ``@titlepage`` or ``@node`` (a chapter kept in its own file). Its title is its
``@settitle``, as the rendered pages' ``<title>`` writes it, else its title page's ``@title``,
else its first heading command (``@top``, ``@chapter``, ``@section``, …), each read to its
line's end as it renders (:func:`texinfo_title`): ``@value{VERSION}`` as the ``@set`` above
it gives it, ``@code{ffi_cif}`` as "ffi_cif", ``@dots{}`` as "...", ``@@`` as "@".
"""

from __future__ import annotations

import re

from cage_core.names.centered_titles import clean_title, title_text
from cage_core.names.front_matter import HEADER_LINES

__all__ = ["pod_title", "roff_head", "roff_title", "texinfo_title"]

_HEAD = re.compile(r'^\.(?:TH|Dt)[ \t]+(?:"([^"]+)"|(\S+))[ \t]+"?([0-9]\w{0,8})"?')
_SECTION = re.compile(r"^\.(?:SH|Sh)\b")
_POD_CODE = re.compile(r"[A-Z]<(?:<+ )?((?:(?!>).)*?)(?: >+)?>")
"""A POD formatting code, ``C<x>``, ``B<< x >>``: its text (a link's before its ``|``)."""
_POD_ENTITIES = {"gt": ">", "lt": "<", "verbar": "|", "sol": "/"}
_ESCAPE = re.compile(r"\\f(?:\[[^\]]*\]|\(..|.)|\\\(..|\\\[[^\]]*\]|\\[&|^]")
_TEXINFO_START = re.compile(r"\\input[ \t]+texinfo\b|@(?:setfilename|settitle|titlepage|node)\b")
_TEXINFO_LINE = re.compile(r"@(settitle|title|top|chapter|unnumbered|appendix|section)[ \t]+(.*)")
_TEXINFO_COMMENT = re.compile(r"@c(?:omment)?\b.*")
_TEXINFO_SET = re.compile(r"@set[ \t]+([\w-]+)[ \t]*(.*)")
_TEXINFO_BRACED = re.compile(r"@([A-Za-z]+)\{([^{}]*)\}")
_TEXINFO_GLYPHS = {"dots": "...", "copyright": "©", "TeX": "TeX", "LaTeX": "LaTeX", "tie": " "}
_TEXINFO_SYMBOL = re.compile(r"@([@{}])|@[^A-Za-z@{}]")


def roff_head(opening: str) -> str:
    """``"NAME(SECTION)"`` of a manual page's source ``opening`` (module docstring); "" for
    another text."""
    found = _head(opening.splitlines())
    if found is None:
        return ""
    quoted, bare, section = found[1].groups()
    return f"{quoted or bare}({section})"


def roff_title(lines: list[str]) -> str:
    """The title of a manual page's source ``lines`` (module docstring); "" for another
    text, or a source whose first section holds no text."""
    found = _head(lines)
    if found is None:
        return ""
    rows = lines[found[0] + 1 :]
    start = next((i for i, row in enumerate(rows) if _SECTION.match(row)), None)
    if start is None:
        return ""
    text: list[str] = []
    names: list[str] = []
    description = ""
    for row in rows[start + 1 :]:
        if _SECTION.match(row) or (text and row.startswith((".", "'"))):
            break  # the next section, or a request after the text
        if row.startswith(".Nm"):
            names.append(_plain(row[3:]))
        elif row.startswith(".Nd"):
            description = _plain(row[3:])
        elif row.strip() and not row.startswith((".", "'")):
            text.append(_plain(row))
    joined = " ".join(text) or (f"{', '.join(names)} - {description}" if description else "")
    title = clean_title(joined)
    return title if title_text(title) else ""


def _head(lines: list[str]) -> tuple[int, re.Match[str]] | None:
    """Where the source's head stands and its match, when every line above it is a request
    or a comment (or blank)."""
    for i, line in enumerate(lines[:HEADER_LINES]):
        if found := _HEAD.match(line):
            return i, found
        if line.strip() and not line.startswith((".", "'")):
            return None
    return None


def _plain(text: str) -> str:
    """Roff ``text`` as it renders: ``\\-`` a hyphen, escapes of fonts and zero width
    dropped, quotes around a macro's argument dropped, spaces collapsed."""
    plain = _ESCAPE.sub("", text.replace("\\-", "-").replace("\\e", "\\"))
    return " ".join(plain.replace('"', " ").split())


def pod_title(lines: list[str]) -> str:
    """The title of a POD source ``lines`` (module docstring); "" for another text."""
    text = [line.strip() for line in lines[:HEADER_LINES]]
    first = next((line for line in text if line and not line.startswith("#")), "")
    if not first.startswith("=") or not first[1:2].isalpha():
        return ""
    start = next((i for i, line in enumerate(text) if line.startswith("=head1")), None)
    if start is None:
        return ""
    paragraph: list[str] = []
    for line in text[start + 1 :]:
        if line.startswith("=") or (not line and paragraph):
            break
        if line:
            paragraph.append(line)
    title = clean_title(_POD_CODE.sub(_pod_text, " ".join(paragraph)))
    return title if title_text(title) else ""


def _pod_text(code: re.Match[str]) -> str:
    """What a POD formatting code renders as: an entity's character (``E<gt>``), a link's
    text (``L<text|target>``), else its text."""
    inner = code.group(1).strip()
    if code.group(0).startswith("E<"):
        return _POD_ENTITIES.get(inner, inner)
    return inner.split("|", 1)[0] if code.group(0).startswith("L<") else inner


def texinfo_title(lines: list[str]) -> str:
    """The title of a Texinfo source ``lines`` (module docstring); "" for another text."""
    text = [_TEXINFO_COMMENT.sub("", line).strip() for line in lines]
    first = next((line for line in text if line), "")
    if not _TEXINFO_START.match(first):
        return ""
    values: dict[str, str] = {}
    found: dict[str, str] = {}
    for line in text:
        if setting := _TEXINFO_SET.fullmatch(line):
            values[setting.group(1)] = setting.group(2)
        elif (command := _TEXINFO_LINE.fullmatch(line)) and command.group(2).strip():
            kind = command.group(1) if command.group(1) in ("settitle", "title") else "heading"
            found.setdefault(kind, _texinfo_text(command.group(2), values))
    title = clean_title(found.get("settitle") or found.get("title") or found.get("heading", ""))
    return title if title_text(title) else ""


def _texinfo_text(text: str, values: dict[str, str]) -> str:
    """Texinfo ``text`` as it renders: ``@value{NAME}`` its ``@set`` value, a glyph
    (``@dots{}``) its character, another braced command (``@code{x}``) its argument, ``@@``,
    ``@{`` and ``@}`` their character, another one-character command (``@:``) nothing."""

    def braced(command: re.Match[str]) -> str:
        name, argument = command.groups()
        if name == "value":
            return values.get(argument, "")
        return _TEXINFO_GLYPHS.get(name, "") if not argument else argument

    while (plain := _TEXINFO_BRACED.sub(braced, text)) != text:
        text = plain
    return _TEXINFO_SYMBOL.sub(lambda symbol: symbol.group(1) or "", text)
