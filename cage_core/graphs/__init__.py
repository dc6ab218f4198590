"""Stage 1, passage graphs: one passage's typed entity graph, how it is parsed (spaCy), stored
and cached.

Modules: ``builder``, ``cache``, ``integrity``, ``parse``, ``passage_graph``, ``pronouns``,
``relations``, ``service``, ``store``, ``vectors``.
"""

from cage_core.graphs.builder import graph_from_doc
from cage_core.graphs.parse import GraphParser
from cage_core.graphs.passage_graph import GRAPH_FORMAT_VERSION, GraphFormatError, PassageGraph
from cage_core.graphs.relations import NUM_RELATIONS, Relation

__all__ = [
    "GRAPH_FORMAT_VERSION",
    "NUM_RELATIONS",
    "GraphFormatError",
    "GraphParser",
    "PassageGraph",
    "Relation",
    "graph_from_doc",
]
