"""English language data (cage_core.lang.en): one list per concept, one name shortening in two
named styles, string rules that switch off by name."""

import pytest

from cage_core import CageConfig, Passage
from cage_core.cli.commands import build_parser
from cage_core.cli.options import config_from_args
from cage_core.expansion.index import name_aliases
from cage_core.lang.en import (
    EXPANSION_ALIASES,
    RANKING_ALIASES,
    STRING_RULES,
    shortened_names,
)
from cage_core.names.subjects import derive_subject, first_sentence_subject, subject_aliases
from cage_core.ranking.untitled_core import subject_forms


def test_the_two_alias_styles_differ_only_where_named():
    assert RANKING_ALIASES.titles - EXPANSION_ALIASES.titles == {"rev", "reverend"}
    assert EXPANSION_ALIASES.titles - RANKING_ALIASES.titles == {"saint", "st"}


def test_ranking_shortens_every_title_and_suffix_and_makes_partial_forms():
    assert shortened_names("Sir Rev Paul Manafort Jr".split(), RANKING_ALIASES) == (
        ["Paul", "Manafort"],
        [],
    )  # two words left: no short forms
    assert shortened_names("Sela Ann Ward".split(), RANKING_ALIASES) == (
        ["Sela", "Ann", "Ward"],
        ["Sela Ward", "Sela Ann", "Ann Ward"],
    )
    assert subject_aliases("Rev. Martin Luther King") == (
        "luther king",
        "martin king",
        "martin luther",
        "martin luther king",
        "rev. martin luther king",
    )


def test_expansion_drops_one_title_and_shortens_three_to_five_capitalised_words():
    assert name_aliases("Sir James Charles Mathew") == ["James Charles Mathew", "James Mathew"]
    assert name_aliases("St Louis Blues Club") == ["Louis Blues Club", "Louis Club"]
    assert name_aliases("Robert A Stemmle") == ["Robert Stemmle"]
    assert name_aliases("University of Cambridge") == []
    assert name_aliases("A B C D E F") == []  # six words: no short form


def test_each_alias_rule_switches_off_by_name():
    every = STRING_RULES
    assert subject_aliases("Sir Arthur Conan Doyle") == (
        "arthur conan",
        "arthur conan doyle",
        "arthur doyle",
        "conan doyle",
        "sir arthur conan doyle",
    )
    assert subject_aliases("Sir Arthur Conan Doyle", every - {"honorifics"}) == (  # "Sir" is a word
        "conan doyle",
        "sir arthur",
        "sir arthur conan doyle",
        "sir conan doyle",
        "sir doyle",
    )
    assert subject_aliases("Sela Ann Ward", every - {"short_forms"}) == ("sela ann ward",)
    assert subject_aliases("Acme Group Holdings Inc", every - {"name_suffixes", "short_forms"}) == (
        "acme group holdings inc",
    )
    texts = ["Damon Gough, known by the stage name Badly Drawn Boy, is a singer."]
    assert subject_forms(["Damon Gough"], texts, aliases=True)[0][-1] == "Badly Drawn Boy"
    assert (
        "Badly Drawn Boy"
        not in subject_forms(["Damon Gough"], texts, aliases=True, rules=every - {"also_known_as"})[
            0
        ]
    )


def test_subject_rules_switch_off_by_name():
    quoted = Passage('"Hello, World" is a phrase.')
    assert derive_subject(quoted).name == "Hello, World"
    assert first_sentence_subject(quoted.text, False) == "Hello"  # the run ends at the comma
    assert derive_subject(quoted, rules=STRING_RULES - {"quoted_subject"}).name == "Hello"
    plain = Passage("Marie Curie was a physicist.")
    assert derive_subject(plain, rules=STRING_RULES - {"first_sentence_subject"}).origin == ""


def test_cage_eval_ablates_a_rule_by_name():
    args = build_parser().parse_args(
        [
            "eval",
            "--data",
            "x.jsonl",
            "--ablate-rule",
            "short_forms",
            "--ablate-rule",
            "also_known_as",
        ]
    )
    assert config_from_args(args).string_rules == STRING_RULES - {"short_forms", "also_known_as"}
    assert (
        config_from_args(build_parser().parse_args(["eval", "--data", "x.jsonl"])) == CageConfig()
    )
    with pytest.raises(SystemExit):
        build_parser().parse_args(["eval", "--data", "x.jsonl", "--ablate-rule", "nonsense"])


def test_string_rules_are_validated():
    with pytest.raises(ValueError, match="unknown rules"):
        CageConfig(string_rules=frozenset({"nonsense"}))
    with pytest.raises(TypeError, match="frozenset"):
        CageConfig(string_rules={"short_forms"})
