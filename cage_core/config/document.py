"""Settings of the document view that ranks a pool with document structure
(:mod:`cage_core.ranking.document_links`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from cage_core.config.validation import WEIGHT, Flag, Int, Ranges, Validated

__all__ = ["DocumentConfig"]


@dataclass(frozen=True)
class DocumentConfig(Validated):
    """Settings of the document view that ranks a pool with document structure (``doc_id``;
    :mod:`cage_core.ranking.document_links`, where the formula is); other pools ignore them.

    Attributes:
        enabled: rank pools with document structure by the view (``False``: as any other pool).
        document_weight: ``w_d``, relevance added to every chunk of a document the query names.
        adjacent_weight: ``w_a``: a chunk adjacent to a lead or anchor gains ``max(w_d · N, w_a)``.
        anchors: ``m``, how many of the most relevant passages also anchor adjacency.
        lexical_weight: ``w_lex`` of the view's relevance ``r = z(sim) + w_lex · z(bm25)``.

    Where each default comes from (grid, metric, out-of-fold result, script, commit):
    ``docs/provenance.md``, rows ``document.*``.
    """

    enabled: bool = True
    document_weight: float = 2.0
    adjacent_weight: float = 1.5
    anchors: int = 2
    lexical_weight: float = 1.5

    PREFIX: ClassVar[str] = "document."
    RANGES: ClassVar[Ranges] = {
        "enabled": Flag(),
        "document_weight": WEIGHT,
        "adjacent_weight": WEIGHT,
        "anchors": Int(0, 1000),
        "lexical_weight": WEIGHT,
    }
