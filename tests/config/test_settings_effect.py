"""Which kinds of pool each setting acts on, measured: every setting of ``CageConfig`` at its
default and at one other value, on small real pools of each kind (real spaCy graphs, MiniLM
similarities, the path ``CageReranker`` ranks by), must move a ranking of exactly the kinds
that :func:`~cage_core.config.kinds_by_setting` names — the "acts on" column of the settings
table in docs/configuration.md and what the "no effect" warnings read.

The base config of the titled, untitled and document pools is ``CageConfig()``, that of the
paper pools ``CageConfig.preset("paper")``. A setting acts on a kind when some pool of that
kind ranks differently with the setting changed (:data:`PROBES` holds the other value).
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import pytest

from cage_core import CageConfig, CageReranker, Passage
from cage_core.config import kinds_by_setting
from cage_core.config.kinds import KINDS, leaf_settings, with_setting
from cage_core.methods import Pool, get_method, pool_scores
from cage_core.methods.cage import pool_kind
from cage_core.paper.encodings import EncodingCache
from cage_core.reranker import needs_vectors, required_graph_level
from cage_core.scoring import ranking

PROBES: dict[str, Any] = {
    "alpha": 1.0,
    "coherence": None,  # the other mode: "rgcn" on bridge pools, "bridge" on paper pools
    "lexical_weight": 0.0,
    "entity_weight": 0.0,
    "title_links": False,
    "core_size": 1,
    "rgcn_weight": 1.0,
    "contradiction_weight": 3.0,
    "contradiction_overlap": 0.1,
    "max_parse_chars": 1,
    "graph_cache_size": 0,
    "string_rules": frozenset(),
    "chain.length": 0,
    "chain.title_weight": 0.0,
    "chain.entity_weight": 0.0,
    "chain.entity_cap": 0.0,
    "chain.query_title_weight": 0.0,
    "untitled.query_subject_weight": 0.0,
    "untitled.forward_weight": 0.0,
    "untitled.backward_weight": 0.0,
    "untitled.core_decay": 0.0,
    "untitled.alpha": 1.0,
    "untitled.aliases": False,
    "untitled.chain_window": 0,
    "untitled.chain_length": 1,
    "untitled.chain_mention_weight": 0.0,
    "untitled.chain_entity_weight": 5.0,
    "untitled.chain_entity_cap": 0.0,
    "untitled.chain_query_named_penalty": 0.0,
    "encoder.kind": "gcn",
    "encoder.beta": 10.0,
    "encoder.hidden_dim": 16,
    "encoder.epochs": 5,
    "encoder.learning_rate": 0.02,
    "encoder.seed": 1,
    "encoder.vector_dim": 50,
    "document.enabled": False,
    "document.document_weight": 0.0,
    "document.adjacent_weight": 0.0,
    "document.anchors": 0,
    "document.lexical_weight": 0.0,
    "gate.titled": True,
    "gate.untitled": True,
    "gate.sentence_titles": False,
    "gate.min_query_subjects": 3,
    "gate.min_subject_share": 0.9,
    "gate.unnamed_subjects": False,
}
"""The other value each setting is ranked with (its default being the first)."""


def _titled(title: str, text: str) -> Passage:
    return Passage(text, title=title)


FILMS = [
    _titled("Sky Harbor", "Sky Harbor is a 1931 American drama film directed by Ann Reeve."),
    _titled(
        "Ann Reeve",
        "Ann Reeve was an American film director born in Toronto. She made six films for "
        "Lumen Pictures.",
    ),
    _titled(
        "Ann Reeve (director)",
        "Ann Reeve was an American film director born in Chicago. She made six films for "
        "Lumen Pictures.",
    ),
    _titled("Lumen Pictures", "Lumen Pictures was a Hollywood film studio founded by Paul Gray."),
    _titled("Toronto", "Toronto is the largest city in Canada and the capital of Ontario."),
    _titled("Harbor Lights", "Harbor Lights is a 1963 American film directed by Paul Gray."),
    _titled("Paul Gray", "Paul Gray was an American producer whose prints were made at Gray Lab."),
    Passage("Gray Lab was a film laboratory in Burbank that printed films for Lumen Pictures."),
]
_TRIALS = [  # (text, a name of the study, a title that is a sentence, as a paper's is)
    (
        "Acetylsalicylic acid is a drug used against pain, fever and swelling.",
        "Aspirin",
        "Aspirin",
    ),
    (
        "In a trial of 20,000 adults in Boston, daily low doses cut colorectal cancer by a fifth.",
        "Boston Colon Trial",
        "Daily low-dose treatment and the incidence of colorectal cancer in a randomised "
        "trial of twenty thousand adults",
    ),
    (
        "Among 9,000 older adults in Boston, daily use raised the rate of stomach bleeding.",
        "Boston Elders Cohort",
        "Gastrointestinal bleeding among older adults on daily low-dose treatment in a "
        "prospective cohort from one city",
    ),
    (
        "Coffee intake was recorded for 12,000 adults in Copenhagen over ten years.",
        "Copenhagen Coffee Study",
        "Coffee drinking and the incidence of colorectal cancer over ten years of follow-up "
        "in a Danish cohort of adults",
    ),
    (
        "Adults in Sweden who exercised weekly had fewer colon polyps at screening.",
        "Swedish Polyp Study",
        "Regular exercise and the number of colon polyps found at screening in middle-aged "
        "adults from Sweden",
    ),
]
STUDIES = [_titled(name, text) for text, name, _ in _TRIALS]
TRIALS = [_titled(sentence, text) for text, _, sentence in _TRIALS]
CURIE = [
    Passage("Marie Curie was a physicist and chemist born in Warsaw. She moved to Paris in 1891."),
    Passage("Warsaw is the capital and largest city of Poland, on the Vistula river."),
    Passage("Pierre Curie was a French physicist who married Marie Curie in 1895."),
    Passage("The Vistula is the longest river in Poland, flowing through Krakow and Warsaw."),
    Passage("Bananas are a yellow fruit grown in Ecuador."),
    Passage("Marie Curie was a physicist and chemist born in Krakow. She moved to Paris in 1891."),
    Passage("Curie won the Nobel Prize in Physics in 1903 with her husband."),
    Passage("Paris is the capital of France and its largest city."),
    Passage("It was the first prize of its kind for a woman."),
    Passage("Marie Curie was a physicist and chemist who taught in Paris."),
]
COMPANIES = [  # a subject ("Acme Foods Ltd.") the others name by its short form
    Passage("Acme Foods Ltd. is a food company based in Leeds."),
    Passage("Bolt Motors is a carmaker based in Coventry."),
    Passage("Leeds is a city in West Yorkshire with a large market."),
    Passage("Its shares rose by a tenth after the dividend news in March."),
    Passage("Grain prices rose sharply in 2021, squeezing food makers."),
    Passage("Analysts said Acme Foods would raise its dividend again."),
]
RIVERS = [  # two passages linked by shared names only (no subject named)
    Passage("Greenpeace found high nitrate levels in the Danube near Vienna, Austria, in 1998."),
    Passage("Basel cut nitrate levels in the Rhine after new farming rules."),
    Passage("Siemens opened a water treatment plant near Vienna, Austria, in 2001."),
    Passage("Fish returned to the Thames in London after the sewers were rebuilt."),
    Passage("Bananas are a yellow fruit grown in Ecuador."),
]
FILMS_UNTITLED = [Passage(p.text) for p in FILMS]
TUMOURS = [  # chunks whose subjects are no names
    Passage("Hypoxia is a feature of solid tumours that drives metastasis."),
    Passage("Metastasis is a multistep process, and hypoxia promotes it in mice."),
    Passage("In tumours, oxygen levels fall as the tumours grow."),
    Passage("Fibrosis is the result of a dysfunctional repair of tissue after hypoxia."),
    Passage("Angiogenesis is the growth of new vessels that feed tumours."),
]


def _chunks(doc: str, texts: list[str], first: int = 0) -> list[Passage]:
    return [Passage(t, doc_id=doc, position=first + i) for i, t in enumerate(texts)]


REPORTS = [
    *_chunks(
        "acme.md",
        [
            "Acme Foods Ltd. is a food company based in Leeds. It makes cereals and snacks.",
            "In March 2021 the company raised its dividend by ten percent after strong sales.",
            "The board expects costs to rise next year because of grain prices.",
            "The company opened a new plant in York in 2019.",
        ],
    ),
    *_chunks(
        "bolt.md",
        [
            "In 2021 Bolt Motors cut its dividend as chip shortages slowed production.",
            "The company plans two new electric vans for 2023, Bolt Motors said.",
            "Its factory in Coventry employs 4,000 people.",
        ],
        first=1,
    ),
    *_chunks(
        "news.md",
        [
            "Analysts had expected Acme Foods to raise its dividend by ten percent.",
            "In March 2021 the company raised its dividend by twenty percent after strong sales.",
        ],
    ),
]

POOLS: dict[str, list[tuple[str, list[Passage]]]] = {
    "titled": [
        ("Where was the director of the film Sky Harbor born?", FILMS),
        ("Which lab printed the films of the studio that made Sky Harbor?", FILMS),
        ("Which film is older, Sky Harbor or Harbor Lights?", FILMS),
        ("Does aspirin lower the risk of colorectal cancer?", TRIALS),
        ("Does a daily low dose cut colorectal cancer in adults?", TRIALS),
        ("Does a daily low dose cut colorectal cancer in adults?", STUDIES),
    ],
    "untitled": [
        ("In which country was Marie Curie born?", CURIE),
        ("Which river flows through the capital?", CURIE),
        ("Was Pierre Curie born in Warsaw like his wife?", CURIE),
        ("Do low oxygen levels make tumour cells spread?", TUMOURS),
        ("How did shares of Acme Foods move after the dividend news?", COMPANIES),
        ("What did Greenpeace find about nitrate levels in the Danube?", RIVERS),
        ("Which lab printed the films of the studio that made Sky Harbor?", FILMS_UNTITLED),
        ("Who founded Lumen Pictures?", FILMS_UNTITLED),
    ],
    "document": [
        ("When did Acme Foods raise its dividend?", REPORTS),
        ("Which company cut its dividend?", REPORTS),
        ("Did Bolt Motors cut its dividend?", REPORTS),
    ],
    "paper": [  # an off-topic question: close similarities, so coherence orders the pool
        ("Tell me something interesting.", CURIE),
        ("Tell me something interesting.", FILMS),
    ],
}
"""Small real pools of each kind, by the kind they are under their base config."""


def _base(kind: str) -> CageConfig:
    return CageConfig.preset("paper") if kind == "paper" else CageConfig()


def _changed(config: CageConfig, name: str) -> CageConfig:
    """``config`` with setting ``name`` at its :data:`PROBES` value."""
    if name == "coherence":
        return config.replace(coherence="bridge" if config.coherence == "rgcn" else "rgcn")
    return with_setting(config, name, PROBES[name])


class Rankings:
    """Rank the :data:`POOLS` under any config as ``CageReranker`` does (``pool_scores`` of
    the config's method), sharing what a change of config leaves alone: each pool's
    similarities, its graphs per parse setting and graph level, and the R-GCN encodings of
    each list of passages per encoder config (the expensive part)."""

    def __init__(self, reranker: CageReranker, nlp: Any) -> None:
        self.reranker, self.nlp = reranker, nlp
        self.similarities: dict[tuple[str, int], np.ndarray] = {}
        self.encodings: dict[tuple[Any, ...], EncodingCache] = {}
        self.parsers: dict[tuple[int, int], CageReranker] = {}

    def acts(self, name: str, kind: str) -> bool:
        """Whether setting ``name`` at its :data:`PROBES` value moves the ranking of a pool of
        ``kind`` (the pools are ranked until one moves)."""
        base = _base(kind)
        changed = _changed(base, name)
        return any(self.rank(changed, q, ps) != self.rank(base, q, ps) for q, ps in POOLS[kind])

    def rank(self, config: CageConfig, query: str, passages: list[Passage]) -> tuple[int, ...]:
        scores = pool_scores(get_method("cage", config), self._pool(config, query, passages))
        return tuple(int(i) for i in ranking(scores.fused))

    def _pool(self, config: CageConfig, query: str, passages: list[Passage]) -> Pool:
        parse = (config.max_parse_chars, config.encoder.vector_dim)
        level, vectors = required_graph_level(config), needs_vectors(config)
        if parse not in self.parsers:
            self.parsers[parse] = CageReranker(config, nlp=self.nlp)
        graphs = self.parsers[parse].graphs(passages, level=level, with_vectors=vectors)
        if (query, id(passages)) not in self.similarities:
            self.similarities[query, id(passages)] = self.reranker.similarities(query, passages)
        encodings = self.encodings.setdefault((id(passages), parse, level), EncodingCache())
        sims = self.similarities[query, id(passages)]
        return Pool(query, passages, sims, graphs, encodings=encodings)


@pytest.fixture(scope="module")
def rankings(reranker, nlp) -> Rankings:
    return Rankings(reranker, nlp)


def test_every_setting_has_a_probe_value_other_than_its_default():
    defaults = leaf_settings(CageConfig())
    assert set(PROBES) == set(defaults)
    for name, value in PROBES.items():
        if name != "coherence":
            assert value != defaults[name], name
            _changed(CageConfig(), name)  # a valid value


def test_the_pools_are_of_the_kind_they_stand_for():
    for kind, pools in POOLS.items():
        for _, passages in pools:
            assert pool_kind(passages, _base(kind)) == kind


@pytest.mark.models
def test_each_setting_moves_a_ranking_of_exactly_the_kinds_said_to_read_it(rankings, caplog):
    caplog.set_level(logging.ERROR, logger="cage_core.config")  # the probes' warnings
    measured = {name: tuple(k for k in KINDS if rankings.acts(name, k)) for name in PROBES}
    declared = kinds_by_setting()
    differ = {n: (measured[n], declared[n]) for n in PROBES if measured[n] != declared[n]}
    assert not differ, f"setting: (measured, declared) {differ}"
