"""An honest extractive answerer: the sentences of the top passages that best answer the question.

It generates nothing. A passage's text is first reduced to its prose (:func:`prose_paragraphs`:
Markdown, reStructuredText and HTML markup removed — images, badges, links (their text
kept), directives, substitutions, tags, code blocks, tables and headings — so a quote is
never markup). Sentences are split, per paragraph, on end punctuation (fragments of fewer than
``MIN_SENTENCE_WORDS`` words are never quoted), embedded with the same embedder as relevance
(all-MiniLM-L6-v2 by default) and compared by cosine. Examples use it as their offline
default "LLM".

It quotes only sentences it can tie to the question (:mod:`cage_core.question_terms`: they
share the question's topic or its names; each is read under its passage's title or heading,
when the caller gives them: ``titles``). The question and the sentences are parsed with spaCy.

Without a chain — the default rule — it quotes the ``max_sentences`` tied sentences closest to
the question, best first, each with the number of its passage, among them always the closest
of the best-ranked passage that has a tied sentence (in place of the last: the cosine of one
short sentence does not outrank the reranker's order; a changelog line "always reads
hardware clock" is closer to "Which program sets the hardware clock?" than the top passage's
"Hwclock is a program that … sets and queries the Hardware Clock"); none tied: nothing is
quoted and the answer says that no passage answers the question.

With a chain (``chain[b] = Via(name, a)``: passage b is linked to the earlier passage a
through ``name``, as :attr:`RankedPassage.via <cage_core.passage.RankedPassage.via>` says) it
follows the chain instead, when all of these exist:

1. *links*: the title and entity vias (a document link names nothing in the text to bridge
   through) whose name the question does not name (whole words, case-insensitive;
   a name the question gives is no bridge to what it asks) and that the source passage does
   not mention only as a descriptor (a nationality, a number, a date:
   :data:`DESCRIPTOR_LABELS`; "American" links every American film to every other);
2. *source*: the passage a that the best-ranked of those links start from (smallest a), with
   a tied sentence;
3. *rest of the question*: the question without the phrase the source answers
   (:func:`rest_of_question`);
4. *bridge sentence*: among the sentences of the passages linked to the source by a link of
   step 1, the one closest to the rest of the question (ties: the first), among those that
   name something of the type the question word asks for
   (:data:`~cage_core.question_terms.ANSWER_TYPES`: a place for "where", a date for "when",
   ...) when there are such sentences. It is tied by the link.

The answer is then the source's tied sentence that names the bridge sentence's link name
(whole words, case-insensitive; without one, any of its tied sentences), the one closest to
the question, followed by the bridge sentence, followed by the default rule's best other
sentences up to ``max_sentences`` (with ``max_sentences=1``: the bridge sentence alone). If any
of the four is missing, the default rule answers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from cage_core.models import Embedder, SpacyModel, default_embedder, load_spacy

if TYPE_CHECKING:
    from spacy.tokens import Doc
from cage_core.passage import Via
from cage_core.prose import prose_paragraphs
from cage_core.question_terms import QuestionTerms, question_terms
from cage_core.ranking.pair_index import occurs_as_whole_words, words
from cage_core.scoring import cosine_matrix

__all__ = [
    "ANCHOR_POS",
    "LABEL",
    "MIN_SENTENCE_WORDS",
    "PHRASE_HEAD_POS",
    "PHRASE_INNER_DEPS",
    "ExtractiveAnswer",
    "extractive_answer",
    "prose_paragraphs",
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
DESCRIPTOR_LABELS = frozenset(
    {"NORP", "LANGUAGE", "DATE", "TIME", "PERCENT", "MONEY", "QUANTITY", "ORDINAL", "CARDINAL"}
)
"""Entity labels of names that describe rather than identify (no bridge to a second passage)."""


@dataclass(frozen=True)
class ExtractiveAnswer:
    sentences: tuple[str, ...]
    sources: tuple[int, ...]
    """0-based index, in the given passages, of each sentence's passage."""

    def render(self) -> str:
        quoted = " ".join(f"{s} [{i + 1}]" for s, i in zip(self.sentences, self.sources))
        return f"{LABEL} {quoted}" if quoted else f"{LABEL} (no passage answers the question)"


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def _quotable(passages: Sequence[str], positions: Sequence[int]) -> list[tuple[str, int]]:
    """``(sentence, passage index)`` of every quotable sentence of the given passages."""
    return [
        (s, i)
        for i in positions
        for paragraph in prose_paragraphs(passages[i])
        for s in split_sentences(paragraph)
        if len(s.split()) >= MIN_SENTENCE_WORDS
    ]


@dataclass(frozen=True)
class _Sentence:
    text: str
    passage: int
    doc: Doc
    heading: frozenset[str] = frozenset()
    """The words and lemmas of its passage's title (lower case)."""


