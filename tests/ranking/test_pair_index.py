"""Indexed link computation equals the pairwise definitions it replaced, on random pools.

The reference functions below are the quadratic implementations of bridge links and TEGR's
edge typing as they were before the indexes (kept verbatim as the specification); the
indexed code must give the same matrices and edges — bit for bit where the sums allow it,
and never more than 1e-9 apart.
"""

from __future__ import annotations

import itertools
import math
import random
import re
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cage_core.graphs.passage_graph import PassageGraph
from cage_core.methods import Pool, get_method
from cage_core.methods.grapher import (
    GraphERConfig,
    GraphERMethod,
    personalized_pagerank,
    seed_distribution,
)
from cage_core.methods.tegr import (
    _EXAMPLE,
    _SEQUENCE,
    _YEAR,
    Chunk,
    RuleEdgeClassifier,
    defines,
    typed_edges,
)
from cage_core.names.forms import MIN_NAME_CHARS
from cage_core.passage import Passage
from cage_core.ranking.contradiction import conflicts, keyword_overlap
from cage_core.ranking.links import (
    bare_title,
    entity_names,
    link_matrix,
    shared_entity_links,
    title_links,
)
from cage_core.ranking.pair_index import (
    occurs_as_whole_words,
    overlap,
    shared_key_pairs,
    similar_set_pairs,
    substring_mentions,
    whole_word_mentions,
    words,
)

TOLERANCE = 1e-9
POOLS = 150
"""Random pools per comparison (seeded: the same pools every run)."""


# -- the reference (pairwise) implementations ------------------------------------------------


def reference_title_links(titles, texts):
    k = len(titles)
    links = np.zeros((k, k))
    lowered = [t.lower() for t in texts]
    for j, title in enumerate(titles):
        bare = bare_title(title)
        if len(bare) < MIN_NAME_CHARS:
            continue
        pattern = re.compile(r"(?<!\w)" + re.escape(bare) + r"(?!\w)")
        for i in range(k):
            if i != j and pattern.search(lowered[i]):
                links[i, j] = links[j, i] = 1.0
    return links


def reference_shared_entity_links(graphs, query):
    k = len(graphs)
    names = [entity_names(g) for g in graphs]
    df = Counter(n for ns in names for n in ns)
    q = query.lower()
    weight = {n: math.log(1.0 + k / c) for n, c in df.items() if n not in q}
    links = np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            shared = names[i] & names[j]
            if shared:
                links[i, j] = links[j, i] = math.fsum(weight.get(n, 0.0) for n in sorted(shared))
    return links


def reference_link_matrix(query, titles, texts, graphs, *, entity_weight, use_titles=True):
    links = (
        reference_title_links(titles, texts) if use_titles else np.zeros((len(texts), len(texts)))
    )
    if entity_weight:
        links = links + entity_weight * reference_shared_entity_links(graphs, query)
    np.fill_diagonal(links, 0.0)
    return links


class ReferenceRuleEdgeClassifier:
    """TEGR's rule classifier as it read before chunks cached their derived fields."""

    def __init__(self, contradiction_overlap=0.5):
        self.contradiction_overlap = contradiction_overlap

    def classify(self, a, b, pool):
        shared = a.entities & b.entities
        if conflicts([a.text, b.text], [a.graph, b.graph], self.contradiction_overlap):
            return "contradicts"
        lowered_b = b.text.lower()
        for term in sorted({bare_title(a.title)} | shared):
            if len(term) >= 3 and re.search(
                re.escape(term) + r"\s+(is|are|was|were)\s+(a|an|the)\b", lowered_b
            ):
                return "defines"
        if shared and _EXAMPLE.search(b.text):
            return "example-of"
        years_a, years_b = _YEAR.findall(a.text), _YEAR.findall(b.text)
        if shared and years_a and years_b and max(years_b) > max(years_a):
            return "supersedes"
        if a.entities and a.entities < b.entities:
            return "elaborates"
        if shared and _SEQUENCE.search(b.text):
            return "sequence"
        titles = (bare_title(a.title), bare_title(b.title))
        if (
            shared
            or (len(titles[0]) >= 3 and titles[0] in lowered_b)
            or (len(titles[1]) >= 3 and titles[1] in a.text.lower())
        ):
            return "synthesizes"
        return None


