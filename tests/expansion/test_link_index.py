"""The link index: which passages join the candidates, in which order, and how it is stored."""

import json
import logging
import math
import os
import stat
import string

import pytest
from graphs import entity_graph
from hypothesis import given, settings
from hypothesis import strategies as st

from cage_core import Passage
from cage_core.expansion.index import (
    MAX_KEYS,
    MAX_LINE_CHARS,
    MAX_NAME_CHARS,
    Expansion,
    LinkEntry,
    LinkIndex,
    LinkIndexFormatError,
    LinkWeights,
)
from cage_core.names.forms import is_normal_name, normal_name

# The 2Wiki chain "Where was Charles Mathew's father buried?": a (first hop) names b (his
# father), b names Cork; c shares the rare "Lincoln's Inn" with a; d names a; e is unrelated.
CORPUS = {
    "a": (
        Passage(
            "Charles James Mathew (1872–1923) was a barrister, the son of Sir James Charles "
            "Mathew. He was called to the bar at Lincoln's Inn.",
            title="Charles Mathew",
        ),
        entity_graph(
            [
                ("Charles James Mathew", "PERSON"),
                ("1872", "DATE"),
                ("Sir James Charles Mathew", "PERSON"),
                ("Lincoln's Inn", "ORG"),
            ],
            light=True,
        ),
    ),
    "b": (
        Passage(
            "Sir James Charles Mathew (1830–1908) was an Irish judge, buried in Cork.",
            title="James Charles Mathew",
        ),
        entity_graph(
            [
                ("Sir James Charles Mathew", "PERSON"),
                ("1830", "DATE"),
                ("Irish", "NORP"),
                ("Cork", "GPE"),
            ],
            light=True,
        ),
    ),
    "c": (
        Passage("Harry Gosling (1861–1930) trained at Lincoln's Inn.", title="Harry Gosling"),
        entity_graph([("Harry Gosling", "PERSON"), ("Lincoln's Inn", "ORG")], light=True),
    ),
    "d": (
        Passage(
            "The Whitechapel by-election followed the death of Charles Mathew.",
            title="1923 Whitechapel by-election",
        ),
        entity_graph([("Whitechapel", "GPE"), ("Charles Mathew", "PERSON")], light=True),
    ),
    "e": (
        Passage("Cork is a city in Ireland.", title="Cork"),
        entity_graph([("Ireland", "GPE")], light=True),
    ),
}
QUERY = "Where was Charles Mathew's father buried?"


def _index(corpus=CORPUS, **weights):
    return LinkIndex.build(
        ((pid, p, g) for pid, (p, g) in corpus.items()),
        weights=LinkWeights(**weights) if weights else None,
    )


def _spec(df, n):
    return math.log1p(n / df) / math.log1p(n)


def test_entries_hold_the_subject_its_alias_and_the_named_entities():
    entry = _index().entry("a")
    assert entry == LinkEntry(
        id="a",
        subject="Charles Mathew",
        keys=("charles mathew", "charles james mathew"),
        mentions=("sir james charles mathew", "lincoln s inn"),
    )


def test_a_seed_reaches_the_passage_about_an_entity_it_names_forward():
    found = _index().expand(QUERY, ["a"], seeds=1, limit=10)
    # "sir james charles mathew": named by a, a key of b (df 2); its sub-span and alias, keys
    # of b as well, weigh the same, and the first link found (the exact name) is kept.
    assert found[0] == Expansion(
        id="b",
        via="sir james charles mathew",
        seed="a",
        weight=pytest.approx(_spec(2, 5)),
        kind="forward",
    )


def test_a_name_reached_through_a_longer_mention_counts_the_seed_in_its_df():
    corpus = {
        "x": (
            Passage("A letter to Sir John Smith."),
            entity_graph([("Sir John Smith", "PERSON")], light=True),
        ),
        "y": (Passage("He wrote letters.", title="John Smith"), entity_graph(light=True)),
    }
    found = _index(corpus).expand("Who got the letter?", ["x"], seeds=1, limit=5)
    assert found == [
        Expansion(
            id="y", via="john smith", seed="x", weight=pytest.approx(_spec(2, 2)), kind="forward"
        )
    ]


def test_the_passages_naming_the_seed_are_reached_backward_with_the_documented_weight():
    found = {e.id: e for e in _index().expand(QUERY, ["a"], seeds=1, limit=10)}
    # "charles mathew" is a key of a and a mention of d: df = 2 of N = 5.
    assert found["d"] == Expansion(
        id="d",
        via="charles mathew",
        seed="a",
        weight=pytest.approx(0.5 * _spec(2, 5)),
        kind="backward",
    )


