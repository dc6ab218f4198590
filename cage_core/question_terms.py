"""What ties a sentence to a question, for the extractive answerer
(:mod:`cage_core.extractive`).

The question is parsed with spaCy. Its *wh-phrase* (its question word and the noun phrase
that word determines: "what New York city", "How many instances", "Where") describes the
answer, not what the question is about, so its *topic* is its other content words (lemmas
of nouns, proper nouns, verbs, adjectives and numbers that are not stop words). A sentence is
*tied* when it, or the title it is read under, shares a topic lemma, and, when the topic
names something (a proper noun), when it shares one of those names. A name that cites a
document — a file name, an identifier (:func:`~cage_core.names.documents.references`: "What
does howto-debug.txt say about …", "In RFC 9110, …") — is what the question is about, not a
name its answer writes: it is topic, not one of those names. A question with no topic ties
every sentence. The question word also says which entity labels answer it
(:data:`ANSWER_TYPES`: a place for "where", a date for "when").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from cage_core.names.documents import references

if TYPE_CHECKING:
    from spacy.tokens import Doc

__all__ = [
    "ANSWER_TYPES",
    "CONTENT_POS",
    "WH_PHRASE_DEPS",
    "WH_TAGS",
    "QuestionTerms",
    "question_terms",
]

CONTENT_POS = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "NUM"})
"""Parts of speech of the words that tie a sentence to a question's topic."""
WH_TAGS = frozenset({"WDT", "WP", "WP$", "WRB"})
"""Penn tags of question words."""
WH_PHRASE_DEPS = frozenset({"det", "advmod", "amod", "nummod", "quantmod"})
"""Dependency links from a question word up to the noun it determines ("what" → "city")."""
_PLACE = frozenset({"GPE", "LOC", "FAC"})
_TIME = frozenset({"DATE", "TIME"})
_AMOUNT = frozenset({"CARDINAL", "QUANTITY", "MONEY", "PERCENT"})
ANSWER_TYPES: dict[str, frozenset[str]] = {
    "where": _PLACE,
    "when": _TIME,
    "who": frozenset({"PERSON", "ORG"}),
    "whom": frozenset({"PERSON"}),
    "person": frozenset({"PERSON"}),
    "many": _AMOUNT,
    "much": _AMOUNT,
    "long": _TIME | _AMOUNT,
    "old": _TIME | _AMOUNT,
    "city": _PLACE,
    "country": _PLACE,
    "town": _PLACE,
    "state": _PLACE,
    "place": _PLACE,
    "county": _PLACE,
    "capital": _PLACE,
    "year": _TIME,
    "date": _TIME,
}
"""The entity labels a question word asks for: keyed by the wh-word, the word after "how"
("how many"), or the noun after "what"/"which" ("what city")."""


@dataclass(frozen=True)
class QuestionTerms:
    """What ties a sentence to a question (module docstring)."""

    topic: frozenset[str]
    """Content lemmas (lower case) outside the wh-phrase."""
    names: frozenset[str]
    """The proper-noun lemmas among them."""
    answer_types: frozenset[str]
    """Entity labels the question word asks for (empty: any)."""

    def ties(self, sentence: Doc, heading: frozenset[str] = frozenset()) -> bool:
        """Whether the parsed ``sentence`` is tied to the question; ``heading``: the words
        (and lemmas, lower case) of its passage's title, which it is read under."""
        if not self.topic:
            return True
        lemmas = {t.lemma_.lower() for t in sentence} | {t.lower_ for t in sentence} | heading
        return bool(lemmas & (self.names or self.topic))


def question_terms(question: Doc) -> QuestionTerms:
    """The topic, names and answer types of a parsed question (module docstring)."""
    phrase: set[int] = set()
    answer: frozenset[str] = frozenset()
    wh = next((t for t in question if t.tag_ in WH_TAGS), None)
    if wh is not None:
        head = wh
        while (
            head.dep_ in WH_PHRASE_DEPS
            and head.head.i != head.i
            and head.head.pos_ in {"NOUN", "PROPN", "ADJ", "ADV", "NUM"}
        ):
            head = head.head
        phrase = {t.i for t in head.subtree} if head.pos_ in {"NOUN", "PROPN"} else {wh.i}
        after = question[wh.i + 1].lower_ if wh.i + 1 < len(question) else ""
        key = after if wh.lower_ == "how" else head.lemma_.lower() if head is not wh else wh.lower_
        answer = ANSWER_TYPES.get(key, frozenset())
    content = [
        t
        for t in question
        if t.i not in phrase
        and t.pos_ in CONTENT_POS
        and not t.is_stop
        and any(c.isalnum() for c in t.text)
    ]
    cited = [(r.start, r.end) for r in references(question.text)]  # "howto-debug.txt"
    return QuestionTerms(
        frozenset(t.lemma_.lower() for t in content),
        frozenset(
            t.lemma_.lower()
            for t in content
            if t.pos_ == "PROPN" and not any(a <= t.idx < b for a, b in cited)
        ),
        answer,
    )