def reference_typed_edges(chunks, classifier):
    edges = {}
    for i in range(len(chunks)):
        for j in range(i + 1, len(chunks)):
            t = classifier.classify(chunks[i], chunks[j], chunks) or classifier.classify(
                chunks[j], chunks[i], chunks
            )
            if t is not None:
                edges[(i, j)] = t
    return edges


# -- random pools that exercise the edge cases -----------------------------------------------

TITLES = [
    "Kansas",
    "University of Kansas",
    "Kansas City",
    "Kansas City (film)",
    "Arkansas",
    "C++",
    "What? (song)",
    "a.b",
    "Café Müller",
    "İstanbul",
    "",
    "ab",
    "Ab (1990 film)",
    "'Allo 'Allo!",
    "-x-",
    "The Who",
    "Who",
    "Shirley Temple",
    "Temple",
    "Kiss and Tell (1945 film)",
    "S/S",
    "under_score",
    "Jr.",
    "Sammy Davis Jr.",
]
WORDS = [
    "the",
    "who",
    "is",
    "a",
    "was",
    "an",
    "kansas",
    "city",
    "university",
    "of",
    "arkansas",
    "c++",
    "what?",
    "a.b",
    "café",
    "müller",
    "İstanbul",
    "istanbul",
    "ab",
    "'allo",
    "allo!",
    "-x-",
    "temple",
    "shirley",
    "templeton",
    "kiss",
    "and",
    "tell",
    "s/s",
    "under_score",
    "jr.",
    "sammy",
    "davis",
    "such as",
    "then",
    "1990",
    "2004",
    "1887",
    "for example",
    "later",
    "is a",
    "was the",
    "were an",
]
SEPARATORS = [" ", " ", " ", ", ", "-", "_", "'", "(", ") ", ".", "", "\n", "\u00a0"]
NAMES = [
    "Kansas",
    "kansas",
    "Shirley Temple",
    "The Who",
    "Ann Reeve",
    "Toronto",
    "1990",
    "two",
    "Café Müller",
    "U.S.",
    "the united states",
    "who",
]
TYPES = ["PERSON", "GPE", "ORG", "WORK_OF_ART", "DATE", "CARDINAL", "", "NORP"]


def random_text(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(0, 14)):
        word = rng.choice(WORDS + TITLES)
        parts.append(word.upper() if rng.random() < 0.1 else word)
        parts.append(rng.choice(SEPARATORS))
    return "".join(parts)


def random_graph(rng: random.Random) -> PassageGraph:
    entities = [(rng.choice(NAMES), rng.choice(TYPES)) for _ in range(rng.randint(0, 5))]
    n = len(entities)
    return PassageGraph(
        labels=tuple(label for label, _ in entities),
        pos=("PROPN",) * n,
        entity_types=tuple(t for _, t in entities),
        vectors=np.zeros((n, 4), np.float32),
        edge_src=np.zeros(0, np.int64),
        edge_dst=np.zeros(0, np.int64),
        edge_type=np.zeros(0, np.int64),
        edge_verbs=(),
    )


def random_pool(seed: int):
    rng = random.Random(seed)
    k = rng.randint(0, 14)
    titles = [rng.choice(TITLES) for _ in range(k)]
    texts = [random_text(rng) for _ in range(k)]
    for i in range(1, k):  # near-duplicates: a copy of an earlier passage with one year changed
        if rng.random() < 0.2:
            texts[i] = texts[rng.randrange(i)] + rng.choice([" 1990.", " 2004."])
    graphs = [random_graph(rng) for _ in range(k)]
    query = random_text(rng) + " " + rng.choice(NAMES).lower()
    return query, titles, texts, graphs


# -- bridge links --------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(POOLS))
def test_title_links_equal_the_pairwise_regex_search(seed):
    _, titles, texts, _ = random_pool(seed)
    assert np.array_equal(title_links(titles, texts), reference_title_links(titles, texts))


