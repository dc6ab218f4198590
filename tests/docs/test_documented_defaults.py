"""Docs and code agree on every default (issue 46: ``docs/langchain.md`` and
``docs/llamaindex.md`` said ``routing.chunks`` is 20 while the code said 10).

Every statement of a default in the prose of ``README.md`` and ``docs/*.md`` is found and
compared with the code's own default, read from one place (:data:`DEFAULTS`): the fields of
:class:`~cage_core.config.CageConfig` and of the configs it holds (``chain.length``, or
``ChainConfig.length``), of :class:`~cage_core.expansion.routing.RoutingSettings`
(``routing.chunks``), and the expansion retrievers' ``seeds``, ``limit``, ``siblings`` and
``added_score`` (which both frameworks' retrievers must share). A statement is a known name in
backticks followed by its value in one of the docs' forms: ```name` (10)``, ```name` (20,000
characters)``, ```name` (default 20,000``, ```name` (at its default 20,000``, or, in a
sentence that says "default" (or with its class named: ```DocumentConfig.lexical_weight` =
1.5``), ```name=3```, ```name = 3``` and ```name` = 1.5``. Tables
(``docs/provenance.md``'s has its own test) and code blocks (run by
``tests/docs/test_markdown_blocks.py``) are not read."""

from __future__ import annotations

import dataclasses
import inspect
import math
import re
from pathlib import Path

import pytest

from cage_core.config import CageConfig
from cage_core.expansion.routing import RoutingSettings

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _fields(config: object, prefix: str = "") -> dict[str, object]:
    """Every leaf field of a config dataclass by dotted name, with its default value."""
    out: dict[str, object] = {}
    for f in dataclasses.fields(config):  # type: ignore[arg-type]
        value = getattr(config, f.name)
        if dataclasses.is_dataclass(value):
            out.update(_fields(value, f"{prefix}{f.name}."))
        else:
            out[prefix + f.name] = value
    return out


def _class_names(config: object, prefix: str = "") -> dict[str, str]:
    """``{"ChainConfig": "chain."}``: the prefix of each config class ``config`` holds."""
    out = {type(config).__name__: prefix}
    for f in dataclasses.fields(config):  # type: ignore[arg-type]
        value = getattr(config, f.name)
        if dataclasses.is_dataclass(value):
            out.update(_class_names(value, f"{prefix}{f.name}."))
    return out


def _retriever_defaults() -> dict[str, object]:
    """The defaults of both frameworks' expansion retrievers, which must agree."""
    from cage_langchain import CageExpansionRetriever as LangChainRetriever
    from cage_llamaindex import CageExpansionRetriever as LlamaIndexRetriever

    names = ("seeds", "limit", "siblings", "added_score")
    langchain = {n: LangChainRetriever.model_fields[n].default for n in names}
    parameters = inspect.signature(LlamaIndexRetriever.__init__).parameters
    llamaindex = {n: parameters[n].default for n in names}
    assert langchain == llamaindex, (langchain, llamaindex)
    return langchain


DEFAULTS: dict[str, object] = {
    **_fields(CageConfig()),
    **_fields(RoutingSettings(), "routing."),
    **_retriever_defaults(),
}
"""Every default a page may state, by the name it states it under."""
CLASS_PREFIXES = {**_class_names(CageConfig()), "RoutingSettings": "routing."}

_NAME = r"`(?:(?P<cls>[A-Z][A-Za-z]+)\.)?(?P<name>[a-z_][a-z0-9_.]*)"
_VALUE = r"(?P<value>\"[^\"]*\"|'[^']*'|-?[\d,]*\.?\d+|None|True|False)"
STATEMENTS = [
    re.compile(_NAME + r"`\s*\((?:default |at its default )?" + _VALUE + r"(?:\)|[ :][a-z]*\)|:)"),
    re.compile(_NAME + r"`\s*\(default " + _VALUE),
]
"""Forms that state a default by themselves."""
IN_A_DEFAULT_SENTENCE = [
    re.compile(_NAME + r"\s*=\s*" + _VALUE + "`"),
    re.compile(_NAME + r"`\s*=\s*" + _VALUE + r"(?![\w.])"),
]
"""Forms that state a default in a sentence that says "default"."""


def _prose(text: str) -> list[tuple[int, str]]:
    """``(line number, line)`` of the prose: no code block, no table row."""
    out, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and not line.lstrip().startswith("|"):
            out.append((number, line))
    return out


def _sentence_says_default(lines: list[tuple[int, str]], i: int, start: int, end: int) -> bool:
    """Whether the sentence around ``[start, end)`` of line ``i`` (or its neighbours) says
    "default"."""
    before = " ".join(line for _, line in lines[max(0, i - 2) : i]) + " " + lines[i][1][:start]
    after = lines[i][1][end:] + " " + " ".join(line for _, line in lines[i + 1 : i + 3])
    head = re.split(r"[.!?](?:\s|$)", before)[-1]
    tail = re.split(r"[.!?](?:\s|$)", after)[0]
    return "default" in (head + tail).lower()


def documented_defaults() -> list[tuple[str, str, object]]:
    """``(where, name, value)`` of every statement of a known default in the pages."""
    out = []
    for page in PAGES:
        lines = _prose(page.read_text(encoding="utf-8"))
        for i, (number, line) in enumerate(lines):
            found = [(m, True) for pattern in STATEMENTS for m in pattern.finditer(line)]
            found += [
                (m, False) for pattern in IN_A_DEFAULT_SENTENCE for m in pattern.finditer(line)
            ]
            for match, alone in found:
                cls, name = match["cls"], match["name"]
                if cls is not None:
                    if cls not in CLASS_PREFIXES:
                        continue
                    name = CLASS_PREFIXES[cls] + name
                if name not in DEFAULTS:
                    continue
                alone = alone or cls is not None  # `GateConfig.min_subject_share` = 0.2
                if not alone and not _sentence_says_default(lines, i, *match.span()):
                    continue
                where = f"{page.relative_to(ROOT)}:{number}"
                out.append((where, name, _read(match["value"])))
    return out


def _read(value: str) -> object:
    if value[:1] in "\"'":
        return value[1:-1]
    if value in ("None", "True", "False"):
        return {"None": None, "True": True, "False": False}[value]
    return float(value.replace(",", ""))


def _same(stated: object, default: object) -> bool:
    if isinstance(stated, float) and isinstance(default, (int, float)):
        return not isinstance(default, bool) and math.isclose(stated, default)
    return stated == default


STATED = documented_defaults()


def test_the_pages_state_the_defaults_this_test_reads():
    named = {name for _, name, _ in STATED}
    assert {"routing.chunks", "seeds", "limit", "max_parse_chars"} <= named, sorted(named)


@pytest.mark.parametrize(
    ("where", "name", "stated"), STATED, ids=[f"{w} {n}" for w, n, _ in STATED]
)
def test_a_stated_default_is_the_codes(where, name, stated):
    assert _same(stated, DEFAULTS[name]), (
        f"{where}: `{name}` stated {stated!r}, the code has {DEFAULTS[name]!r}"
    )
