"""An honest extractive answerer: the sentences of the top passages that best answer the question.

It generates nothing. Sentences are split on end punctuation (fragments of fewer than
``MIN_SENTENCE_WORDS`` words are never quoted), embedded with the same embedder as relevance
(all-MiniLM-L6-v2 by default) and compared by cosine. Examples use it as their offline
default "LLM".

Without a chain — the default rule — it quotes the ``max_sentences`` sentences of all the
passages closest to the question, best first, each with the number of its passage.

With a chain (``chain[b] = Via(name, a)``: passage b is linked to the earlier passage a
through ``name``, as :attr:`RankedPassage.via <cage_core.passage.RankedPassage.via>` says) it
follows the chain instead, when all of these exist:

1. *links*: the vias whose name the question does not name (whole words, case-insensitive;
   a name the question gives is no bridge to what it asks);
2. *source*: the passage a that the best-ranked of those links start from (smallest a);
3. *rest of the question*: the question without the phrase the source answers
   (:func:`rest_of_question`);
4. *bridge sentence*: among the sentences of the passages linked to the source by a link of
   step 1, the one closest to the rest of the question (ties: the first).

The answer is then the source's sentence that names the bridge sentence's link name (whole
words, case-insensitive; without one, any of the source's sentences), the one closest to the
question, followed by the bridge sentence, followed by the default rule's best other sentences
up to ``max_sentences`` (with ``max_sentences=1``: the bridge sentence alone). If any of the
four is missing, the default rule answers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cage_core.models import Embedder, SpacyModel, default_embedder, load_spacy
from cage_core.passage import Via
from cage_core.pool_index import occurs_as_whole_words, words
from cage_core.scoring import cosine_matrix

__all__ = [
    "ANCHOR_POS",
    "LABEL",
    "MIN_SENTENCE_WORDS",
    "PHRASE_HEAD_POS",
    "PHRASE_INNER_DEPS",
    "ExtractiveAnswer",
    "extractive_answer",
    "rest_of_question",
    "split_sentences",
]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")
MIN_SENTENCE_WORDS = 4
"""Shorter fragments (headings, titles) are not quoted."""
LABEL = "[extractive answer — quoted from the passages, not generated]"
ANCHOR_POS = frozenset({"NOUN", "PROPN"})
"""Question words that can tie the question to a source passage (:func:`rest_of_question`)."""
PHRASE_HEAD_POS = frozenset({"NOUN", "PROPN", "PRON"})
"""Parts of speech that head the phrase a source answers."""
PHRASE_INNER_DEPS = frozenset({"poss", "compound", "nmod", "appos"})
"""Dependency links from a noun to the head of the same noun phrase (``Mathew`` →
``father`` in "Charles Mathew's father")."""


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


def _quotable(passages: Sequence[str], positions: Sequence[int]) -> list[tuple[str, int]]:
    """``(sentence, passage index)`` of every quotable sentence of the given passages."""
    return [(s, i) for i in positions for s in split_sentences(passages[i])
            if len(s.split()) >= MIN_SENTENCE_WORDS]  # fmt: skip


def extractive_answer(
    question: str,
    passages: Sequence[str],
    *,
    max_sentences: int = 2,
    embedder: Embedder | None = None,
    chain: Sequence[Via | None] | None = None,
    nlp: SpacyModel | None = None,
) -> ExtractiveAnswer:
    """Quote the passages (module docstring: the default rule, or the chain's).

    Args:
        question: the question.
        passages: the passages, best first.
        max_sentences: how many sentences to quote at most.
        embedder: texts → embeddings; default all-MiniLM-L6-v2.
        chain: one via or ``None`` per passage (``Via.rank``: the index of an earlier
            passage), e.g. ``[r.via for r in ranked]`` or
            :func:`~cage_core.metadata.chain_from_metadata`; ``None``: the default rule.
        nlp: the spaCy pipeline that parses the question when a chain is followed (default:
            the installed one, :func:`~cage_core.models.load_spacy`).

    Raises:
        ValueError: ``chain`` not one entry per passage, or a via not pointing at an earlier
            passage; ``max_sentences`` < 1.
    """
    if max_sentences < 1:
        raise ValueError(f"max_sentences must be >= 1, got {max_sentences}")
    if chain is not None:
        _check_chain(chain, len(passages))
    candidates = _quotable(passages, range(len(passages)))
    if not candidates:
        return ExtractiveAnswer((), ())
    embed = embedder or default_embedder()
    followed = _follow_chain(question, passages, chain, embed, nlp) if chain is not None else None
    chosen = [] if followed is None else followed[-max_sentences:] if max_sentences < len(followed) \
        else followed
    if len(chosen) < max_sentences:
        rest = [c for c in candidates if c not in chosen]
        if rest:
            vectors = np.asarray(embed([question] + [s for s, _ in rest]))
            sims = cosine_matrix(vectors[:1], vectors[1:])[0]
            chosen += [rest[b] for b in np.argsort(-sims, kind="stable")[: max_sentences - len(chosen)]]
    return ExtractiveAnswer(tuple(s for s, _ in chosen), tuple(i for _, i in chosen))


def _check_chain(chain: Sequence[Via | None], k: int) -> None:
    if len(chain) != k:
        raise ValueError(f"chain must have one entry per passage: {len(chain)} for {k}")
    for b, via in enumerate(chain):
        if via is not None and not 0 <= via.rank < b:
            raise ValueError(f"chain[{b}] = {via!r} does not point at an earlier passage")


def _follow_chain(
    question: str, passages: Sequence[str], chain: Sequence[Via | None], embed: Embedder,
    nlp: SpacyModel | None,
) -> list[tuple[str, int]] | None:
    """``[source sentence, bridge sentence]`` (or the bridge sentence alone) of the chain rule
    (module docstring), or ``None`` when it does not apply."""
    lowered = question.lower()
    links = [(via.rank, b, via.name) for b, via in enumerate(chain)
             if via is not None and not occurs_as_whole_words(via.name.lower(), lowered)]  # fmt: skip
    if not links:
        return None
    source = min(a for a, _, _ in links)
    name_of = {b: name for a, b, name in links if a == source}
    bridge_sentences = _quotable(passages, sorted(name_of))
    if not bridge_sentences:
        return None
    rest = rest_of_question(question, passages[source], nlp)
    if rest is None:
        return None
    source_sentences = _quotable(passages, [source])
    texts = [rest, question] + [s for s, _ in bridge_sentences] + [s for s, _ in source_sentences]
    vectors = np.asarray(embed(texts))
    n = len(bridge_sentences)
    to_rest = cosine_matrix(vectors[:1], vectors[2 : 2 + n])[0]
    bridge = bridge_sentences[int(np.argmax(to_rest))]  # argmax: the first of equal maxima
    if not source_sentences:
        return [bridge]
    to_question = cosine_matrix(vectors[1:2], vectors[2 + n :])[0]
    name = name_of[bridge[1]].lower()
    naming = [j for j, (s, _) in enumerate(source_sentences) if occurs_as_whole_words(name, s.lower())]
    pool = naming or list(range(len(source_sentences)))
    best = max(pool, key=lambda j: (to_question[j], -j))
    return [source_sentences[best], bridge]


def rest_of_question(question: str, source: str, nlp: SpacyModel | None = None) -> str | None:
    """The question without the phrase that the passage ``source`` answers, as written.

    The question is parsed with spaCy (``nlp``). *Anchors*: its tokens tagged ``NOUN`` or
    ``PROPN`` whose lower-cased text is a word of ``source``. *Phrase*: the subtree of the
    lowest token whose subtree holds every anchor, raised to its nearest ancestor-or-self
    tagged ``NOUN``, ``PROPN`` or ``PRON`` and then along ``poss``, ``compound``, ``nmod``
    and ``appos`` links to their heads. The rest is the question's other tokens with their
    spacing (for "What government position was held by the woman who portrayed Corliss
    Archer in the film Kiss and Tell?" and a source naming Corliss Archer and the film:
    "What government position was held by ?").

    ``None`` when there is no anchor, the anchors are in different sentences, the phrase is
    a sentence's root (the source answers all of it) or no word is left.
    """
    anchors_text = set(words(source.lower()))
    doc = load_spacy(nlp)(question)
    anchors = [t for t in doc if t.pos_ in ANCHOR_POS and t.lower_ in anchors_text]
    if not anchors:
        return None
    paths = [[t, *t.ancestors] for t in anchors]
    common = set.intersection(*({x.i for x in path} for path in paths))
    head = next((x for x in paths[0] if x.i in common and x.pos_ in PHRASE_HEAD_POS), None)
    while head is not None and head.dep_ in PHRASE_INNER_DEPS and head.head.i != head.i:
        head = head.head
    if head is None or head.dep_ == "ROOT":
        return None
    phrase = {t.i for t in head.subtree}
    rest = [t for t in doc if t.i not in phrase]
    if not any(t.is_alpha for t in rest):
        return None
    return "".join(t.text_with_ws for t in rest).strip()
