"""BM25 of a query against one pool of passages, with IDF computed over that pool.

``score(d) = Σ_t IDF(t)·tf(t,d)·(k1+1) / (tf(t,d) + k1·(1 − b + b·|d|/avgdl))`` with
``IDF(t) = ln(1 + (N − n_t + 0.5)/(n_t + 0.5))`` (Lucene's form, via ``bm25s``). Tokens:
lower-cased words of two or more characters, English stop words removed. Query terms that
occur in no passage are ignored; a pool sharing no term with the query scores all zeros.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np

BM25_K1 = 1.5
BM25_B = 0.75


def pool_bm25(query: str, texts: Sequence[str], k1: float = BM25_K1, b: float = BM25_B) -> np.ndarray:
    """``[k]`` BM25 scores of ``texts`` for ``query`` (IDF over ``texts`` only)."""
    import bm25s

    # bm25s sets its logger to DEBUG on import and logs every index build; keep it quiet.
    logging.getLogger("bm25s").setLevel(logging.WARNING)
    k = len(texts)
    if k == 0:
        return np.zeros(0)
    corpus = bm25s.tokenize(list(texts), stopwords="en", show_progress=False, return_ids=False)
    vocab = {t for doc in corpus for t in doc}
    terms = bm25s.tokenize([query], stopwords="en", show_progress=False, return_ids=False)[0]
    terms = [t for t in terms if t in vocab]
    if not terms:
        return np.zeros(k)
    model = bm25s.BM25(k1=k1, b=b, method="lucene")
    model.index(corpus, show_progress=False)
    return np.asarray(model.get_scores(terms), dtype=np.float64)
