"""The open setting of `cage eval` (a corpus, a retriever, then the rankers) and the
metrics every report gives (Recall@k and all gold in the top k)."""

import io
import json
from pathlib import Path

import numpy as np
import pytest

from cage_core import Passage
from cage_core.cli.commands import main
from cage_core.eval.corpus import corpus_from_pools, load_corpus
from cage_core.eval.corpus_retrieval import BM25Index, CorpusRetriever
from cage_core.eval.datasets import DatasetFormatError, load_questions
from cage_core.eval.metrics import all_gold_in_top_k
from cage_core.eval.open_retrieval import (
    ExpansionSettings,
    gold_ids_in_corpus,
    gold_in_corpus,
    misinfo_in_corpus,
    run_open_evaluation,
)
from cage_core.eval.report import markdown, summarize
from cage_core.eval.runner import DatasetRun, EvalRun, rank_pool, run_evaluation
from cage_core.methods import Pool, get_method
from cage_core.ranking.pool_bm25 import pool_bm25

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
OPEN = FIXTURES / "open"
TINY_OPEN = OPEN / "tiny_open.jsonl"


# -- metrics ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "order, gold, k, expected",
    [
        ([3, 1, 0, 2], {0, 1}, 2, False),
        ([3, 1, 0, 2], {0, 1}, 3, True),
        ([0, 1], {0, 1}, 5, True),  # pool smaller than k
        ([0, 1, 2], {0, -1}, 3, False),  # a gold passage that is not in the pool at all
        ([0, 1], set(), 5, False),  # no gold: false, so its mean never exceeds recall's
    ],
)
def test_all_gold_in_top_k(order, gold, k, expected):
    assert all_gold_in_top_k(order, gold, k) is expected


def test_summary_gives_recall_and_all_gold_at_each_k_overall_and_per_type():
    questions = load_questions(TINY_OPEN)
    run = EvalRun(methods=["vanilla"], ks=(1, 2, 3, 5))
    # o1: gold 0, 1 ranked 1st and 3rd; o3: gold 0, 1 ranked 1st and 2nd
    # (similarities fix the order)
    for q, sims, gold in [
        (questions[0], [0.9, 0.5, 0.7, 0.1], (0, 1)),
        (questions[2], [0.9, 0.8, 0.1, 0.2], (0, 1)),
    ]:
        pool = Pool(
            q.question, [Passage(p.text, p.title) for p in q.passages], np.array(sims), key=q.id
        )
        run.results.extend(rank_pool([get_method("vanilla")], pool, q, gold, None, run.ks))
    run.datasets["tiny-open"] = DatasetRun("tiny-open", 2, 0.0, 0.0, shuffled=False)
    m = summarize(run)["datasets"]["tiny-open"]["methods"]["vanilla"]
    assert [m[f"recall@{k}"] for k in (1, 2, 3, 5)] == [0.5, 0.75, 1.0, 1.0]
    assert [m[f"all_gold@{k}"] for k in (1, 2, 3, 5)] == [0.0, 0.5, 1.0, 1.0]
    assert m["by_type"]["bridge"] == {
        "n": 1,
        "recall@1": 0.5,
        "recall@2": 0.5,
        "recall@3": 1.0,
        "recall@5": 1.0,
        "all_gold@1": 0.0,
        "all_gold@2": 0.0,
        "all_gold@3": 1.0,
        "all_gold@5": 1.0,
    }
    md = markdown(summarize(run))
    assert "## Recall@5" in md and "## Recall@3" in md
    assert "| vanilla | 0.500 | 0.750 | 1.000 | 1.000 | 0.000 | 0.500 | 1.000 | 1.000 |" in md
    assert (
        "| vanilla | comparison (n=1) | 0.500 | 1.000 | 1.000 | 1.000 | 0.000 | 1.000 | 1.000 | 1.000 |"  # noqa: E501
        in md
    )


