"""What counts as debris (cage_core.names.may_link.is_debris): the strings a parser labels as
entities in package documentation that are no names, and the names that look like them."""

import pytest

from cage_core.names.may_link import is_debris, may_link

DEBRIS = {
    "a Python literal": ["None", "True", "False", "null", "undefined", "NaN", "Ellipsis"],
    "a Python built-in name": ["str", "dict", "kwargs", "self"],
    "a number literal": ["1e-9", "2e-5", "0xFFFFFFFF", "3.14", "2j", "-137723950"],
    "a call": ["Depends(get_db)", "foo()", "MultinomialNB(alpha=.01", "require('follow"],
    "a dotted identifier": ["io.StringIO", "np.array", "Fore.RED", "sklearn.datasets"],
    "an import": ["io import StringIO", "from typing import Annotated", "import numpy as np"],
    "an operator or markup": ["str | None", "std::vector", "a && b", "**kwargs", "[link]"],
    "an identifier": ["snake_case", "RESET_ALL", "maxRedirects", "responseUrl", "toString"],
    "a user handle": ["@tiangolo", "@hajimes"],
    "a path or file name": ["/usr/lib", "C:\\temp", "~/data", "miniconda3/envs/tmp"],
    "a file name": ["setup.py", "README.md", "data_config.json"],
    "a flag or attribute": ["--persistent", "-s", ".write"],
    "a URL or address": ["https://pypi.org/x", "www.shodan.io", "mailto:ada", "chrome://inspect"],
}
NAMES = {
    "initials and abbreviations": ["U.S.", "J.R.R. Tolkien", "Ph.D.", "Washington, D.C."],
    "a name with a short suffix": ["Amazon.com", "Node.js", "Last.fm"],
    "camel case that names": ["FastAPI", "YouTube", "McDonald", "iPhone", "eBay", "mRNA"],
    "camel case inside a name": ["Neil deGrasse Tyson", "macOS"],
    "names with digits or signs": ["3M", "U2", "mmh3", "C++", "AT&T", ".NET", "Python 3.8"],
    "names with a colon or qualifier": ["Star Wars: A New Hope", "Kiss and Tell (1945 film)"],
    "a sentence with import": ["How to import data"],
    "a built-in name that is an English word": ["Set", "List", "list", "object"],
}


@pytest.mark.parametrize(
    "kind, text", [(kind, text) for kind, texts in DEBRIS.items() for text in texts]
)
def test_debris_is_never_a_name(kind, text):
    assert is_debris(text), kind
    assert not may_link(text), kind


@pytest.mark.parametrize(
    "kind, text", [(kind, text) for kind, texts in NAMES.items() for text in texts]
)
def test_names_that_look_like_code_are_no_debris(kind, text):
    assert not is_debris(text), kind
    assert may_link(text), kind


def test_literals_are_compared_lower_cased_and_only_whole():
    assert is_debris("NONE") and is_debris("none")
    assert not is_debris("None of the Above") and not is_debris("TrueType")


def test_what_is_no_string_is_debris():
    assert is_debris(None) and is_debris(3)  # type: ignore[arg-type]
