"""The names a chunk's metadata gives its document: its title or heading, and its path.

Real files are not named after what they are about: every package ships a ``README.md``, a
``CHANGELOG``, a ``LICENSE``, an ``index.rst`` or a ``*.dist-info/METADATA``, and their top
heading is often a row of badges. Read naively, 102 chunks of three unrelated packages all
had the subject ``README`` and linked as if about one thing (issue 38). So:

* :func:`heading_name` — a title or heading (metadata ``title``, a splitter's ``Header 1``)
  with its markup removed (:func:`~cage_core.prose.heading_text`: badges, images, links,
  inline code, HTML tags and URLs), or "" when nothing but markup is left or what is left is
  debris (:func:`~cage_core.names.may_link.is_debris_title`: a code fragment, a path; not a
  title that names a file among its words, "Using pyproject.toml");
* :func:`path_name` — what a path names: the file name less its extension, separators as
  spaces but for a version's dots (``docs/marie_curie.pdf`` → ``marie curie``, ``LGPL-2.1`` →
  ``LGPL 2.1``, not ``LGPL 2``, another licence), unless it is a generic file name
  (:func:`is_generic_file_name`) or debris (``[draft]``, a drive ``C:``, a URL scheme); then
  the nearest folder above it that is neither, a
  version and a ``.dist-info`` / ``.egg-info`` suffix dropped
  (``site-packages/fastapi/README.md`` → ``fastapi``,
  ``mmh3-5.3.1.dist-info/METADATA`` → ``mmh3``: :func:`folder_name`); "" when no part of the
  path names anything;
* :func:`is_generic_file_name` — a name that says what role a file or folder plays, not what
  it is about: one of :data:`GENERIC_PATH_NAMES` in normal form (any case, any extension,
  ``-`` / ``_`` / ``.`` as spaces: ``README``, ``CHANGELOG.md``, ``code-of-conduct.rst``),
  one starting with a word of :data:`GENERIC_FILE_PREFIXES` (``README-hacking.md``,
  ``LICENSE-MIT``), a hidden name (``.agents``), a ``pythonX.Y`` folder, or one that has no
  normal form (shorter than three characters, no word: ``ma``, ``_``);
* :func:`file_extension` — a file name's extension, or "" when its last suffix is a version;
* :func:`file_stem` — a file name without its extension, its version kept (``LGPL-2.1``).
"""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import Any

from cage_core.names.forms import normal_name
from cage_core.names.may_link import is_debris, is_debris_title
from cage_core.prose import heading_text

__all__ = [
    "GENERIC_FILE_PREFIXES",
    "GENERIC_PATH_NAMES",
    "file_extension",
    "file_stem",
    "folder_name",
    "heading_name",
    "is_generic_file_name",
    "path_name",
]

GENERIC_PATH_NAMES = frozenset(
    """
    readme changelog changes history news releases whatsnew index contents toc docs doc
    documentation notes note license licence licenses copying copyright notice contributing
    contributors authors maintainers credits thanks security support funding governance
    skill skills agents agent metadata description install installation setup todo main init
    intro introduction overview quickstart usage guide tutorial tutorials faq api reference
    references examples example test tests default home about page untitled document
    documents file files text src source sources lib lib64 libs build dist out package
    packages pkg templates template model models assets static content pages resources
    include share vendor usr local opt tmp temp venv env site www public data dataset datasets
    """.split()
) | {
    "release notes",
    "whats new",
    "code of conduct",
    "pkg info",
    "getting started",
    "quick start",
    "user guide",
    "site packages",
    "dist packages",
    "node modules",
    "third party",
}
"""File and folder names, in normal form, that name a role, not a subject (module docstring)."""
GENERIC_FILE_PREFIXES = frozenset({"readme", "changelog", "license", "licence", "copying"})
"""A file or folder whose name starts with one of these words (normal form) is generic too."""