@pytest.mark.parametrize("seed", range(POOLS))
def test_shared_entity_links_equal_the_pairwise_fsum(seed):
    query, _, _, graphs = random_pool(seed)
    found, expected = (
        shared_entity_links(graphs, query),
        reference_shared_entity_links(graphs, query),
    )
    assert np.abs(found - expected).max(initial=0.0) <= TOLERANCE
    assert np.array_equal(found, expected)  # correctly rounded sums do not depend on order


@pytest.mark.parametrize("seed", range(POOLS))
def test_link_matrix_equals_the_reference_under_every_setting(seed):
    query, titles, texts, graphs = random_pool(seed)
    for entity_weight, use_titles in [(0.5, True), (0.0, True), (0.5, False), (1.7, True)]:
        found = link_matrix(
            query, titles, texts, graphs, entity_weight=entity_weight, use_titles=use_titles
        )
        expected = reference_link_matrix(
            query, titles, texts, graphs, entity_weight=entity_weight, use_titles=use_titles
        )
        assert np.array_equal(found, expected)


def test_an_entity_in_every_passage_links_every_pair():
    graphs = [random_graph(random.Random(0)) for _ in range(3)]
    everywhere = PassageGraph(
        labels=("Ann Reeve", "Toronto"),
        pos=("PROPN",) * 2,
        entity_types=("PERSON", "GPE"),
        vectors=np.zeros((2, 4), np.float32),
        edge_src=np.zeros(0, np.int64),
        edge_dst=np.zeros(0, np.int64),
        edge_type=np.zeros(0, np.int64),
        edge_verbs=(),
    )
    pool = graphs + [everywhere] * 40
    assert np.array_equal(shared_entity_links(pool, "q"), reference_shared_entity_links(pool, "q"))


def test_grapher_scores_equal_pagerank_over_the_reference_links():
    config = GraphERConfig()
    for seed in range(40):
        query, titles, texts, graphs = random_pool(seed)
        if not titles:
            continue
        sims = np.random.default_rng(seed).random(len(titles))
        pool = Pool(query, [Passage(x, title=t) for t, x in zip(titles, texts)], sims, graphs)
        links = reference_link_matrix(
            query, titles, texts, graphs, entity_weight=config.entity_weight
        )
        expected = personalized_pagerank(
            links, seed_distribution(sims, config.temperature), config.damping
        )
        assert np.array_equal(get_method("grapher").score(pool), expected)
        assert np.array_equal(GraphERMethod(config).score(pool), expected)


# -- TEGR ----------------------------------------------------------------------------------


