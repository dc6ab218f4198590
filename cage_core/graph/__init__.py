"""Passage graphs: the typed entity graph of one passage, how it is built and weighted."""

from cage_core.graph.build import GraphParser, graph_from_doc
from cage_core.graph.passage_graph import GRAPH_FORMAT_VERSION, GraphFormatError, PassageGraph
from cage_core.graph.relations import NUM_RELATIONS, Relation

__all__ = [
    "GRAPH_FORMAT_VERSION",
    "NUM_RELATIONS",
    "GraphFormatError",
    "GraphParser",
    "PassageGraph",
    "Relation",
    "graph_from_doc",
]
