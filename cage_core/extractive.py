"""An honest extractive answerer: the sentences of the top passages that best match the question.

It generates nothing. Sentences are split on end punctuation, embedded with the same
embedder as relevance (all-MiniLM-L6-v2 by default) and ranked by cosine with the question;
the best ``max_sentences`` are returned with the number of the passage each came from.
Examples use it as their offline default "LLM".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cage_core.models import Embedder, default_embedder
from cage_core.scoring import cosine_matrix

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")
MIN_SENTENCE_WORDS = 4
"""Shorter fragments (headings, titles) are not quoted."""
LABEL = "[extractive answer — quoted from the passages, not generated]"


@dataclass(frozen=True)
class ExtractiveAnswer:
    sentences: tuple[str, ...]
    sources: tuple[int, ...]
    """0-based index, in the given passages, of each sentence's passage."""

    def render(self) -> str:
        quoted = " ".join(f"{s} [{i + 1}]" for s, i in zip(self.sentences, self.sources))
        return f"{LABEL} {quoted}" if quoted else f"{LABEL} (no passage to quote)"


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def extractive_answer(
    question: str, passages: Sequence[str], *, max_sentences: int = 2, embedder: Embedder | None = None
) -> ExtractiveAnswer:
    """The ``max_sentences`` sentences of ``passages`` closest to ``question``."""
    candidates = [(s, i) for i, p in enumerate(passages) for s in split_sentences(p)
                  if len(s.split()) >= MIN_SENTENCE_WORDS]
    if not candidates:
        return ExtractiveAnswer((), ())
    embed = embedder or default_embedder()
    vectors = np.asarray(embed([question] + [s for s, _ in candidates]))
    sims = cosine_matrix(vectors[:1], vectors[1:])[0]
    best = np.argsort(-sims, kind="stable")[:max_sentences]
    return ExtractiveAnswer(tuple(candidates[b][0] for b in best), tuple(candidates[b][1] for b in best))
