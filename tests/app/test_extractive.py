"""The offline extractive answerer: the default rule, and following an evidence chain."""

import json
from importlib import resources

import pytest

from cage_core import Passage
from cage_core.extractive import extractive_answer, prose_paragraphs, rest_of_question
from cage_core.metadata import chain_from_metadata, via_from_metadata
from cage_core.passage import Via

QUESTION = (
    "What government position was held by the woman who portrayed Corliss Archer in the "
    "film Kiss and Tell?"
)


@pytest.fixture(scope="module")
def demo():
    """The bundled Corliss Archer question: its passages by title."""
    with resources.as_file(resources.files("cage_core").joinpath("data", "demo.jsonl")) as path:
        row = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert row["question"] == QUESTION
    return {p["title"]: p["text"] for p in row["passages"]}


TOP5 = [
    "Kiss and Tell (1945 film)",
    "A Kiss for Corliss",
    "Meet Corliss Archer (TV series)",
    "Shirley Temple",
    "Meet Corliss Archer",
]
CHAIN = [
    None,
    Via("Kiss and Tell", 0),
    Via("American", 0),
    Via("Shirley Temple", 0),
    Via("Meet Corliss Archer", 2),
]
"""What RankedPassage.via says of these five in this order (tests/ranking/test_explanation.py)."""


def test_rest_of_question_drops_the_phrase_the_source_answers(nlp, demo):
    assert (
        rest_of_question(QUESTION, demo["Kiss and Tell (1945 film)"], nlp)
        == "What government position was held by ?"
    )
    assert (
        rest_of_question(
            "Where was the place of burial of Charles Mathew's father?",
            "Charles James Mathew was the second son of Sir James Charles Mathew.",
            nlp,
        )
        == "Where was the place of burial of ?"
    )


def test_rest_of_question_is_none_when_the_source_answers_all_of_it_or_none(nlp, demo):
    assert (
        rest_of_question(
            "Who portrayed Corliss Archer in Kiss and Tell?", demo["Kiss and Tell (1945 film)"], nlp
        )
        is None
    )  # the phrase is the root
    assert rest_of_question(QUESTION, "Bananas are yellow fruit.", nlp) is None  # no anchor


def test_following_the_chain_answers_the_government_position(demo, embedder, nlp):
    passages = [demo[t] for t in TOP5]
    answer = extractive_answer(QUESTION, passages, chain=CHAIN, embedder=embedder, nlp=nlp)
    assert answer.sources == (0, 3)  # the film, then the actress it names
    assert "Shirley Temple as Corliss Archer" in answer.sentences[0]
    assert answer.sentences[1].startswith("As an adult, she was named")
    assert "Chief of Protocol" in answer.sentences[1]
    one = extractive_answer(
        QUESTION, passages, chain=CHAIN, max_sentences=1, embedder=embedder, nlp=nlp
    )
    assert one.sentences == answer.sentences[1:] and one.sources == (3,)


def test_without_a_usable_chain_the_two_closest_sentences_are_quoted(demo, embedder, nlp):
    passages = [demo[t] for t in TOP5]
    default = extractive_answer(QUESTION, passages, embedder=embedder)
    assert default.sources == (0, 1)  # two film plots, no government position
    assert not any("Chief of Protocol" in s for s in default.sentences)
    # a link through a name the question gives ("Kiss and Tell") is no bridge
    only_named = [None, Via("Kiss and Tell", 0), None, None, None]
    assert (
        extractive_answer(QUESTION, passages, chain=only_named, embedder=embedder, nlp=nlp)
        == default
    )
    assert (
        extractive_answer(QUESTION, passages, chain=[None] * 5, embedder=embedder, nlp=nlp)
        == default
    )
    # nor is a document link: it names nothing in the text
    sibling = Via("same document: Corliss Archer, next chunk", 0, "document")
    by_document = [None, sibling, None, None, None]
    assert (
        extractive_answer(QUESTION, passages, chain=by_document, embedder=embedder, nlp=nlp)
        == default
    )


def test_the_reranked_demo_question_is_answered_from_its_chain(reranker, nlp, demo):
    passages = [Passage(text, title=title) for title, text in demo.items()]
    ranked = reranker.rerank(QUESTION, passages, top_n=5)
    answer = extractive_answer(
        QUESTION,
        [r.text for r in ranked],
        chain=[r.via for r in ranked],
        embedder=reranker.embedder,
        nlp=nlp,
    )
    assert "Chief of Protocol" in answer.render()


