"""Routing in the open setting of ``cage eval``: the product's rule, over the corpus.

With the expansion step on (``--expand``), each question is routed as the frameworks'
expansion retrievers route it (:mod:`cage_core.expansion.routing`): when it confidently names
documents of the corpus (chunks sharing a ``doc_id``),

1. the question less its naming words is embedded (one batch per file);
2. each named document's ``chunks`` best chunks by cosine with it join the pool, after the
   retrieved and expanded passages (what a vector store's search restricted to that document
   returns);
3. the whole pool is ranked for that question: its similarities are the shortened question's
   cosines, and the named documents' passages come first
   (:mod:`cage_core.ranking.named_documents`).

A question that names no document keeps its pool, similarities and question exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cage_core.eval.corpus import Corpus
from cage_core.expansion.document_names import MemoryDocumentNames
from cage_core.expansion.openings import IngestChunk, opening_records
from cage_core.expansion.record import LinkEntry
from cage_core.expansion.storage import MemoryLinkStorage
from cage_core.names.routes import DocumentRoute

__all__ = ["CorpusDocuments", "RoutedPools"]


class CorpusDocuments:
    """The corpus's documents: their records, read from each document's first chunk by the
    rule ingest writes them with (:func:`~cage_core.expansion.openings.opening_records`, one
    call: the lowest ``position``, else the first in corpus order; its title, when titles are
    read), and their chunks by ``doc_id``."""

    def __init__(self, corpus: Corpus) -> None:
        self.chunks: dict[str, list[int]] = {}
        chunks = []
        for index, passage in enumerate(corpus.passages):
            if passage.doc_id is None:
                continue
            self.chunks.setdefault(passage.doc_id, []).append(index)
            entry = LinkEntry(str(index), "", (), (), passage.doc_id, passage.position)
            chunks.append(IngestChunk(entry, passage.text, passage.title))
        self.names = MemoryDocumentNames(opening_records(MemoryLinkStorage(), chunks))


@dataclass(frozen=True)
class RoutedPools:
    """The pools of one file's routed questions (module docstring), by question row."""

    pools: dict[int, list[int]]
    """Row → the pool: the given pool, then the named documents' chunks not in it."""
    similarities: dict[int, np.ndarray]
    """Row → the shortened question's cosines with every corpus passage."""

    @classmethod
    def build(
        cls,
        routes: Sequence[DocumentRoute],
        pools: Sequence[list[int]],
        documents: CorpusDocuments,
        cosines: np.ndarray,
        chunks: int,
    ) -> RoutedPools:
        """``cosines``: one row per routed question (in row order) against the corpus."""
        routed = [row for row, route in enumerate(routes) if route]
        out_pools: dict[int, list[int]] = {}
        out_similarities: dict[int, np.ndarray] = {}
        for row, similarities in zip(routed, cosines):
            pool = list(pools[row])
            taken = set(pool)
            for doc_id in routes[row].doc_ids:
                held = documents.chunks.get(doc_id, [])
                best = sorted(held, key=lambda i: (-similarities[i], i))[:chunks]
                pool.extend(i for i in best if i not in taken)
                taken.update(best)
            out_pools[row] = pool
            out_similarities[row] = similarities
        return cls(out_pools, out_similarities)
