"""Settings of the document view that ranks a pool with document structure
(:mod:`cage_core.ranking.document_links`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from cage_core.config.validation import WEIGHT, Flag, Int, Ranges, validate

__all__ = ["DocumentConfig"]


@dataclass(frozen=True)
class DocumentConfig:
    """Settings of the document view (:mod:`cage_core.ranking.document_links`, where the formula is).

    Chosen by 5-fold cross-validation over every DEV file pooled (HotpotQA, 2WikiMultihopQA,
    MuSiQue, RAMDocs closed and open, DragonBall, SciFact abstracts and chunks, with and
    without expansion; 2,854 pools; ``benchmarks/beyond_cv.py``, a grid of 192 points for the
    view: the point chosen on all folds; the folds chose ``document_weight`` 2,
    ``adjacent_weight`` 1.5 and ``lexical_weight`` 1.5 five times, ``anchors`` 2 four times
    and 1 once); only the DragonBall
    and SciFact-chunk pools have document structure, the others are ranked as before whatever
    these are. A bonus for each named document's best chunk (a third weight) was chosen 0 by
    every fold of the grid with it: the best chunks anchor adjacency instead (a field that
    only ever ran at 0, removed). Variants not chosen: ``benchmarks/document_view_variants.py``.

    Attributes:
        enabled: rank pools with document structure by the document view (``False``: as any
            other pool).
        document_weight: ``w_d``, relevance added to every chunk of a document the query names.
        adjacent_weight: ``w_a``, a chunk adjacent to a lead or anchor gains
            ``max(w_d · N, w_a)`` instead of ``w_d · N``.
        anchors: ``m``, how many of the most relevant passages also anchor adjacency.
        lexical_weight: ``w_lex`` of the view's relevance ``r = z(sim) + w_lex · z(bm25)``,
            BM25 over each untitled chunk after its document's subject unless the chunk
            names it (``CageConfig.lexical_weight`` is the other pools'): chunks of
            documents written alike (one template, one domain) differ in their terms more
            than in their embeddings.
    """

    enabled: bool = True
    document_weight: float = 2.0
    adjacent_weight: float = 1.5
    anchors: int = 2
    lexical_weight: float = 1.5

    RANGES: ClassVar[Ranges] = {
        "enabled": Flag(),
        "document_weight": WEIGHT,
        "adjacent_weight": WEIGHT,
        "anchors": Int(0, 1000),
        "lexical_weight": WEIGHT,
    }
    """The accepted value of each field (checked by :func:`validate` at construction)."""

    def __post_init__(self) -> None:
        validate(self, self.RANGES, "document.")

    def replace(self, **changes: Any) -> DocumentConfig:
        """Return a copy with ``changes`` applied (validated like a new config)."""
        return dataclasses.replace(self, **changes)
