"""docs/provenance.md has one row per config field: every field of CageConfig and of the
configs it holds, recursively (``gate.min_subject_share``), and of the expansion's routing
(``routing.min_score``: :class:`~cage_core.expansion.routing.RoutingSettings`), of a routed
pool's named order (``named_order.relevance_weight``), of the frameworks' 0–1 score
(``relevance.midpoint``: the constants of :mod:`cage_core.relevance`), and of the link
expansion (``expansion.seed_decay``: :data:`EXPANSION_CONSTANTS`) and of how a title names its
document (``titles.max_title_holders``: :data:`TITLE_CONSTANTS`), and no row for a field that
does not exist; a row's value is the field's default."""

import dataclasses
import math
from pathlib import Path

import pytest

from cage_core import relevance
from cage_core.config import CageConfig
from cage_core.expansion import algorithm, contract, title_parts
from cage_core.expansion.routing import RoutingSettings
from cage_core.integrations import expanded_pool
from cage_core.ranking import named_documents

TABLE = Path(__file__).resolve().parents[2] / "docs" / "provenance.md"
COLUMNS = ["field", "value", "grid", "metric", "out of fold", "script", "commit"]
HAND_SET = (
    "alpha",
    "lexical_weight",
    "entity_weight",
    "core_size",
)
"""The oldest defaults, the ranking's four: no grid chose them (the link index's first
weights, hand-set too, have been kept by ``benchmarks/tuning/link_weights_cv.py``'s grid)."""


def config_fields(config: object, prefix: str = "") -> dict[str, object]:
    """Every leaf field of ``config`` by dotted name, with its value; a field holding a config
    is entered, not listed."""
    out: dict[str, object] = {}
    for f in dataclasses.fields(config):
        value = getattr(config, f.name)
        if dataclasses.is_dataclass(value):
            out.update(config_fields(value, f"{prefix}{f.name}."))
        else:
            out[prefix + f.name] = value
    return out


def table_rows(text: str) -> list[dict[str, str]]:
    """The rows of the Markdown table whose header is :data:`COLUMNS`."""
    lines = [line.strip() for line in text.splitlines() if line.strip().startswith("|")]
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in lines]
    assert cells and cells[0] == COLUMNS, cells[:1]
    return [dict(zip(COLUMNS, row, strict=True)) for row in cells[2:]]


def coverage(rows: list[dict[str, str]], fields: dict[str, object]) -> tuple[list[str], list[str]]:
    """(fields without a row, rows that name no field)."""
    named = [row["field"].strip("`") for row in rows]
    return sorted(set(fields) - set(named)), sorted(set(named) - set(fields))


def stated_value(cell: str) -> object:
    """A value cell read as Python (``1/3``, ``20,000``, ``true``, ``"bridge"``); ``None``
    when it is prose."""
    cell = cell.strip("`")
    if cell in ("true", "false"):
        return cell == "true"
    if cell.startswith('"') and cell.endswith('"'):
        return cell[1:-1]
    try:
        if "/" in cell:
            top, bottom = cell.split("/")
            return float(top) / float(bottom)
        return float(cell.replace(",", ""))
    except ValueError:
        return None


ROWS = table_rows(TABLE.read_text(encoding="utf-8"))
SCORE_CONSTANTS = {
    f"relevance.{name.lower()}": getattr(relevance, name)
    for name in ("MIDPOINT", "SLOPE", "SPREAD", "WEIGHT", "CUTOFF")
}
"""The parameters of :func:`cage_core.relevance.pool_relevance` and the cutoff they were
chosen for: module constants, not config fields, tuned like them."""
NAMED_ORDER_CONSTANTS = {
    "named_order.relevance_weight": named_documents.NAMED_RELEVANCE_WEIGHT,
    "named_order.other_kept_rank": named_documents.OTHER_KEPT_RANK,
}
"""The constants of a routed pool's order (:mod:`cage_core.ranking.named_documents`): the
weight of a named passage's relevance term, and the rank the retriever's best passage keeps."""
EXPANSION_CONSTANTS = {
    **config_fields(algorithm.LinkWeights(), "expansion."),
    "expansion.seeds": algorithm.DEFAULT_SEEDS,
    "expansion.limit": algorithm.DEFAULT_LIMIT,
    "expansion.added_score": contract.DEFAULT_ADDED_SCORE,
    "expansion.siblings": contract.DEFAULT_SIBLINGS,
    "expansion.cited": expanded_pool.DEFAULT_CITED,
}
"""The link expansion's defaults: the fields of :class:`~cage_core.expansion.algorithm.LinkWeights`
(the link weights and df bounds), the seeds expanded from and passages added
(:mod:`cage_core.expansion.algorithm`), how an added passage is scored and how many
same-document neighbours are added (:mod:`cage_core.expansion.contract`), and how many cited
documents are followed (:mod:`cage_core.integrations.expanded_pool`)."""
TITLE_CONSTANTS = {
    "titles.max_title_holders": title_parts.MAX_TITLE_HOLDERS,
    "titles.common_title_share": title_parts.COMMON_TITLE_SHARE,
    "titles.min_cited_words": title_parts.MIN_CITED_TITLE_WORDS,
}
"""How a title names its document (:mod:`cage_core.expansion.title_parts`): in a question
(routing) and in a passage that cites it."""
FIELDS = {
    **config_fields(CageConfig()),
    **config_fields(RoutingSettings(), "routing."),
    **NAMED_ORDER_CONSTANTS,
    **SCORE_CONSTANTS,
    **EXPANSION_CONSTANTS,
    **TITLE_CONSTANTS,
}


def test_every_config_field_has_a_row_and_every_row_a_field():
    missing, unknown = coverage(ROWS, FIELDS)
    assert not missing, f"add a row to docs/provenance.md for {missing}"
    assert not unknown, f"docs/provenance.md names fields that do not exist: {unknown}"
    named = [row["field"] for row in ROWS]
    assert len(named) == len(set(named)), "a field has two rows"


def test_the_check_catches_a_missing_and_an_unknown_row():
    rows = [row for row in ROWS if row["field"] != "`gate.min_subject_share`"]
    rows.append({**ROWS[0], "field": "`gate.min_subject_shares`"})
    assert coverage(rows, FIELDS) == (["gate.min_subject_share"], ["gate.min_subject_shares"])


@pytest.mark.parametrize("row", ROWS, ids=[row["field"].strip("`") for row in ROWS])
def test_a_row_states_the_shipped_default(row):
    name = row["field"].strip("`")
    stated, default = stated_value(row["value"]), FIELDS.get(name)
    if name == "string_rules":
        assert "all of" in row["value"] and default == CageConfig.__dataclass_fields__[name].default
        return
    assert stated is not None, f"{name}: cannot read the value {row['value']!r}"
    if isinstance(default, bool) or isinstance(default, str):
        assert stated == default
    else:
        assert isinstance(stated, float) and math.isclose(stated, float(default)), (stated, default)
    assert row["commit"] and all(row[c] for c in COLUMNS), row


@pytest.mark.parametrize("name", HAND_SET)
def test_the_defaults_no_grid_chose_are_marked_hand_set_with_a_reason(name):
    row = next(row for row in ROWS if row["field"] == f"`{name}`")
    assert row["grid"].startswith("hand-set: ") and len(row["grid"]) > 60
