"""CAGE: coherence-aware graph reranking of retrieved passages.

>>> from cage_core import CageReranker
>>> reranker = CageReranker()
>>> ranked = reranker.rerank("Where was Marie Curie born?", passages, top_n=5)  # doctest: +SKIP

Public API: :class:`CageReranker`, :class:`CageConfig`, :class:`Passage`,
:class:`RankedPassage` (with its :class:`Via` and :class:`RankingPath`), :class:`PoolScores`,
:class:`PassageGraph`.

Layout (the data flow): ``graphs/`` (one passage's entity graph) -> ``ranking/``
(one pool's signals and their fusion; ``paper/``: the paper's R-GCN coherence) -> ``methods/``
(one protocol; CAGE's method dispatches over the pool kinds) -> :class:`CageReranker`;
``expansion/`` (the ingest-time link index), ``integrations/``, ``eval/`` and ``cli/``
(nothing else imports those two).
"""

from cage_core.config import CageConfig
from cage_core.graphs.passage_graph import GraphFormatError, PassageGraph
from cage_core.models import MissingModelError
from cage_core.passage import Passage, RankedPassage, RankingPath, Via
from cage_core.ranking.pool_scores import PoolScores
from cage_core.reranker import CageReranker

__version__ = "0.4.0"

__all__ = [
    "CageConfig",
    "CageReranker",
    "GraphFormatError",
    "MissingModelError",
    "Passage",
    "PassageGraph",
    "PoolScores",
    "RankedPassage",
    "RankingPath",
    "Via",
    "__version__",
]
