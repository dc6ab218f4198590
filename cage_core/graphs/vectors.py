"""Node word vectors, derived from a node's label and the pipeline's vocabulary.

Only the R-GCN reads word vectors, so graphs are built and stored without them and get
them attached on demand (:meth:`cage_core.graphs.parse.GraphParser.with_vectors`). The
vector of a label depends on nothing but the label and the vocabulary, so a stored graph
gets exactly the vectors a fresh parse would:

* the label is split by the pipeline's tokenizer; one token: the vocabulary's row for the
  label, else for its lower-cased form; several tokens: the mean of the rows of the tokens
  that have one;
* the result is cut or zero-padded to ``dim`` and L2-normalised;
* a label without any vector gets :func:`hashed_vector` of its lower-cased form;
* values are rounded to float16 precision (so vectors are the same on every platform).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from spacy.language import Language

__all__ = [
    "LABEL_CACHE_SIZE",
    "LabelVectors",
    "hashed_vector",
]

LABEL_CACHE_SIZE = 100_000
"""Label vectors kept per :class:`LabelVectors` (labels repeat across passages)."""


def hashed_vector(key: str, dim: int) -> np.ndarray:
    """A stable unit vector for a word with no pipeline vector (same key → same vector)."""
    seed = int.from_bytes(hashlib.blake2b(key.encode("utf-8"), digest_size=8).digest(), "little")
    vec = np.random.default_rng(seed).standard_normal(dim)
    return vec / np.linalg.norm(vec)


def _fit_width(vec: np.ndarray, dim: int) -> np.ndarray:
    """Truncate or zero-pad a vector to ``dim`` (pipelines with other vector widths)."""
    if vec.shape[0] >= dim:
        return vec[:dim]
    return np.concatenate([vec, np.zeros(dim - vec.shape[0])])


class LabelVectors:
    """``labels → [n, dim]`` float32 vectors (see the module docstring); thread-safe, cached."""

    def __init__(self, nlp: Language, dim: int) -> None:
        self.nlp = nlp
        self.dim = dim
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, labels: Sequence[str]) -> np.ndarray:
        if not labels:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.vector(label) for label in labels])

    def vector(self, label: str) -> np.ndarray:
        """The float32 (float16-exact) unit vector of one label."""
        with self._lock:
            found = self._cache.get(label)
            if found is not None:
                self._cache.move_to_end(label)
                return found
            vec = self._derive(label)
            self._cache[label] = vec
            if len(self._cache) > LABEL_CACHE_SIZE:
                self._cache.popitem(last=False)
            return vec

    def _derive(self, label: str) -> np.ndarray:
        from spacy.strings import get_string_id

        vectors = self.nlp.vocab.vectors
        found: list[np.ndarray] = []
        if vectors.size:
            words = [t for t in self.nlp.tokenizer(label) if not t.is_space]
            if len(words) <= 1:
                for candidate in (label, label.lower()):
                    row = vectors.key2row.get(get_string_id(candidate), -1)
                    if row >= 0:
                        found.append(np.asarray(vectors.data[row], dtype=np.float64))
                        break
            else:
                found = [
                    np.asarray(w.lex.vector, dtype=np.float64) for w in words if w.lex.has_vector
                ]
        vec = None
        if found:
            vec = _fit_width(np.mean(found, axis=0), self.dim)
            norm = np.linalg.norm(vec)
            vec = vec / norm if norm > 0 and np.isfinite(norm) else None
        if vec is None:
            vec = hashed_vector(label.lower(), self.dim)
        return vec.astype(np.float16).astype(np.float32)