# -- the corpus ------------------------------------------------------------------------------
def test_corpus_of_the_pools_keeps_each_distinct_passage_once_in_first_seen_order():
    corpus = corpus_from_pools(load_questions(TINY_OPEN))
    assert [p.title for p in corpus.passages] == [
        "Sky Harbor (film)",
        "Ann Reeve",
        "Harbor Lights",
        "Sky",
        "Toronto",
        "Olt",
        "Mures",
        "Bananas",
        "Sky (physics)",
    ]
    assert corpus.ids == tuple(str(i) for i in range(9)) and corpus.source == "pools"


def test_without_titles_the_corpus_is_distinct_by_text_and_holds_no_title():
    corpus = corpus_from_pools(load_questions(TINY_OPEN), titles=False)
    assert len(corpus) == 8  # "Sky" and "Sky (physics)" share their text
    assert all(p.title == "" for p in corpus.passages)
    assert all(p.content == p.text for p in corpus.passages)


def test_gold_passages_map_to_the_same_corpus_passage_across_questions():
    questions = load_questions(TINY_OPEN)
    corpus = corpus_from_pools(questions)
    assert gold_in_corpus(questions[0], corpus) == (0, 1)
    assert gold_in_corpus(questions[1], corpus) == (1,)  # Ann Reeve, shared with o1
    assert gold_in_corpus(questions[2], corpus) == (5, 6)
    assert misinfo_in_corpus(questions[0], corpus) is None  # no RAMDocs labels


def test_a_gold_passage_missing_from_a_corpus_file_counts_as_missed(tmp_path):
    f = tmp_path / "corpus.jsonl"
    f.write_text(
        '{"text": "Sky Harbor is a 1931 film directed by Ann Reeve.", "id": "a"}\n'
        '{"text": "Toronto is the capital of the province of Ontario."}\n'
    )
    corpus = load_corpus(f)
    assert corpus.ids == ("a", "1") and corpus.position("1") == 1 and corpus.position("b") is None
    # o1's first gold is found by its text (the file has no titles); the second is not there
    assert gold_in_corpus(load_questions(TINY_OPEN)[0], corpus) == (0, -1)


def test_misinfo_labels_map_to_the_corpus(tmp_path):
    record = {
        "question": "q",
        "passages": [{"text": "right", "gold": True}, {"text": "wrong"}],
        "meta": {"doc_labels": ["correct", "misinfo"]},
    }
    f = tmp_path / "ram.jsonl"
    f.write_text(json.dumps(record) + "\n")
    questions = load_questions(f)
    corpus = corpus_from_pools(questions)
    assert gold_in_corpus(questions[0], corpus) == (0,) and misinfo_in_corpus(
        questions[0], corpus
    ) == (1,)


@pytest.mark.parametrize(
    "content, message",
    [
        ("{not json\n", r"corpus.jsonl:1: not valid JSON"),
        ('"just a string"\n', r"corpus.jsonl:1: a corpus passage must be a JSON object"),
        ('{"text": "ok"}\n{"title": "t"}\n', r"corpus.jsonl:2: 'text' must be a non-empty string"),
        ('{"text": "   "}\n', r"corpus.jsonl:1: 'text' must be a non-empty string"),
        ('{"text": "ok", "title": 3}\n', r"corpus.jsonl:1: 'title' must be a string"),
        ('{"text": "ok", "id": [1]}\n', r"corpus.jsonl:1: 'id' must be a string or an integer"),
        (
            '{"text": "a", "id": "x"}\n{"text": "b", "id": "x"}\n',
            r"corpus.jsonl: passage id 'x' is used twice",
        ),
        ("\n\n", r"corpus.jsonl: the corpus has no passages"),
    ],
)
def test_corpus_file_errors_name_the_file_and_line(tmp_path, content, message):
    f = tmp_path / "corpus.jsonl"
    f.write_text(content)
    with pytest.raises(DatasetFormatError, match=message):
        load_corpus(f)


def test_corpus_file_drops_repeated_passages_and_titles_on_request(tmp_path):
    f = tmp_path / "corpus.jsonl"
    f.write_text(
        '{"text": "x", "title": "A", "id": 7}\n{"text": "x", "title": "B"}\n'
        '{"text": "x", "title": "A"}\n'
    )
    assert [(p.id, p.title) for p in load_corpus(f).passages] == [("7", "A"), ("1", "B")]
    assert [(p.id, p.title) for p in load_corpus(f, titles=False).passages] == [("7", "")]


