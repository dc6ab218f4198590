"""`cage eval`'s closed records say which document a passage is a chunk of, and where
(``doc_id`` / ``position``, the open corpus's fields), so a pool of chunks is ranked with the
document view."""

import json

import pytest

from cage_core import Passage
from cage_core.eval.corpus import corpus_from_pools
from cage_core.eval.datasets import DatasetFormatError, EvalPassage, load_questions, parse_record
from cage_core.eval.runner import run_evaluation
from cage_core.methods import get_method

QUESTION = "Did Acme Foods Ltd. raise its dividend in March 2021?"
# text, doc_id, position, gold: two reports; after its first chunk Acme's says "the company"
CHUNKS = [
    ("Bolt Motors raised its dividend in March 2021.", "bolt.pdf", 0, False),
    ("In March 2021 the company raised its dividend.", "acme.pdf", 2, True),
    ("Acme Foods Ltd. is a food company founded in 1990.", "acme.pdf", 0, False),
    ("The dividend rose again after that, the company said.", "acme.pdf", 3, False),
    ("Bolt Motors builds cars.", "bolt.pdf", 1, False),
]


def _record(structured: bool) -> dict:
    passages = []
    for text, doc_id, position, gold in CHUNKS:
        passage = {"text": text, "gold": gold}
        if structured:
            passage.update(doc_id=doc_id, position=position)
        passages.append(passage)
    return {"id": "q1", "question": QUESTION, "answers": ["yes"], "passages": passages}


def _parse(passage: dict) -> EvalPassage:
    record = {"question": "q", "passages": [passage]}
    return parse_record(record, where="f:1", default_id="f-1", default_dataset="f").passages[0]


def test_a_closed_passage_keeps_its_doc_id_and_position():
    assert _parse({"text": "x", "doc_id": "r.pdf", "position": 3}) == EvalPassage(
        "x", doc_id="r.pdf", position=3
    )
    assert _parse({"text": "x", "doc_id": 42, "position": 0}).doc_id == "42"
    assert _parse({"text": "x", "doc_id": "r.pdf"}) == EvalPassage("x", doc_id="r.pdf")
    assert _parse({"text": "x", "doc_id": None, "position": None}) == EvalPassage("x")


def test_a_position_without_a_document_says_nothing():
    assert _parse({"text": "x", "position": 2}) == EvalPassage("x")


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("doc_id", True, "'doc_id' must be a string or an integer"),
        ("doc_id", 1.5, "'doc_id' must be a string or an integer"),
        ("doc_id", ["a"], "'doc_id' must be a string or an integer"),
        ("position", -1, "'position' must be an integer >= 0"),
        ("position", 1.0, "'position' must be an integer >= 0"),
        ("position", False, "'position' must be an integer >= 0"),
        ("position", "3", "'position' must be an integer >= 0"),
    ],
)
def test_a_malformed_doc_id_or_position_names_the_file_line_and_passage(field, value, message):
    passage = {"text": "x", "doc_id": "r.pdf", "position": 0, field: value}
    with pytest.raises(DatasetFormatError, match=rf"^f:1: passages\[0\]: {message}$"):
        _parse(passage)


def test_the_open_setting_built_from_closed_pools_keeps_the_structure(tmp_path):
    path = tmp_path / "chunks.jsonl"
    path.write_text(json.dumps(_record(True)) + "\n", encoding="utf-8")
    corpus = corpus_from_pools(load_questions(path), titles=False)
    assert [(p.doc_id, p.position) for p in corpus.passages] == [
        (doc_id, position) for _, doc_id, position, _ in CHUNKS
    ]


def test_a_closed_file_with_doc_id_and_position_is_ranked_with_the_document_view(
    tmp_path, reranker
):
    """The query names Acme; its report's chunk that answers never does. Only the document
    view, which knows the chunk is Acme's, puts it first — as the core reranker does with
    the same passages."""
    orders = {}
    for structured in (True, False):
        path = tmp_path / f"chunks-{structured}.jsonl"
        path.write_text(json.dumps(_record(structured)) + "\n", encoding="utf-8")
        run = run_evaluation([path], [get_method("cage")], reranker=reranker, ks=(1,))
        (result,) = run.results
        orders[structured] = result.order
        assert result.gold == (1,)
    assert orders[True][0] == 1 and orders[False][0] != 1
    passages = [Passage(t, doc_id=d, position=p) for t, d, p, _ in CHUNKS]
    core = reranker.rerank(QUESTION, passages)
    assert orders[True] == tuple(r.index for r in core)