def test_a_rare_shared_entity_links_unless_the_query_names_it():
    found = {e.id: e for e in _index().expand(QUERY, ["a"], seeds=1, limit=10)}
    assert found["c"] == Expansion(
        id="c",
        via="lincoln s inn",
        seed="a",
        weight=pytest.approx(0.5 * _spec(2, 5)),
        kind="shared",
    )
    named = _index().expand("Who studied at Lincoln's Inn?", ["a"], seeds=1, limit=10)
    assert "c" not in {e.id for e in named}


def test_an_entity_held_by_more_passages_than_max_shared_df_makes_no_shared_link():
    found = _index(max_shared_df=2).expand(QUERY, ["a"], seeds=1, limit=10)
    assert "c" in {e.id for e in found}  # df("lincoln s inn") = 2
    corpus = dict(
        CORPUS,
        f=(Passage("Lincoln's Inn again."), entity_graph([("Lincoln's Inn", "ORG")], light=True)),
    )
    found = _index(corpus, max_shared_df=2).expand(QUERY, ["a"], seeds=1, limit=10)
    assert "c" not in {e.id for e in found}


def test_a_name_held_by_more_than_max_link_df_passages_makes_no_link():
    also_cork = {
        pid: (Passage("Born in Cork."), entity_graph([("Cork", "GPE")], light=True))
        for pid in ("g", "h")
    }
    corpus = dict(CORPUS, **also_cork)  # df("cork") = 4: the key of e, mentioned by b, g, h
    # (a is reached from b backward: it names b's key "sir james charles mathew", df 2.)
    found = _index(corpus, max_link_df=4).expand(QUERY, ["b"], seeds=1, limit=9)
    assert {e.id for e in found} == {"a", "e", "g", "h"}
    found = _index(corpus, max_link_df=3).expand(QUERY, ["b"], seeds=1, limit=9)
    assert {e.id for e in found} == {"a"}


def test_results_are_ordered_by_weight_and_bounded_by_limit():
    found = _index().expand(QUERY, ["a"], seeds=1, limit=10)
    assert [e.id for e in found] == ["b", "c", "d"]  # c and d tie: ids decide
    assert [e.weight for e in found] == sorted((e.weight for e in found), reverse=True)
    assert [e.id for e in _index().expand(QUERY, ["a"], seeds=1, limit=2)] == ["b", "c"]
    assert _index().expand(QUERY, ["a"], seeds=1, limit=0) == []


def test_candidates_are_never_returned_and_only_the_first_seeds_expand():
    index = _index()
    assert [e.id for e in index.expand(QUERY, ["a", "b"], seeds=2, limit=10)] == ["e", "c", "d"]
    from_b_only = index.expand(QUERY, ["b", "a"], seeds=1, limit=10)
    assert [(e.id, e.seed, e.kind) for e in from_b_only] == [("e", "b", "forward")]
    assert index.expand(QUERY, ["b", "a"], seeds=0, limit=10) == []


def test_later_seeds_weigh_less_by_the_seed_decay():
    found = {e.id: e for e in _index(seed_decay=0.5).expand(QUERY, ["b", "a"], seeds=2, limit=10)}
    assert found["c"].seed == "a" and found["c"].weight == pytest.approx(0.5 * 0.5 * _spec(2, 5))


def test_unknown_candidate_ids_are_skipped_as_seeds_and_logged_at_debug(caplog):
    with caplog.at_level(logging.DEBUG, logger="cage_core.expansion.index"):
        found = _index().expand(QUERY, ["nope", "a"], seeds=1, limit=10)
    assert [e.seed for e in found] == ["a", "a", "a"]
    assert "1 candidate ids are not indexed" in caplog.text


def test_expansion_does_not_depend_on_insertion_order():
    reverse = dict(reversed(list(CORPUS.items())))
    assert _index(reverse).expand(QUERY, ["a", "d"], seeds=2, limit=10) == _index().expand(
        QUERY, ["a", "d"], seeds=2, limit=10
    )


def test_adding_an_id_again_replaces_its_entry_and_remove_forgets_it():
    index = _index()
    index.add("b", Passage("Nothing here.", title="Something else"), entity_graph(light=True))
    assert index.about("James Charles Mathew") == [] and index.about("something else") == ["b"]
    assert index.remove("c") and not index.remove("c") and "c" not in index
    assert [e.id for e in index.expand(QUERY, ["a"], seeds=1, limit=10)] == ["d"]


def test_without_titles_the_first_sentence_subject_still_links():
    corpus = {pid: (Passage(p.text), g) for pid, (p, g) in CORPUS.items()}
    index = _index(corpus)
    assert index.entry("b").keys == (
        "sir james charles mathew",
        "james charles mathew",
        "james mathew",
    )
    assert index.expand(QUERY, ["a"], seeds=1, limit=1)[0].id == "b"