def test_a_chain_that_does_not_fit_the_passages_is_refused():
    with pytest.raises(ValueError, match="one entry per passage"):
        extractive_answer("q?", ["A sentence of five words."], chain=[None, None])
    with pytest.raises(ValueError, match="does not point at an earlier passage"):
        extractive_answer(
            "q?", ["One two three four.", "Five six seven eight."], chain=[None, Via("x", 1)]
        )
    with pytest.raises(ValueError, match="max_sentences"):
        extractive_answer("q?", ["One two three four."], max_sentences=0)


def test_the_chain_travels_in_metadata_and_is_read_back_by_rank():
    assert via_from_metadata({"name": "Warsaw", "rank": 0}) == Via("Warsaw", 0, "entity")
    stored = {"name": "same document: Acme, next chunk", "rank": 0, "kind": "document"}
    assert via_from_metadata(stored) == Via(stored["name"], 0, "document")
    for junk in (
        None,
        "Warsaw",
        {"name": "x", "rank": 0, "kind": "cousin"},
        {"name": 3, "rank": 0},
        {"name": "x", "rank": -1},
        {"name": "x", "rank": True},
        {"name": "x"},
        ["x", 0],
    ):
        assert via_from_metadata(junk) is None
    metadatas = [
        {"cage_rank": 0, "cage_via": None},
        {"cage_rank": 1, "cage_via": {"name": "Warsaw", "rank": 0, "kind": "title"}},
        {"cage_rank": 2, "cage_via": {"name": "Poland", "rank": 1, "kind": "entity"}},
    ]
    warsaw, poland = Via("Warsaw", 0, "title"), Via("Poland", 1, "entity")
    assert chain_from_metadata(metadatas) == [None, warsaw, poland]
    # documents cut from the front: ranks are mapped to positions; a via to a missing one is dropped
    assert chain_from_metadata(metadatas[1:]) == [None, Via("Poland", 0, "entity")]
    assert chain_from_metadata(metadatas[::-1]) == [None, None, None]  # no via points backwards


README_RST = """\
CAGE
====

.. image:: https://img.shields.io/pypi/v/cage-rag.svg
   :target: https://pypi.org/project/cage-rag

|build| |coverage|

CAGE reranks the passages a retriever returns by how well they fit together. Read
`the guide <https://example.org/guide>`_ and :func:`cage_core.rerank` for **details**.

.. note:: Install it with ``pip install cage-rag`` in a fresh environment.

Example::

    from cage_core import CageReranker

After the example comes more text.

.. |build| image:: https://ci.example.org/badge.svg
.. _guide: https://example.org/guide
"""
README_MD = """\
# CAGE

[![PyPI](https://img.shields.io/pypi/v/cage-rag.svg)](https://pypi.org/project/cage-rag) ![logo](logo.png)

CAGE is installed with `pip install cage-rag`; read [the guide](https://example.org/g) or
<a href="https://example.org">the site</a> &amp; its notes.

```python
import cage_core
```

| option | meaning |
|--------|---------|
| alpha  | weight  |

> The reranker runs on a CPU in milliseconds.
<!-- a comment -->
"""  # noqa: E501


def test_prose_paragraphs_keep_the_text_of_restructuredtext_and_drop_its_markup():
    assert prose_paragraphs(README_RST) == [
        "CAGE reranks the passages a retriever returns by how well they fit together. Read "
        "the guide and cage_core.rerank for details.",
        "Install it with pip install cage-rag in a fresh environment.",
        "Example:",
        "After the example comes more text.",
    ]


def test_prose_paragraphs_keep_the_text_of_markdown_and_html_and_drop_their_markup():
    assert prose_paragraphs(README_MD) == [
        "CAGE is installed with pip install cage-rag; read the guide or the site & its notes.",
        "The reranker runs on a CPU in milliseconds.",
    ]


def test_prose_paragraphs_leave_plain_text_as_it_is():
    text = (
        "Shirley Temple Black (April 23, 1928 – February 10, 2014) was an actress. She\n"
        "was 5 * 3 years old."
    )
    assert prose_paragraphs(text) == [" ".join(text.split())]


