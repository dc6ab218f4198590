"""What a passage is about: title, metadata, first-sentence subject, central entity."""

import pytest
from graphs import entity_graph

from cage_core import Passage
from cage_core.names.subjects import (
    MAX_SUBJECT_CHARS,
    Subject,
    also_known_as,
    derive_subject,
    first_sentence_subject,
    passage_subject,
)

MARIE = "Marie Curie (born Maria Skłodowska; 1867–1934) was a physicist and chemist."


def test_the_title_wins_over_everything_else():
    passage = Passage(text=MARIE, title="Marie Curie (physicist)")
    assert derive_subject(passage, metadata={"title": "Other"}) == Subject(
        "Marie Curie (physicist)", "title"
    )


def test_metadata_keys_are_read_in_their_documented_order():
    passage = Passage(text="He was born in Warsaw.")
    metadata = {
        "section": "Early life",
        "source": "docs/marie_curie.pdf",
        "Header 1": "Marie Curie",
    }
    assert derive_subject(passage, metadata=metadata) == Subject(
        "Marie Curie", "metadata", "Header 1"
    )
    del metadata["Header 1"]
    assert derive_subject(passage, metadata=metadata) == Subject(
        "marie curie", "metadata", "source"
    )
    del metadata["source"]
    assert derive_subject(passage, metadata=metadata) == Subject(
        "Early life", "metadata", "section"
    )


def test_non_string_and_blank_metadata_values_are_ignored():
    passage = Passage(text=MARIE)
    subject = derive_subject(passage, metadata={"title": 7, "source": "  ", "heading": None})
    assert subject == Subject("Marie Curie", "first_sentence")


@pytest.mark.parametrize(
    "text, subject",
    [
        (MARIE, "Marie Curie"),
        ("Anthony Robinson( 1762–1827) was an English Unitarian minister.", "Anthony Robinson"),
        (
            "Charles James Mathew, CBE, KC (24 October 1872) was a barrister.",
            "Charles James Mathew",
        ),
        ("Meet Corliss Archer is an American television sitcom.", "Meet Corliss Archer"),
        ('"Q" Is for Quarry is the 17th novel in the series.', "Q Is for Quarry"),
        ("The 1953 Georgia Tech football team represented the institute.", "1953 Georgia Tech"),
        ("1-Hexanol is an organic alcohol.", "1-Hexanol"),
        ("The Beatles were an English rock band.", "Beatles"),
        (
            "The 2016–17 Vermont Catamounts men's basketball team represented the university.",
            "2016–17 Vermont Catamounts",
        ),  # an en dash inside a word, a listed verb
        (
            '"On My Mind" is a song by Ellie Goulding.',
            "On My Mind",
        ),  # a quoted title, function word first
        ('"The Hard Easy" is an episode of "Adventure Time".', "Hard Easy"),
        (
            "For Against is a post-punk band from Lincoln, Nebraska.",
            "For Against",
        ),  # title case + copula
        ("The Five Obstructions is a 2003 Danish documentary film.", "Five Obstructions"),
        (
            "Silene menziesii is a species of flowering plant.",
            "Silene menziesii",
        ),  # a binomial name
    ],
)
def test_first_sentence_subject_of_wikipedia_style_openings(text, subject):
    assert first_sentence_subject(text) == subject


@pytest.mark.parametrize(
    "text",
    [
        "He was born in Warsaw.",
        "In 1990, the company moved to Paris.",
        "However, the plan failed.",
        "Four referendums were held in Switzerland during 1957.",
        "1957 was a year.",
        "the lower-case opening is no name.",
        "A member of the London County Council since 1910, Mathew was also a member.",
        "In March 1990 it was sold.",  # a function word first, and no title-cased name
        "It Was Late is what he said.",  # a pronoun first, even in title case
        "",
    ],
)
def test_openings_without_a_named_subject_give_nothing(text):
    assert first_sentence_subject(text) == ""


@pytest.mark.parametrize(
    "text, names",
    [
        (
            "Daryl Franklin Hohl (born 1946), known professionally as Daryl Hall, is a singer.",
            ("Daryl Hall",),
        ),
        ("The University of Kansas, often referred to as KU or Kansas, is a university.", ("KU",)),
        (
            "Park Mi-yeon (born 1990), better known by the stage name Serri, is a singer.",
            ("Serri",),
        ),
        ("It is known as the best of all.", ()),  # no capitalised name after the phrase
    ],
)
def test_the_opening_gives_the_other_names_a_subject_is_known_by(text, names):
    assert also_known_as(text) == names


def test_without_a_first_sentence_subject_the_most_frequent_entity_is_the_subject():
    text = (
        "In 1903, she shared the Nobel Prize with Pierre Curie. Pierre Curie was a physicist; "
        "the Nobel Prize in 1911 went to her alone. Pierre Curie died in 1906."
    )
    graph = entity_graph(
        [
            ("1903", "DATE"),
            ("Nobel Prize", "WORK_OF_ART"),
            ("Pierre Curie", "PERSON"),
            ("1911", "DATE"),
            ("1906", "DATE"),
        ],
        light=True,
    )
    assert derive_subject(Passage(text=text), graph) == Subject("Pierre Curie", "entity")


def test_entity_ties_go_to_the_earliest_occurrence_and_numbers_never_count():
    text = "In 1903 and 1903 and 1903, Warsaw met Paris."
    graph = entity_graph([("1903", "DATE"), ("Paris", "GPE"), ("Warsaw", "GPE")], light=True)
    assert passage_subject(Passage(text=text), graph) == "Warsaw"


def test_nothing_found_is_an_empty_subject():
    assert derive_subject(Passage(text="he said so.")) == Subject("", "")
    assert derive_subject(
        Passage(text="he said so."), entity_graph([("1903", "DATE")], light=True)
    ) == Subject("", "")


def test_subjects_are_bounded_and_whitespace_normalised():
    subject = passage_subject(Passage(text="x", title="  A\n  title " + "y" * 500))
    assert subject.startswith("A title y") and len(subject) == MAX_SUBJECT_CHARS