# -- first-stage retrieval -------------------------------------------------------------------
TEXTS = [
    "Warsaw is the capital of Poland.",
    "Bananas are yellow.",
    "Paris is a capital.",
    "Poland borders Germany; Warsaw lies on the Vistula.",
]


def test_corpus_bm25_equals_the_pool_bm25_over_the_same_passages():
    for query in ("capital of Poland", "Warsaw Warsaw Vistula", "nothing matches", ""):
        assert np.array_equal(BM25Index(TEXTS).scores(query), pool_bm25(query, TEXTS))


def test_retrievers_return_corpus_indices_best_first_ties_in_corpus_order():
    cosines = np.array([[0.1, 0.9, 0.5, 0.5]])
    assert CorpusRetriever(TEXTS, cosines, "cosine").top(0, "capital of Poland", 3) == [1, 2, 3]
    assert CorpusRetriever(TEXTS, cosines, "bm25").top(0, "Vistula", 2) == [
        3,
        0,
    ]  # 0 and 1, 2 tie at 0
    # hybrid: z(cos) + w·z(BM25) over the candidates; a large w lets BM25 decide
    assert CorpusRetriever(TEXTS, cosines, "hybrid", lexical_weight=100.0).top(0, "Vistula", 1) == [
        3
    ]
    assert CorpusRetriever(TEXTS, cosines, "hybrid", lexical_weight=0.0).top(0, "Vistula", 1) == [1]


def test_retriever_arguments_are_checked():
    with pytest.raises(ValueError, match="unknown retriever 'dense'"):
        CorpusRetriever(TEXTS, np.zeros((1, 4)), "dense")
    with pytest.raises(ValueError, match=r"expected \[queries, 4\]"):
        CorpusRetriever(TEXTS, np.zeros((1, 3)))
    with pytest.raises(ValueError, match="k must be >= 1"):
        CorpusRetriever(TEXTS, np.zeros((1, 4))).top(0, "q", 0)


def test_expansion_settings_are_validated():
    with pytest.raises(ValueError, match="expansion seeds must be an integer >= 1"):
        ExpansionSettings(seeds=0)


# -- the command line ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "extra, message",
    [
        (["--corpus", "c.jsonl"], "--corpus only apply with --open K"),
        (["--retriever", "bm25"], "--retriever only apply with --open K"),
        (["--expand"], "--expand only apply with --open K"),
        (["--open", "0"], "--open K must be >= 1"),
        (["--open", "5", "--shuffle", "always"], "--shuffle applies to the benchmark's own pools"),
        (["--k", "1,x"], "--k must be comma-separated integers"),
        (["--open", "5", "--corpus", str(TINY_OPEN)], "'text' must be a non-empty string"),
    ],
)
def test_eval_rejects_inconsistent_open_options(tmp_path, capsys, extra, message):
    code = main(
        [
            "eval",
            "--data",
            str(TINY_OPEN),
            "--methods",
            "vanilla",
            "--out",
            str(tmp_path),
            "--no-progress",
            *extra,
        ],
        out=io.StringIO(),
    )
    assert code == 2
    assert message in capsys.readouterr().err


def test_eval_defaults_to_recall_and_all_gold_at_1_2_3_5():
    from cage_core.cli.commands import build_parser

    args = build_parser().parse_args(["eval", "--data", "x"])
    assert (
        args.k == "1,2,3,5"
        and args.open is None
        and args.retriever == "cosine"
        and not args.no_titles
    )


# -- end to end, with the real models --------------------------------------------------------
class _SeenPools:
    """A ranking method that ranks by similarity and keeps every pool it was given."""

    name = "seen"
    needs_graphs = True

    def __init__(self) -> None:
        self.pools: list[Pool] = []

    def score(self, pool: Pool) -> np.ndarray:
        self.pools.append(pool)
        return np.asarray(pool.similarities, dtype=np.float64)