HWCLOCK = (  # util-linux's hwclock.txt, ranked first, then a release-notes line
    "Hwclock is a program that runs under Linux and sets and queries the Hardware Clock, "
    "which is often called the Real Time Clock, RTC, or CMOS clock.",
    "- always reads hardware clock [Karel Zak]",
)


@pytest.mark.parametrize(("most", "sources"), [(1, (0,)), (2, (1, 0))])
def test_the_best_ranked_passage_is_always_quoted(embedder, nlp, most, sources):
    """The cosine of one short sentence does not outrank the reranker's order: the changelog
    line is closer to the question; the top passage's sentence is quoted all the same, in
    place of the last, and the quotes stay closest first."""
    answer = extractive_answer(
        "Which program sets the hardware clock?",
        list(HWCLOCK),
        max_sentences=most,
        embedder=embedder,
        nlp=nlp,
    )
    assert answer.sources == sources
    assert answer.sentences[sources.index(0)].startswith("Hwclock is a program")


def test_prose_paragraphs_keep_placeholders_where_the_text_writes_no_markup_tag():
    """A tag only markup writes (a closing tag, an attribute, ``<br/>``) says the text is
    HTML, and its tags go; without one, ``<major>`` is a placeholder the sentence needs."""
    plain = "The package uses the <major>.<minor>.<maintenance> version numbering scheme."
    assert prose_paragraphs(plain) == [plain]
    assert prose_paragraphs("Run <code>git clone</code> on the <repo> URL.") == [
        "Run git clone on the URL."
    ]


MARKUP = ("![", "](", "[!", "|", ".. ", "::", "`", "<", ">", "**", "shields.io", "badge", "```")


def test_extractive_quotes_never_contain_markup_or_badges(embedder, nlp):
    answer = extractive_answer(
        "How is CAGE installed, and what does it rerank?",
        [README_MD, README_RST],
        max_sentences=4,
        embedder=embedder,
        nlp=nlp,
    )
    assert answer.sentences == (
        "CAGE is installed with pip install cage-rag; read the guide or the site & its notes.",
        "CAGE reranks the passages a retriever returns by how well they fit together.",
    )
    assert not [s for s in answer.sentences if any(m in s for m in MARKUP)]


def test_a_file_the_question_cites_is_no_name_a_quoted_sentence_must_write(embedder, nlp):
    """ "eip-3855.md" names the document the question is about, which its passages seldom
    write: the sentence that answers is quoted by the question's other words; a proper noun
    the question writes ("Shanghai") must still be in the sentence quoted."""
    passages = [
        "The PUSH0 instruction is introduced at 0x5f. It has no immediate data. "
        "The instruction costs the base gas cost of 2 to execute.",
        "Many contracts push the value zero onto the stack with PUSH1 0x00 today.",
    ]
    question = "In eip-3855.md, how much gas does the new instruction cost to execute?"
    answer = extractive_answer(question, passages, max_sentences=1, embedder=embedder, nlp=nlp)
    assert answer.sentences == ("The instruction costs the base gas cost of 2 to execute.",)
    named = "In eip-3855.md, how much gas does the instruction cost after Shanghai?"
    assert extractive_answer(named, passages, embedder=embedder, nlp=nlp).sentences == ()


def test_a_sentence_is_read_under_its_passages_title(embedder, nlp):
    """The title names what the section is about ("libtool"), which its sentences need not
    repeat: given as ``titles``, it ties them; never quoted; one title per passage."""
    passages = [
        "There are considerations to be made when debugging programs found in the package. "
        "Because wrapper scripts are used for the binaries, you cannot run gdb on them directly."
    ]
    question = "What does the guide say about libtool wrapper scripts?"
    assert extractive_answer(question, passages, embedder=embedder, nlp=nlp).sentences == ()
    titled = extractive_answer(
        question, passages, max_sentences=1, embedder=embedder, nlp=nlp,
        titles=["howto-debug.txt › How to deal with libtool"],
    )  # fmt: skip
    assert titled.sentences == (
        "Because wrapper scripts are used for the binaries, you cannot run gdb on them directly.",
    )
    with pytest.raises(ValueError, match="titles has 2 entries for 1 passages"):
        extractive_answer(question, passages, embedder=embedder, nlp=nlp, titles=["a", "b"])