def extractive_answer(
    question: str,
    passages: Sequence[str],
    *,
    max_sentences: int = 2,
    embedder: Embedder | None = None,
    chain: Sequence[Via | None] | None = None,
    nlp: SpacyModel | None = None,
    titles: Sequence[str | None] | None = None,
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
        nlp: the spaCy pipeline that parses the question and the sentences (default: the
            installed one, :func:`~cage_core.models.load_spacy`).
        titles: one title or section heading (or ``None``) per passage, e.g. a chunk's
            ``metadata["heading"]``: a sentence is read under its passage's title, so a word
            of the title ties it ("How to deal with libtool" above "Because wrapper scripts
            are used, …"); titles are never quoted. ``None``: no titles.

    Raises:
        ValueError: ``chain`` or ``titles`` not one entry per passage, or a via not pointing
            at an earlier passage; ``max_sentences`` < 1.
    """
    if max_sentences < 1:
        raise ValueError(f"max_sentences must be >= 1, got {max_sentences}")
    if chain is not None:
        _check_chain(chain, len(passages))
    if titles is not None and len(titles) != len(passages):
        raise ValueError(f"titles has {len(titles)} entries for {len(passages)} passages")
    quotable = _quotable(passages, range(len(passages)))
    if not quotable:
        return ExtractiveAnswer((), ())
    parse = load_spacy(nlp)
    parsed = parse.pipe([t for t, _ in quotable])
    headings = [frozenset[str]()] * len(passages)
    if titles is not None:
        read = parse.pipe([title or "" for title in titles])
        headings = [frozenset({t.lemma_.lower() for t in d} | {t.lower_ for t in d}) for d in read]
    sentences = [_Sentence(t, i, d, headings[i]) for (t, i), d in zip(quotable, parsed)]
    terms = question_terms(parse(question))
    tied = [s for s in sentences if terms.ties(s.doc, s.heading)]
    embed = embedder or default_embedder()
    followed = (
        _follow_chain(question, passages, chain, sentences, terms, embed, nlp)
        if chain is not None
        else None
    )
    chosen = (
        []
        if followed is None
        else followed[-max_sentences:]
        if max_sentences < len(followed)
        else followed
    )
    if len(chosen) < max_sentences:
        rest = [s for s in tied if s not in chosen]
        if rest:
            vectors = np.asarray(embed([question] + [s.text for s in rest]))
            sims = cosine_matrix(vectors[:1], vectors[1:])[0]
            order = [int(b) for b in np.argsort(-sims, kind="stable")]
            picked = order[: max_sentences - len(chosen)]
            if not chosen:  # the best-ranked passage with a tied sentence is always heard
                lead = min(rest[b].passage for b in order)
                heard = next(b for b in order if rest[b].passage == lead)
                if heard not in picked:
                    picked = sorted([*picked[:-1], heard], key=order.index)
            chosen += [rest[b] for b in picked]
    return ExtractiveAnswer(tuple(s.text for s in chosen), tuple(s.passage for s in chosen))


def _check_chain(chain: Sequence[Via | None], k: int) -> None:
    if len(chain) != k:
        raise ValueError(f"chain must have one entry per passage: {len(chain)} for {k}")
    for b, via in enumerate(chain):
        if via is not None and not 0 <= via.rank < b:
            raise ValueError(f"chain[{b}] = {via!r} does not point at an earlier passage")


def _only_descriptor(name: str, sentences: Sequence[_Sentence]) -> bool:
    """Whether every entity of ``sentences`` spelled ``name`` has a descriptor label (and there
    is one)."""
    lowered = name.lower()
    labels = {e.label_ for s in sentences for e in s.doc.ents if e.text.lower() == lowered}
    return bool(labels) and labels <= DESCRIPTOR_LABELS


def _follow_chain(
    question: str,
    passages: Sequence[str],
    chain: Sequence[Via | None],
    sentences: Sequence[_Sentence],
    terms: QuestionTerms,
    embed: Embedder,
    nlp: SpacyModel | None,
) -> list[_Sentence] | None:
    """``[source sentence, bridge sentence]`` (or the bridge sentence alone) of the chain rule
    (module docstring), or ``None`` when it does not apply."""
    lowered = question.lower()
    of = {i: [s for s in sentences if s.passage == i] for i in range(len(passages))}
    links = [
        (via.rank, b, via.name)
        for b, via in enumerate(chain)
        if via is not None
        and via.kind != "document"
        and not occurs_as_whole_words(via.name.lower(), lowered)
        and not _only_descriptor(via.name, of[via.rank])
    ]
    if not links:
        return None
    source = min(a for a, _, _ in links)
    name_of = {b: name for a, b, name in links if a == source}
    bridge_sentences = [s for b in sorted(name_of) for s in of[b]]
    source_sentences = [s for s in of[source] if terms.ties(s.doc, s.heading)]
    if not bridge_sentences or not source_sentences:
        return None
    rest = rest_of_question(question, passages[source], nlp)
    if rest is None:
        return None
    typed = [s for s in bridge_sentences if any(e.label_ in terms.answer_types for e in s.doc.ents)]
    bridge_sentences = typed or bridge_sentences
    texts = [
        rest,
        question,
        *(s.text for s in bridge_sentences),
        *(s.text for s in source_sentences),
    ]
    vectors = np.asarray(embed(texts))
    n = len(bridge_sentences)
    to_rest = cosine_matrix(vectors[:1], vectors[2 : 2 + n])[0]
    bridge = bridge_sentences[int(np.argmax(to_rest))]  # argmax: the first of equal maxima
    to_question = cosine_matrix(vectors[1:2], vectors[2 + n :])[0]
    name = name_of[bridge.passage].lower()
    naming = [
        j for j, s in enumerate(source_sentences) if occurs_as_whole_words(name, s.text.lower())
    ]
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