@pytest.mark.models
def test_every_method_ranks_the_k_retrieved_so_recall_at_k_is_the_ceiling(tmp_path):
    out = io.StringIO()
    code = main(
        [
            "eval",
            "--data",
            str(OPEN),
            "--open",
            "3",
            "--k",
            "1,3",
            "--methods",
            "vanilla,hybrid,cage",
            "--out",
            str(tmp_path),
            "--no-progress",
        ],
        out=out,
    )
    assert code == 0
    data = json.loads((tmp_path / "results.json").read_text())
    entry = data["summary"]["datasets"]["tiny-open"]
    ceiling = entry["open"]["ceiling"]["recall"]
    assert entry["open"]["corpus_size"] == 9 and entry["open"]["k"] == 3
    assert ceiling == pytest.approx(np.mean([r["retrieved_recall"] for r in data["retrieval"]]))
    assert all(m["recall@3"] == pytest.approx(ceiling) for m in entry["methods"].values())
    for r in data["per_question"]:  # orders are corpus indices; each pool is 3 passages
        assert len(r["order"]) == 3 and all(0 <= i < 9 for i in r["order"])
    md = (tmp_path / "results.md").read_text()
    assert (
        "## Recall@3 after retrieval" in md
        and "| file | corpus | ceiling R@K | vanilla R@3 |" in md
    )


@pytest.mark.models
def test_without_titles_no_title_reaches_embedding_retrieval_or_ranking(reranker):
    seen = _SeenPools()
    run = run_open_evaluation(
        [TINY_OPEN], [seen], reranker=reranker, k=4, titles=False, retriever="hybrid"
    )
    assert len(seen.pools) == 3 and run.datasets["tiny-open"].open.corpus_size == 8
    for pool in seen.pools:
        assert all(p.title == "" for p in pool.passages)
        expected = reranker.similarities(pool.query, [Passage(p.text) for p in pool.passages])
        assert np.allclose(pool.similarities, expected, atol=1e-6)
        assert [g.content_sha for g in pool.graphs] == [
            reranker.graphs([Passage(p.text)])[0].content_sha for p in pool.passages
        ]


@pytest.mark.models
def test_closed_pools_without_titles_drop_them_too(reranker):
    seen = _SeenPools()
    run_evaluation([FIXTURES / "tiny_multihop.jsonl"], [seen], reranker=reranker, titles=False)
    assert seen.pools and all(p.title == "" for pool in seen.pools for p in pool.passages)


@pytest.mark.models
def test_a_corpus_file_is_shared_by_every_data_file(tmp_path, reranker):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "".join(
            json.dumps({"title": p.title, "text": p.text}) + "\n"
            for q in load_questions(TINY_OPEN)
            for p in q.passages
        )
    )
    seen = _SeenPools()
    run = run_open_evaluation(
        [TINY_OPEN, FIXTURES / "tiny_multihop.jsonl"],
        [seen],
        reranker=reranker,
        k=2,
        corpus_path=corpus,
    )
    assert {d.open.corpus_size for d in run.datasets.values()} == {9}
    assert {d.open.corpus_source for d in run.datasets.values()} == {str(corpus)}
    assert (
        run.datasets["tiny"].open.gold_outside_corpus == 0
    )  # its gold passages are all in the file
    assert [len(pool.passages) for pool in seen.pools] == [2] * 5


@pytest.mark.models
def test_expansion_adds_the_linked_second_hop_after_the_retrieved_passages(reranker):
    seen = _SeenPools()
    run = run_open_evaluation(
        [TINY_OPEN],
        [seen],
        reranker=reranker,
        k=1,
        limit=1,
        expansion=ExpansionSettings(seeds=1, limit=3),
    )
    corpus = corpus_from_pools(load_questions(TINY_OPEN))
    (outcome,) = run.retrieval
    pool = seen.pools[0]
    # o1: the question is most like "Sky Harbor (film)", which names Ann Reeve: her passage joins
    assert [p.title for p in pool.passages][:2] == ["Sky Harbor (film)", "Ann Reeve"]
    assert (outcome.retrieved, outcome.retrieved_recall, outcome.pool_recall) == (1, 0.5, 1.0)
    assert outcome.pool_size == len(pool.passages) <= 1 + 3
    assert np.allclose(
        pool.similarities, reranker.similarities(pool.query, pool.passages), atol=1e-6
    )
    assert [p.id for p in pool.passages][:2] == [corpus.ids[0], corpus.ids[1]]
    assert run.datasets["tiny-open"].open.expand is True