def test_metadata_gives_the_subject_of_a_chunk_without_title():
    index = LinkIndex()
    entry = index.add(
        "m",
        Passage("He was born in Warsaw."),
        entity_graph([("Warsaw", "GPE")], light=True),
        metadata={"source": "docs/marie_curie.md"},
    )
    assert entry.keys == ("marie curie",) and index.about("Marie Curie") == ["m"]


def test_a_title_with_a_lone_surrogate_still_saves(tmp_path):
    index = LinkIndex()
    index.add("s", Passage("Text.", title="Bad\ud800 Title"), entity_graph(light=True))
    index.save(tmp_path / "links.jsonl")
    assert LinkIndex.load(tmp_path / "links.jsonl").entry("s").subject == "Bad? Title"


def test_names_are_compared_in_one_normal_form():
    assert normal_name("Kiss and Tell (1945 film)") == "kiss and tell"
    assert normal_name("  Lincoln's   Inn ") == "lincoln s inn"
    assert normal_name("Al") == "" and normal_name(" ".join(["w"] * 13)) == ""


def test_bad_arguments_are_clear_errors():
    index = _index()
    with pytest.raises(ValueError, match="seeds"):
        index.expand(QUERY, ["a"], seeds=-1, limit=5)
    with pytest.raises(ValueError, match="limit"):
        index.expand(QUERY, ["a"], seeds=1, limit=True)
    with pytest.raises(TypeError, match="candidates"):
        index.expand(QUERY, "a", seeds=1, limit=5)
    with pytest.raises(ValueError, match="passage id"):
        index.add("", Passage("x"), None)
    with pytest.raises(ValueError, match="passage id"):
        index.add("\ud800", Passage("x"), None)
    with pytest.raises(ValueError, match="seed_decay"):
        LinkWeights(seed_decay=0)
    with pytest.raises(ValueError, match="max_link_df"):
        LinkWeights(max_link_df=1)
    with pytest.raises(TypeError, match="LinkWeights.forward must be a number, got bool"):
        LinkWeights(forward=True)


# -- persistence -----------------------------------------------------------------------------


def test_save_and_load_round_trip_entries_and_expansions(tmp_path):
    index = _index()
    path = tmp_path / "links.jsonl"
    written = index.save(path)
    assert written == path.stat().st_size == index.stored_bytes()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    loaded = LinkIndex.load(path)
    assert list(loaded.entries()) == list(index.entries())
    assert loaded.expand(QUERY, ["a", "d"], seeds=2, limit=10) == index.expand(
        QUERY, ["a", "d"], seeds=2, limit=10
    )
    assert index.bytes_per_passage() == pytest.approx(written / 5)


def _stored(tmp_path, lines, header=None):
    path = tmp_path / "links.jsonl"
    header = header or {"format": "cage-link-index", "version": 1, "passages": len(lines)}
    path.write_bytes(
        b"\n".join(
            [json.dumps(header).encode()]
            + [ln if isinstance(ln, bytes) else ln.encode() for ln in lines]
        )
    )
    return path


GOOD = '{"id":"g","subject":"Good","keys":["good"],"mentions":["cork"]}'
HOSTILE = [
    "{not json",
    b'{"id":"x","subject":"X","keys":["\xff\xfe"],"mentions":[]}',  # not UTF-8
    '{"id":7,"subject":"X","keys":[],"mentions":[]}',  # wrong id type
    '{"id":"x","subject":"X","keys":"x","mentions":[]}',  # keys not a list
    '{"id":"x","subject":"X","keys":[1],"mentions":[]}',  # a name that is no string
    '{"id":"x","subject":"X","keys":["Not Normal"],"mentions":[]}',  # not in link_name form
    json.dumps({"id": "x", "subject": "X", "keys": ["y" * (MAX_NAME_CHARS + 1)], "mentions": []}),
    json.dumps(
        {
            "id": "x",
            "subject": "X",
            "keys": [f"k{i:03}" for i in range(MAX_KEYS + 1)],
            "mentions": [],
        }
    ),  # over the count limit
    '{"id":"x","subject":"X","keys":["aaa"],"mentions":["aaa"]}',  # key and mention at once
    '{"id":"x","subject":"X","keys":[],"mentions":[],"extra":1}',  # unknown field
    '["a list"]',
    '{"id":"\\ud800","subject":"X","keys":[],"mentions":[]}',  # a lone surrogate: not UTF-8
    json.dumps({"id": "x", "subject": "X", "keys": [], "mentions": ["z" * MAX_LINE_CHARS]}),
    GOOD,  # repeated id
]


