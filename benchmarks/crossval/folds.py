"""Folds: which of the K parts of the DEV questions a question is held out in.

A question's fold is a hash of its id, ``blake2b(id, 4 bytes) mod K`` — never its dataset, and
the same fold in every setting (closed, open, with or without titles) the question appears
in, so no setting of a question is trained on while another is scored.
``link_expansion.py``, the oldest tuning script, drew its folds by a seeded shuffle instead
(:func:`shuffled_folds`); its quoted figures are reproduced with that.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

__all__ = ["FOLDS", "fold_array", "fold_of", "shuffled_folds"]

FOLDS = 5
"""Folds of every cross-validation here."""


def fold_of(question_id: str, folds: int = FOLDS) -> int:
    """The fold of the question ``question_id``:
    ``blake2b(id, 4 bytes, little-endian) mod folds``."""
    digest = hashlib.blake2b(question_id.encode(), digest_size=4).digest()
    return int.from_bytes(digest, "little") % folds


def fold_array(question_ids: Iterable[str], folds: int = FOLDS) -> np.ndarray:
    """:func:`fold_of` of each id, as an int array (one per pool)."""
    return np.array([fold_of(q, folds) for q in question_ids], dtype=np.int64)


def shuffled_folds(keys: Sequence[Any], seed: int = 0, folds: int = FOLDS) -> dict[Any, int]:
    """Folds by a seeded shuffle: the distinct ``keys``, sorted, shuffled by
    ``random.Random(seed)``, then dealt round-robin (``n mod folds``)."""
    order = sorted(set(keys))
    random.Random(seed).shuffle(order)
    return {key: n % folds for n, key in enumerate(order)}