@pytest.mark.models
def test_eval_open_expand_reports_the_ceiling_of_the_retrieved_and_of_the_expanded_pool(tmp_path):
    code = main(
        [
            "eval",
            "--data",
            str(TINY_OPEN),
            "--open",
            "1",
            "--expand",
            "--expand-seeds",
            "1",
            "--expand-limit",
            "2",
            "--no-titles",
            "--methods",
            "vanilla,cage",
            "--out",
            str(tmp_path),
            "--no-progress",
        ],
        out=io.StringIO(),
    )
    assert code == 0
    data = json.loads((tmp_path / "results.json").read_text())
    setting = data["summary"]["datasets"]["tiny-open"]["open"]
    assert setting["expand"] is True and setting["corpus_size"] == 8 and data["titles"] is False
    assert all(r["retrieved"] == 1 and 1 <= r["pool_size"] <= 3 for r in data["retrieval"])
    assert setting["ceiling"]["pool_recall"] >= setting["ceiling"]["recall"]
    md = (tmp_path / "results.md").read_text()
    assert "| file | corpus | ceiling R@K | ceiling, expanded pool | vanilla R@5 | cage R@5 |" in md
    assert "no titles" in md


# -- document structure and gold by id -------------------------------------------------------
def test_a_corpus_file_gives_each_chunk_its_document_and_position(tmp_path):
    f = tmp_path / "corpus.jsonl"
    f.write_text(
        '{"id": "r#0", "text": "Acme is a company.", "doc_id": "r", "position": 0}\n'
        '{"id": "r#1", "text": "The company grew.", "doc_id": 7, "position": 1}\n'
        '{"id": "s", "text": "Alone."}\n'
    )
    corpus = load_corpus(f)
    assert [(p.doc_id, p.position) for p in corpus.passages] == [("r", 0), ("7", 1), (None, None)]


@pytest.mark.parametrize(
    "row",
    [
        '{"text": "x", "position": -1}',
        '{"text": "x", "position": true}',
        '{"text": "x", "doc_id": [1]}',
    ],
)
def test_a_bad_doc_id_or_position_names_the_line(tmp_path, row):
    f = tmp_path / "corpus.jsonl"
    f.write_text(row + "\n")
    with pytest.raises(DatasetFormatError, match="corpus.jsonl:1"):
        load_corpus(f)


def test_gold_listed_by_id_matches_by_id_chunk_ids_first_and_a_question_without_gold_here_is_left_out(  # noqa: E501
    tmp_path,
):
    f = tmp_path / "corpus.jsonl"
    f.write_text(
        '{"id": "d1#0", "text": "Same words.", "doc_id": "d1", "position": 0}\n'
        '{"id": "d2#0", "text": "Same words.", "doc_id": "d2", "position": 0}\n'
        '{"id": "d2#1", "text": "Other words.", "doc_id": "d2", "position": 1}\n'
    )
    corpus = load_corpus(f)
    assert len(corpus) == 3  # equal text in two documents: two chunks
    q = tmp_path / "q.jsonl"
    q.write_text(
        "\n".join(
            json.dumps(
                {
                    "question": "?",
                    "passages": [{"text": "Other words.", "gold": True}],
                    "meta": meta,
                }
            )
            for meta in (
                {"gold_chunk_ids": ["d2#1"], "gold_ids": ["d2"]},
                {"gold_chunk_ids": [], "gold_ids": ["d1#0"]},
                {"gold_chunk_ids": [], "gold_ids": ["d9"]},
                {},
            )
        )
        + "\n"
    )
    questions = load_questions(q)
    assert [gold_ids_in_corpus(x, corpus) for x in questions] == [(2,), (0,), (), None]
    assert gold_in_corpus(questions[0], corpus) == (2,) and gold_in_corpus(
        questions[3], corpus
    ) == (2,)