_PACKAGE_INFO = re.compile(r"\.(?:dist|egg)-info$", re.IGNORECASE)
_VERSION = re.compile(r"[-_]v?\d+(?:\.\w+)+$")
"""A version suffix: ``mmh3-5.3.1``, ``en_core_web_md-3.7.1``, ``fastapi-0.110.0rc1``."""
_PYTHON_FOLDER = re.compile(r"python\d+(?:\.\d+)*", re.IGNORECASE)
_SEPARATORS = re.compile(r"[_\-\s.]+")
_STEM_END = re.compile(r"\.(?!(?<=\d\.)\d)")
_EXTENSION = re.compile(r"\.[A-Za-z0-9]{0,7}[A-Za-z][A-Za-z0-9]{0,7}")
"""A file name's extension: ``.pdf``, ``.md``, ``.mp4`` (not ``.1`` of ``LGPL-2.1``)."""
_NAME_SEPARATORS = re.compile(r"(?:[_\-\s]|(?<!\d)\.|\.(?!\d))+")
"""What a file's name separates its words by: ``_``, ``-``, spaces and a dot, but a version's
dot (between two digits: ``"LGPL-2.1"`` → ``"LGPL 2.1"``)."""


def heading_name(value: Any) -> str:
    """A title or heading as a name (module docstring); "" for a non-string or nothing left."""
    if not isinstance(value, str):
        return ""
    text = heading_text(value)
    return "" if not text or is_debris_title(text) else text


def is_generic_file_name(name: str) -> bool:
    """Whether a file or folder name (extension, if any, included) names no subject (module
    docstring)."""
    stem = name.strip()
    if not stem or stem.startswith(".") or _PYTHON_FOLDER.fullmatch(stem):
        return True
    normal = normal_name(_spaced(_without_extension(stem)))
    if not normal:
        return True
    return normal in GENERIC_PATH_NAMES or normal.split()[0] in GENERIC_FILE_PREFIXES


def path_name(value: Any) -> str:
    """What a path names (module docstring): its file name's stem, else its nearest folder that
    is not generic, separators as spaces; "" when none does (or ``value`` is no string)."""
    if not isinstance(value, str) or not value.strip():
        return ""
    path = PurePath(value.strip().replace("\\", "/"))
    parts = [p for p in path.parts if p not in ("/", "")]
    if not parts:
        return ""
    file_name = parts[-1]
    stem = _NAME_SEPARATORS.sub(" ", _without_extension(file_name)).strip()
    if not is_generic_file_name(file_name) and not is_debris(stem):
        return stem
    return folder_name(value)


def file_extension(file_name: str) -> str:
    """``file_name``'s extension as written: its last suffix when that is letters and digits
    with a letter (``".pdf"``, ``".md"``, ``".mp4"``); "" for none (``"NEWS"``, ``".bashrc"``)
    and for a version (``"LGPL-2.1"``, ``"notes-2.38"``)."""
    suffix = PurePath(file_name).suffix
    return suffix if _EXTENSION.fullmatch(suffix) else ""


def _without_extension(file_name: str) -> str:
    """``file_name`` less its :func:`file_extension` (``"marie_curie.pdf"`` →
    ``"marie_curie"``; ``"LGPL-2.1"`` stays whole, not ``"LGPL-2"``, another document's
    name)."""
    return file_name[: len(file_name) - len(file_extension(file_name))]


def folder_name(value: str) -> str:
    """The nearest folder above the file of path ``value`` that is neither generic nor debris,
    a version and a ``.dist-info`` / ``.egg-info`` suffix dropped, separators as spaces
    (``"mmh3-5.3.1.dist-info/METADATA"`` → ``"mmh3"``); "" when none is."""
    parts = [p for p in PurePath(value.strip().replace("\\", "/")).parts if p not in ("/", "")]
    for folder in reversed(parts[:-1]):
        bare = _VERSION.sub("", _PACKAGE_INFO.sub("", folder))
        if bare.endswith(":") or is_generic_file_name(bare) or is_debris(_spaced(bare)):
            continue  # a drive or a URL scheme, a generic name, debris
        return _spaced(bare)
    return ""


def _spaced(name: str) -> str:
    """``"marie_curie"`` → ``"marie curie"``: runs of ``_``, ``-``, ``.`` and spaces as one
    space."""
    return _SEPARATORS.sub(" ", name).strip()


def file_stem(file_name: str) -> str:
    """``file_name`` up to its first dot, but for a dot between two digits (a version):
    ``"rfc-9110.txt"`` → ``"rfc-9110"``, ``"LGPL-2.1"`` → ``"LGPL-2.1"`` (not ``"LGPL-2"``,
    another document's name), ``"MPL-2.0.txt"`` → ``"MPL-2.0"``; a name that starts with a
    dot loses it (``".bashrc"`` → ``"bashrc"``)."""
    if file_name.startswith("."):
        return file_name.lstrip(".")
    return _STEM_END.split(file_name, maxsplit=1)[0]
