"""Language data, apart from the algorithms that read it (as spaCy's ``lang/``).

:mod:`cage_core.lang.en` holds the English word lists, the named string rules that can be
switched off (:data:`~cage_core.lang.en.STRING_RULES`) and the one function that shortens
names for ranking and for expansion (:func:`~cage_core.lang.en.shortened_names`).
"""

__all__: list[str] = []
