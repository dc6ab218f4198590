"""Rule-based pronoun resolution on real parses."""

import pytest

from cage_core.graphs.pronouns import resolve_pronouns


def _resolved(nlp, text):
    doc = nlp(text)
    return {doc[i].text: doc[j].text for i, j in resolve_pronouns(doc).items()}


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Marie Curie was born in Warsaw. She won the Nobel Prize.", {"She": "Curie"}),
        ("Albert Einstein was a physicist. His theory changed physics.", {"His": "Einstein"}),
        ("The telescope was built in 1990. It was launched into orbit.", {"It": "telescope"}),
        ("Google bought a startup. They paid a lot.", {"They": "Google"}),
    ],
)
def test_pronoun_resolves_to_nearest_compatible_mention(nlp, text, expected):
    assert _resolved(nlp, text) == expected


def test_person_pronoun_skips_non_person_mentions(nlp):
    # "Warsaw" is nearer but is a place, so "she" goes to the person.
    assert _resolved(nlp, "Marie Curie lived in Warsaw. She studied physics.") == {"She": "Curie"}


def test_unresolvable_pronouns_are_left_out(nlp):
    assert _resolved(nlp, "She won the prize. I was there.") == {}