def test_hostile_entries_are_skipped_with_one_summary_warning(tmp_path, caplog):
    path = _stored(tmp_path, [GOOD, *HOSTILE])
    with caplog.at_level(logging.WARNING, logger="cage_core.expansion.index"):
        index = LinkIndex.load(path)
    assert [e.id for e in index.entries()] == ["g"]
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and f"skipped {len(HOSTILE)} invalid entries" in warnings[0].message
    assert "repeated id" in warnings[0].message and "line is not JSON" in warnings[0].message


def test_a_header_count_that_does_not_match_is_reported(tmp_path, caplog):
    path = _stored(
        tmp_path, [GOOD], header={"format": "cage-link-index", "version": 1, "passages": 3}
    )
    with caplog.at_level(logging.WARNING, logger="cage_core.expansion.index"):
        assert len(LinkIndex.load(path)) == 1
    assert "announces 3 entries but 1 lines follow" in caplog.text


@pytest.mark.parametrize(
    "header, message",
    [
        ({"format": "cage-link-index", "version": 2, "passages": 0}, "version 2 is not 1"),
        ({"format": "something-else", "version": 1, "passages": 0}, "missing format tag"),
        ({"format": "cage-link-index", "version": 1, "passages": -1}, "passage count"),
        ({"format": "cage-link-index", "version": 1, "passages": "1"}, "passage count"),
    ],
)
def test_a_bad_header_is_a_clear_error(tmp_path, header, message):
    with pytest.raises(LinkIndexFormatError, match=message):
        LinkIndex.load(_stored(tmp_path, [GOOD], header=header))


def test_files_that_are_no_index_are_clear_errors(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    with pytest.raises(LinkIndexFormatError, match="empty"):
        LinkIndex.load(empty)
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_bytes(b"\x00" * (MAX_LINE_CHARS + 10))
    with pytest.raises(LinkIndexFormatError, match="not a cage link index"):
        LinkIndex.load(garbage)


# -- cage enrich ------------------------------------------------------------------------------

ROWS = [
    {
        "id": "mathew",
        "title": "Charles Mathew",
        "text": "Charles James Mathew (1872–1923) was a British barrister. "
        "He was the second son of Sir James Charles Mathew, a Lord Justice of Appeal.",
    },
    {
        "id": "father",
        "title": "James Charles Mathew",
        "text": "Sir James Charles Mathew (1830–1908) was an Irish judge. He was buried in Cork.",
    },
    {
        "id": "curie",
        "source": "docs/marie_curie.md",
        "text": "She was born in Warsaw and moved to Paris, where she met Pierre Curie.",
    },
]


@pytest.mark.models
def test_enrich_writes_the_link_index_next_to_the_graph_store(tmp_path):
    import io

    from cage_core.cli.commands import main

    src, store = tmp_path / "in.jsonl", tmp_path / "graphs.sqlite"
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    out = io.StringIO()
    args = [
        "enrich",
        "-i",
        str(src),
        "-o",
        str(tmp_path / "out.jsonl"),
        "--graph-store",
        str(store),
        "--link-index",
        "--no-progress",
    ]
    assert main(args, out=out) == 0
    assert "wrote 3 link entries to the link store" in out.getvalue()
    index = LinkIndex.open(tmp_path / "graphs.links.sqlite")  # a SQLite store by default
    assert index.about("Marie Curie") == ["curie"]  # from the source file name
    found = index.expand("Where was Charles Mathew's father buried?", ["mathew"], seeds=1, limit=5)
    assert [(e.id, e.via, e.kind) for e in found] == [("father", "james charles mathew", "forward")]


def test_enrich_without_a_graph_store_needs_a_link_index_path(tmp_path, capsys):
    from cage_core.cli.commands import main

    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(ROWS[0]) + "\n")
    assert main(["enrich", "-i", str(src), "-o", str(tmp_path / "o.jsonl"), "--link-index"]) == 2
    assert "--link-index without a path needs --graph-store" in capsys.readouterr().err


@settings(max_examples=3000, deadline=None)
@given(
    st.text(alphabet=string.ascii_letters + string.digits + "_ ()-.'\t\né", max_size=40)
    | st.lists(st.sampled_from(["ab", "c", "x_1", "de", "a" * 60]), max_size=14).map(" ".join)
)
def test_a_stored_name_is_valid_exactly_when_it_is_its_own_normal_name(name):
    """The reader's fast check of ASCII names agrees with normal_name everywhere."""
    is_normal_name.cache_clear()
    assert is_normal_name(name) == (normal_name(name) == name)
