"""The name rules ingest and query time share (cage_core.names): one form per word."""

import pytest

from cage_core.names.forms import (
    MIN_NAME_CHARS,
    bare_title,
    is_normal_name,
    normal_name,
    normal_text,
    words,
    written_title,
)
from cage_core.names.may_link import MIN_MAY_LINK_CHARS, may_link


def test_a_title_loses_its_qualifier_as_written_and_lower_cased():
    assert written_title("Kiss and Tell (1945 film)") == "Kiss and Tell"
    assert bare_title("Kiss and Tell (1945 film)") == "kiss and tell"


def test_the_normal_form_joins_the_lower_cased_words_of_the_bare_title():
    assert words("Lincoln's Inn, 1872–1923") == ["Lincoln", "s", "Inn", "1872", "1923"]
    assert normal_name("Lincoln's  Inn (London)") == "lincoln s inn"
    assert (
        normal_text("Called to the bar at Lincoln's Inn.") == "called to the bar at lincoln s inn"
    )


@pytest.mark.parametrize("name", ["lincoln s inn", "", "u2 band", "Lincoln s inn", "al", "a  b"])
def test_a_stored_name_is_normal_exactly_when_it_is_its_own_normal_form(name):
    assert is_normal_name(name) == (normal_name(name) == name)


def test_a_two_character_name_may_link_but_is_never_looked_for_in_a_text():
    """MIN_MAY_LINK_CHARS says whether a string is a name; MIN_NAME_CHARS whether a name is
    long enough to be matched in a text or keyed in the link index."""
    assert (MIN_MAY_LINK_CHARS, MIN_NAME_CHARS) == (2, 3)
    assert may_link("U2") and normal_name("U2") == ""
    assert not may_link("A") and not may_link("$") and not may_link("str | None")
    assert may_link("Kiss and Tell (1945 film)") and normal_name("Kiss and Tell") == "kiss and tell"