@pytest.mark.parametrize("overlap", [0.0, 0.3, 0.5, 0.7, 1.0])
def test_tegr_types_the_same_edges_in_the_same_order(overlap):
    for seed in range(POOLS // 3):
        _, titles, texts, graphs = random_pool(seed)
        chunks = [Chunk(x, t, g) for t, x, g in zip(titles, texts, graphs)]
        found = typed_edges(chunks, RuleEdgeClassifier(overlap))
        expected = reference_typed_edges(chunks, ReferenceRuleEdgeClassifier(overlap))
        assert list(found.items()) == list(expected.items())


def test_near_duplicates_without_a_shared_entity_are_still_candidates():
    texts = [
        "The bakery opened in 1990 in the old town.",
        "The bakery opened in 1991 in the old town.",
    ]
    graphs = [
        PassageGraph(
            labels=(y,),
            pos=("NUM",),
            entity_types=("DATE",),
            vectors=np.zeros((1, 4), np.float32),
            edge_src=np.zeros(0, np.int64),
            edge_dst=np.zeros(0, np.int64),
            edge_type=np.zeros(0, np.int64),
            edge_verbs=(),
        )
        for y in ("1990", "1991")
    ]
    chunks = [Chunk(x, "", g) for x, g in zip(texts, graphs)]
    assert typed_edges(chunks, RuleEdgeClassifier(0.5)) == {(0, 1): "contradicts"}


def test_a_classifier_without_candidates_is_asked_about_every_pair():
    asked = []

    class Recording:
        def classify(self, a, b, pool):
            asked.append((a.text, b.text))

    chunks = [Chunk(str(i), "", random_graph(random.Random(i))) for i in range(4)]
    typed_edges(chunks, Recording())
    assert len(asked) == 2 * math.comb(4, 2)


# -- the index functions against their definitions -----------------------------------------

TRICKY = st.lists(
    st.sampled_from(list("ab c.+?_-'İé\u00a0(") + ["i\u0307", "ab", "a b", "b."]), max_size=8
).map("".join)
"""Short strings of word and non-word characters, regex metacharacters and letters whose
lower case is longer than themselves."""


@settings(max_examples=300, deadline=None)
@given(needles=st.lists(TRICKY, max_size=6), texts=st.lists(TRICKY, max_size=6))
def test_whole_word_mentions_match_the_lookaround_regex(needles, texts):
    expected = [
        (i, n)
        for i, x in enumerate(texts)
        for n, t in enumerate(needles)
        if re.search(r"(?<!\w)" + re.escape(t) + r"(?!\w)", x)
    ]
    assert whole_word_mentions(needles, texts) == expected
    assert all(occurs_as_whole_words(needles[n], texts[i]) for i, n in expected)


@settings(max_examples=300, deadline=None)
@given(needles=st.lists(TRICKY, max_size=6), texts=st.lists(TRICKY, max_size=6))
def test_substring_mentions_match_the_in_operator(needles, texts):
    expected = [(i, n) for i, x in enumerate(texts) for n, t in enumerate(needles) if t in x]
    assert substring_mentions(needles, texts) == expected


def test_overlapping_and_nested_titles_are_all_found():
    needles = ["kansas", "university of kansas", "kansas city", "arkansas", "sas"]
    text = "the university of kansas city campus, arkansas"
    assert substring_mentions(needles, [text]) == [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4)]
    assert whole_word_mentions(needles, [text]) == [(0, 0), (0, 1), (0, 2), (0, 3)]


@settings(max_examples=200, deadline=None)
@given(
    sets=st.lists(st.frozensets(st.sampled_from("abcdefgh"), max_size=6), max_size=8),
    threshold=st.floats(0.0, 1.0),
)
def test_similar_set_pairs_are_the_pairs_over_the_threshold(sets, threshold):
    def jaccard(a, b):
        return len(a & b) / len(a | b) if a | b else 0.0

    expected = {
        (a, b)
        for a, b in itertools.combinations(range(len(sets)), 2)
        if jaccard(sets[a], sets[b]) >= threshold
    }
    assert similar_set_pairs(sets, threshold) == expected


@settings(max_examples=200, deadline=None)
@given(
    postings=st.dictionaries(
        st.text(max_size=3), st.sets(st.integers(0, 9)).map(sorted), max_size=6
    )
)
def test_shared_key_pairs_are_all_pairs_within_each_posting(postings):
    keys, key_ids, rows, cols = shared_key_pairs(postings)
    found = sorted(
        (keys[n], a, b) for n, a, b in zip(key_ids.tolist(), rows.tolist(), cols.tolist())
    )
    expected = sorted(
        (key, a, b) for key, p in postings.items() for a, b in itertools.combinations(p, 2)
    )
    assert found == expected


@settings(max_examples=300, deadline=None)
@given(
    term=TRICKY,
    text=st.lists(
        st.sampled_from(["ab", " is ", " was", " a", "  the ", "an", "\n", "b."]), max_size=8
    ).map("".join),
)
def test_defines_matches_the_definition_regex(term, text):
    expected = re.search(re.escape(term) + r"\s+(is|are|was|were)\s+(a|an|the)\b", text) is not None
    assert defines(term, text) == expected


@settings(max_examples=300, deadline=None)
@given(a=st.frozensets(st.sampled_from("abcdef")), b=st.frozensets(st.sampled_from("abcdef")))
def test_overlap_is_keyword_overlap(a, b):
    assert overlap(a, b) == keyword_overlap(a, b)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.characters(max_codepoint=0x17F), max_size=30) | TRICKY)
def test_words_are_the_runs_of_word_characters(text):
    assert words(text) == re.findall(r"\w+", text)
