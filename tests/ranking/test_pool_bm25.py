"""Pool BM25 equals bm25s's Lucene BM25 (the implementation it replaced), on real and random
pools."""

import json
import logging
import random
from pathlib import Path

import numpy as np
import pytest

from cage_core.ranking.pool_bm25 import BM25_B, BM25_K1, STOP_WORDS, pool_bm25, tokens

bm25s = pytest.importorskip("bm25s")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "data" / "wiki_passages.jsonl"
TEXTS = [json.loads(line)["text"] for line in EXAMPLES.read_text(encoding="utf-8").splitlines()]


def reference_bm25(query, texts, k1=BM25_K1, b=BM25_B):
    """The former implementation: a bm25s index of the pool, scored for the query's terms."""
    logging.getLogger("bm25s").setLevel(logging.WARNING)
    if not texts:
        return np.zeros(0)
    corpus = bm25s.tokenize(list(texts), stopwords="en", show_progress=False, return_ids=False)
    vocab = {t for doc in corpus for t in doc}
    terms = [
        t
        for t in bm25s.tokenize([query], stopwords="en", show_progress=False, return_ids=False)[0]
        if t in vocab
    ]
    if not terms:
        return np.zeros(len(texts))
    model = bm25s.BM25(k1=k1, b=b, method="lucene")
    model.index(corpus, show_progress=False)
    return np.asarray(model.get_scores(terms), dtype=np.float64)


QUERIES = [
    "Who starred in Kiss and Tell?",
    "the the of",
    "",
    "Corliss Archer Corliss radio 1945",
    "Émile Zola's café",
    "Shirley Temple ambassador to Ghana and Czechoslovakia",
]


@pytest.mark.parametrize("query", QUERIES)
def test_equals_bm25s_lucene_on_the_example_documents(query):
    assert np.allclose(pool_bm25(query, TEXTS), reference_bm25(query, TEXTS), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("seed", range(25))
def test_equals_bm25s_lucene_on_random_pools(seed):
    rng = random.Random(seed)
    words = ["alpha", "beta", "gamma", "delta", "the", "of", "x", "Ωmega", "café", "3000", "a1"]
    texts = [
        " ".join(rng.choice(words) for _ in range(rng.randint(0, 12)))
        for _ in range(rng.randint(1, 30))
    ]
    query = " ".join(rng.choice(words) for _ in range(rng.randint(0, 5)))
    assert np.allclose(pool_bm25(query, texts), reference_bm25(query, texts), rtol=1e-6, atol=1e-6)


def test_tokens_are_lowercased_words_without_stop_words():
    assert tokens("The Nobel Prize, in 1903: a ß-test of X.") == ["nobel", "prize", "1903", "test"]


def test_no_shared_term_and_empty_pools_score_zero():
    assert pool_bm25("zebra", ["Warsaw is a city."]).tolist() == [0.0]
    assert pool_bm25("Warsaw", []).shape == (0,)


@pytest.mark.parametrize(
    "text",
    [
        *TEXTS[:20],
        "Ω ωmega café_au-lait x1 _ __ a\u00a0b\tC\u2003dé\u0301j\u00e0 İstanbul ǅemal 3.14",
    ],
)
def test_tokens_are_the_two_character_word_matches_of_the_text(text):
    import re

    expected = [t for t in re.findall(r"(?u)\b\w\w+\b", text.lower()) if t not in STOP_WORDS]
    assert tokens(text) == expected
    assert tokens(text) == expected  # the second call reads the word cache
