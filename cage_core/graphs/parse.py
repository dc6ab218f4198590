"""spaCy parse → :class:`PassageGraph`: :class:`GraphParser` runs the pipeline (entities in
one pass, the rest in a second, safely from many threads, on texts cut to ``max_chars``) and
:mod:`cage_core.graphs.builder` makes the graph of each parsed ``Doc`` (the nodes and typed
edges).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from cage_core.graphs.builder import graph_from_doc, light_graph_from_doc
from cage_core.graphs.passage_graph import (
    GRAPH_FORMAT_VERSION,
    GRAPH_LEVELS,
    GraphLevel,
    PassageGraph,
    content_hash,
    graph_limits,
)
from cage_core.graphs.vectors import LabelVectors
from cage_core.passage import encodable

if TYPE_CHECKING:
    from spacy.language import Language

__all__ = [
    "ENTITY_FACTORIES",
    "UNUSED_COMPONENTS",
    "GraphParser",
    "pipeline_fingerprint",
]

logger = logging.getLogger(__name__)

#: Pipeline components the graph does not use (disabled when parsing).
UNUSED_COMPONENTS = ("textcat", "textcat_multilabel", "entity_linker", "coref", "span_resolver")
#: Factories of the components that set ``doc.ents`` (all a light graph needs).
ENTITY_FACTORIES = frozenset({"ner", "beam_ner", "entity_ruler", "span_ruler"})


def pipeline_fingerprint(meta: Mapping[str, object]) -> str:
    """Identifies the pipeline (from its ``meta``) and the graph format a graph was built with."""
    return (
        f"{meta.get('lang', '?')}_{meta.get('name', '?')}-{meta.get('version', '?')}"
        f"/g{GRAPH_FORMAT_VERSION}"
    )


class GraphParser:
    """Parses passages into graphs with one spaCy pipeline, safely from many threads.

    Entities come from one pass of the entity recogniser alone (and any component it listens
    to), so they do not depend on the dependency parser's sentence boundaries and a light and
    a full graph of a passage have exactly the same entity nodes. ``level="light"`` stops
    there (about twice as fast); ``level="full"`` adds a pass of the rest of the pipeline
    (tagger, parser, lemmatizer) over the same tokens. Texts longer than ``max_chars`` are
    cut to that length before parsing (a warning is logged), which bounds the work any
    single passage can cause; lone surrogates are parsed as "?". Each graph carries the
    :func:`~cage_core.graphs.passage_graph.content_hash` of the whole text it was given.
    """

    def __init__(self, nlp: Language, *, vector_dim: int = 300, max_chars: int = 20_000) -> None:
        self.nlp = nlp
        self.vector_dim = vector_dim
        self.max_chars = max_chars
        self.limits = graph_limits(max_chars)
        """The most nodes and edges a graph of this parser holds (from ``max_chars``)."""
        self.fingerprint = pipeline_fingerprint(nlp.meta)
        self.label_vectors = LabelVectors(nlp, vector_dim)
        makers = _entity_makers(nlp)
        feeding = _listened_to(nlp, makers)
        self._entity_pass_off = [n for n in nlp.pipe_names if n not in makers | feeding]
        self._parse_pass_off = [n for n in nlp.pipe_names if n in makers or n in UNUSED_COMPONENTS]
        self._lock = threading.Lock()

    def parse(self, texts: Sequence[str], level: GraphLevel = "full") -> list[PassageGraph]:
        """Graphs of ``texts`` at ``level``, in order, parsed in batches (without vectors)."""
        if level not in GRAPH_LEVELS:
            raise ValueError(f"level must be one of {GRAPH_LEVELS}, got {level!r}")
        clipped = [self._clip(t) for t in texts]
        with self._lock:
            entity_docs = list(self.nlp.pipe(clipped, disable=self._entity_pass_off))
            if level == "light":
                return [
                    light_graph_from_doc(
                        d, source=self.fingerprint, content_sha=content_hash(t), limits=self.limits
                    )
                    for d, t in zip(entity_docs, texts)
                ]
            docs = list(self.nlp.pipe(clipped, disable=self._parse_pass_off))
        from spacy.tokens import Span

        for doc, entity_doc in zip(docs, entity_docs):
            doc.ents = [Span(doc, e.start, e.end, label=e.label) for e in entity_doc.ents]
        return [
            graph_from_doc(
                d, source=self.fingerprint, content_sha=content_hash(t), limits=self.limits
            )
            for d, t in zip(docs, texts)
        ]

    def _clip(self, text: str) -> str:
        text = encodable(text)  # lone surrogates would fail inside spaCy's string store
        if len(text) <= self.max_chars:
            return text
        logger.warning(
            "passage of %d characters cut to max_parse_chars=%d before parsing",
            len(text),
            self.max_chars,
        )
        return text[: self.max_chars]

    def with_vectors(self, graphs: Sequence[PassageGraph]) -> list[PassageGraph]:
        """``graphs`` with their node word vectors attached (:mod:`cage_core.graphs.vectors`)."""
        return [
            g
            if g.vectors is not None and g.vectors.shape[1] == self.vector_dim
            else g.with_vectors(self.label_vectors(g.labels))
            for g in graphs
        ]


def _entity_makers(nlp: Language) -> set[str]:
    """The components that set ``doc.ents`` (entity recognisers and rulers)."""
    return {n for n in nlp.pipe_names if nlp.get_pipe_meta(n).factory in ENTITY_FACTORIES}


def _listened_to(nlp: Language, components: set[str]) -> set[str]:
    """The components (a shared tok2vec or transformer) that ``components`` listen to."""
    return {
        n
        for n in nlp.pipe_names
        if components & set(getattr(nlp.get_pipe(n), "listening_components", ()))
    }
