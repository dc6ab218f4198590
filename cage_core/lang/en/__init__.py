"""English language data: the word lists, the named string rules and the name shortening
that subjects (:mod:`cage_core.names.subjects`), the link index
(:mod:`cage_core.expansion.index`), pronoun resolution (:mod:`cage_core.graphs.pronouns`), the
graph builder (:mod:`cage_core.graphs.builder`) and pool BM25 (:mod:`cage_core.ranking.pool_bm25`)
read.

One list per concept. Where two consumers read *different* lists for what looks like one
concept, each list is named for what it is and the difference is stated (the rankings and
expansions of cage-rag 0.3 are kept bit for bit):

* leading titles a name also goes without: :data:`HONORIFICS` for both, plus
  :data:`CLERGY_TITLES` ("Rev") when a subject is shortened for ranking and
  :data:`SAINT_TITLES` ("St", "Saint") when a name is shortened for the link index
  (:data:`RANKING_ALIASES`, :data:`EXPANSION_ALIASES`).
* pronouns: :data:`SUBJECT_PRONOUNS` (a first-sentence subject never starts with one) are
  the subject and possessive forms of every person; :data:`PRONOUNS` (what pronoun
  resolution links to an entity) the third-person forms only.

String rules (:data:`STRING_RULES`) are named so a run can switch each one off and measure
it (``CageConfig(string_rules=...)``, ``cage eval --ablate-rule NAME``).

Its modules, one per idea (as spaCy's ``lang/en/``); every name is importable from here:

* :mod:`~cage_core.lang.en.pronouns` — the pronouns resolution links and subjects never open with;
* :mod:`~cage_core.lang.en.subjects` — the words that open and end a first-sentence subject;
* :mod:`~cage_core.lang.en.names` — the words a name also goes without, its short forms, and
  the words never a name on their own;
* :mod:`~cage_core.lang.en.string_rules` — the named string rules;
* :mod:`~cage_core.lang.en.stop_words` — the BM25 stop words;
* :mod:`~cage_core.lang.en.dates` — the month names;
* :mod:`~cage_core.lang.en.questions` — the words a clause that asks opens with.
"""

from cage_core.lang.en.dates import MONTHS
from cage_core.lang.en.names import (
    CLERGY_TITLES,
    DEFINITE_ARTICLE,
    EXPANSION_ALIASES,
    GENERIC_WORDS,
    HONORIFICS,
    LEADING_DETERMINERS,
    NAME_SUFFIXES,
    POST_NOMINAL,
    RANKING_ALIASES,
    SAINT_TITLES,
    AliasStyle,
    shortened_names,
)
from cage_core.lang.en.pronouns import (
    GROUP_PRONOUNS,
    PERSON_PRONOUNS,
    PRONOUNS,
    SUBJECT_PRONOUNS,
    THING_PRONOUNS,
)
from cage_core.lang.en.questions import (
    CLAUSE_JOINERS,
    INTERROGATIVE_DETERMINERS,
    PREPOSITIONS,
    QUESTION_WORDS,
    WH_WORDS,
)
from cage_core.lang.en.stop_words import STOP_WORDS
from cage_core.lang.en.string_rules import STRING_RULES, check_rules
from cage_core.lang.en.subjects import (
    COPULAS,
    NEVER_FIRST_WORDS,
    SUBJECT_END_VERBS,
    TITLE_FUNCTION_WORDS,
)

__all__ = [
    "CLAUSE_JOINERS",
    "INTERROGATIVE_DETERMINERS",
    "MONTHS",
    "GENERIC_WORDS",
    "CLERGY_TITLES",
    "COPULAS",
    "EXPANSION_ALIASES",
    "GROUP_PRONOUNS",
    "HONORIFICS",
    "DEFINITE_ARTICLE",
    "LEADING_DETERMINERS",
    "NAME_SUFFIXES",
    "NEVER_FIRST_WORDS",
    "PERSON_PRONOUNS",
    "POST_NOMINAL",
    "PRONOUNS",
    "PREPOSITIONS",
    "QUESTION_WORDS",
    "RANKING_ALIASES",
    "SAINT_TITLES",
    "STOP_WORDS",
    "STRING_RULES",
    "SUBJECT_END_VERBS",
    "SUBJECT_PRONOUNS",
    "THING_PRONOUNS",
    "TITLE_FUNCTION_WORDS",
    "WH_WORDS",
    "AliasStyle",
    "check_rules",
    "shortened_names",
]
