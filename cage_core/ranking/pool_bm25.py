"""BM25 of a query against one pool of passages, with IDF computed over that pool.

Lucene's BM25 as ``bm25s`` computes it (``method="lucene"``), in float64, visiting only the
query's terms: the work is one tokenisation of each passage, not an index of the pool's
whole vocabulary. Tokens: lower-cased words of two or more characters (``\\b\\w\\w+\\b``), the
English stop words of ``bm25s`` removed. Query terms that occur in no passage add nothing; a
pool sharing no term with the query scores all zeros. A repeated query term counts each time.

:func:`query_word_coverage` reads the same tokens for the pool-level evidence of the
frameworks' score (:mod:`cage_core.relevance`): how many of the question's words one passage
holds; :func:`named_word_coverage` the same of a routed pool, where the passages of the documents
the question names also hold the words that name them.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np

from cage_core.lang.en import STOP_WORDS
from cage_core.ranking.pair_index import text_words

__all__ = [
    "BM25_B",
    "BM25_K1",
    "STOP_WORDS",
    "named_word_coverage",
    "pool_bm25",
    "query_word_coverage",
    "tokens",
]

BM25_K1 = 1.5
BM25_B = 0.75


def tokens(text: str) -> list[str]:
    """The BM25 tokens of ``text`` (see the module docstring): its lower-cased words
    (:func:`~cage_core.ranking.pair_index.text_words`, kept across queries) of two or more
    characters — exactly the matches of ``\\b\\w\\w+\\b`` — less the stop words."""
    return [t for t in text_words(text.lower()) if len(t) > 1 and t not in STOP_WORDS]


def pool_bm25(
    query: str, texts: Sequence[str], k1: float = BM25_K1, b: float = BM25_B
) -> np.ndarray:
    """``[k]`` BM25 scores of ``texts`` for ``query``:
    ``Σ_{t ∈ q} idf(t) · tf / (tf + k1·(1 − b + b·|d|/avgdl))`` with
    ``idf(t) = ln(1 + (N − df_t + 0.5)/(df_t + 0.5))`` over the pool's ``N`` passages."""
    k = len(texts)
    terms = tokens(query)
    if k == 0 or not terms:
        return np.zeros(k)
    wanted = set(terms)
    docs = [tokens(t) for t in texts]
    lengths = np.array([len(d) for d in docs], dtype=np.float64)
    avgdl = lengths.mean()
    if avgdl == 0:
        return np.zeros(k)
    counts = [Counter(t for t in d if t in wanted) for d in docs]
    df = Counter(t for c in counts for t in c)
    norm = k1 * ((1 - b) + b * lengths / avgdl)
    scores = np.zeros(k)
    for term in terms:
        if not df[term]:
            continue
        idf = math.log(1 + (k - df[term] + 0.5) / (df[term] + 0.5))
        tf = np.array([c[term] for c in counts], dtype=np.float64)
        scores += idf * tf / (norm + tf)
    return scores


def query_word_coverage(query: str, texts: Sequence[str]) -> float:
    """The largest share, over ``texts``, of the distinct :func:`tokens` of ``query`` that
    one text contains, in [0, 1]; 0.0 when the query has no tokens or there are no texts.

    "Which river flows through Warsaw?" has the tokens ``which``, ``river``, ``flows``,
    ``through``, ``warsaw`` ("which" is no stop word of ``bm25s``): "The Vistula river flows
    through Warsaw." holds four of them, 0.8.
    """
    if isinstance(texts, str):
        raise TypeError("texts must be a sequence of strings, not a single string")
    return named_word_coverage(query, query, texts, [False] * len(texts))  # no naming words


def named_word_coverage(
    query: str, question: str, texts: Sequence[str], named: Sequence[bool]
) -> float:
    """:func:`query_word_coverage` of a routed pool: ``question`` is ``query`` less the words
    that name documents (:class:`~cage_core.names.routes.DocumentRoute`), ``named[i]`` whether
    passage ``i`` is of a named document, and such a passage also holds the naming words (the
    tokens of ``query`` that ``question`` lacks): a chunk of the document the question names
    holds that name even where it does not repeat it. Raises ``ValueError`` when ``named``
    and ``texts`` differ in length."""
    if isinstance(texts, str):
        raise TypeError("texts must be a sequence of strings, not a single string")
    if len(named) != len(texts):
        raise ValueError(f"named has {len(named)} entries for {len(texts)} texts")
    wanted = set(tokens(query))
    if not wanted:
        return 0.0
    naming = wanted.difference(tokens(question))
    held = [wanted.intersection(tokens(t)) | (naming if n else set()) for t, n in zip(texts, named)]
    return max(map(len, held), default=0) / len(wanted)
