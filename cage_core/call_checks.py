"""The checks of a rerank call's arguments: each returns the value in the form the reranker
uses, or raises a ``TypeError`` / ``ValueError`` that names the argument and what it must be.

A rerank call is checked once, where it enters (:func:`checked_pool`), and its pool goes down
as one typed value, :class:`CheckedPool`: nothing below converts or checks it again."""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

from cage_core.passage import Passage, PassageLike, as_passages

__all__ = [
    "CheckedPool",
    "check_max_pool",
    "check_pool_size",
    "check_query",
    "check_similarities",
    "check_top_n",
    "checked_pool",
]


@dataclass(frozen=True, eq=False)
class CheckedPool:
    """One rerank call's pool, checked once (:func:`checked_pool`) and passed down as is.

    Attributes:
        query: the question as asked.
        question: what the pool is ranked for: ``query`` less the words that name the documents
            it was routed to (:class:`~cage_core.names.routes.DocumentRoute`), else ``query``.
        passages: the pool, in the caller's order.
        similarities: ``[k]`` float64 similarities of ``question`` and each passage, checked;
            ``None``: not given, the reranker embeds them.
        named: per passage, whether the question names its document (those rank first:
            :mod:`cage_core.ranking.named_documents`); ``None``: the pool was not routed.
        asked_similarities: of a routed pool, ``[k]`` float64 similarities of ``query`` (the
            question as asked) and each passage, where the caller has them (the retriever's
            own scores): the 0–1 score's evidence reads them too (:mod:`cage_core.relevance`);
            ``None`` otherwise.
    """

    query: str
    question: str
    passages: tuple[Passage, ...]
    similarities: np.ndarray | None = None
    named: tuple[bool, ...] | None = None
    asked_similarities: np.ndarray | None = None

    @property
    def routed(self) -> bool:
        """Whether the pool was routed to documents the question names."""
        return self.named is not None

    def with_similarities(
        self,
        values: Sequence[float] | np.ndarray,
        asked: Sequence[float] | np.ndarray | None = None,
    ) -> CheckedPool:
        """This pool with ``values`` as its similarities and, of a routed pool, ``asked`` as
        the similarities of the question as asked (each checked: :func:`check_similarities`;
        ``asked`` of a pool that was not routed is ignored: its ``values`` are those)."""
        k = len(self.passages)
        asked_values = check_similarities(asked, k) if asked is not None and self.routed else None
        return dataclasses.replace(
            self, similarities=check_similarities(values, k), asked_similarities=asked_values
        )


def checked_pool(
    query: object,
    passages: Sequence[PassageLike],
    max_pool: int | None,
    similarities: Sequence[float] | np.ndarray | None = None,
    *,
    question: str | None = None,
    named_ids: Collection[str] | None = None,
) -> CheckedPool:
    """The pool of one rerank call, every argument checked once: ``passages`` (str or
    :class:`~cage_core.passage.Passage`, :func:`~cage_core.passage.as_passages`), ``query``,
    the pool's size against ``max_pool`` (``None``: no bound) and ``similarities`` when given.
    With ``named_ids`` (the documents a route names) the pool is ranked for ``question``
    and ``named`` marks the passages whose ``doc_id`` is one of them."""
    items = tuple(as_passages(passages))
    asked = check_query(query)
    check_pool_size(len(items), max_pool)
    sims = None if similarities is None else check_similarities(similarities, len(items))
    if named_ids is None:
        return CheckedPool(asked, asked, items, sims)
    named = tuple(p.doc_id is not None and p.doc_id in named_ids for p in items)
    return CheckedPool(asked, asked if question is None else question, items, sims, named)


def check_query(query: object) -> str:
    """``query``, a ``str`` with a character that is not a space: a blank query asks nothing,
    and a ranking for it (every passage equally unrelated) would look like an answer."""
    if not isinstance(query, str):
        raise TypeError(f"query must be a str, got {type(query).__name__}")
    if not query.strip():
        raise ValueError(f"the query is blank ({query!r}): there is nothing to rank passages for")
    return query


def check_top_n(top_n: object) -> int | None:
    if top_n is None:
        return None
    if isinstance(top_n, bool) or not isinstance(top_n, (int, np.integer)):
        raise TypeError(f"top_n must be an int or None, got {type(top_n).__name__}")
    if top_n < 0:
        raise ValueError(f"top_n must be >= 0 or None, got {top_n}")
    return int(top_n)


def check_max_pool(max_pool: object) -> int | None:
    if max_pool is None:
        return None
    if isinstance(max_pool, bool) or not isinstance(max_pool, (int, np.integer)):
        raise TypeError(f"max_pool must be an int or None, got {type(max_pool).__name__}")
    if max_pool < 1:
        raise ValueError(f"max_pool must be >= 1 or None, got {max_pool}")
    return int(max_pool)


def check_pool_size(k: int, max_pool: int | None) -> None:
    if max_pool is not None and k > max_pool:
        raise ValueError(
            f"a pool of {k} passages is larger than max_pool={max_pool}: ranking costs memory "
            f"and time that grow with the square of the pool (docs/limits.md); rerank the "
            f"{max_pool} most similar passages, or pass CageReranker(max_pool=None) to lift "
            f"the bound"
        )


def check_similarities(values: Sequence[float] | np.ndarray, k: int) -> np.ndarray:
    """``values`` as ``[k]`` float64: real numbers only (int, float, numpy numbers; not bool,
    str, complex or Decimal), finite, one per passage."""
    try:
        raw = np.asarray(values)
    except (TypeError, ValueError):
        raise TypeError("query_similarities must be a sequence of numbers") from None
    if raw.dtype == object:
        bad = [i for i, v in enumerate(raw.ravel()) if not _is_real(v)]
        if bad:
            raise TypeError(
                f"query_similarities must be a sequence of numbers (int or float), "
                f"got {type(raw.ravel()[bad[0]]).__name__} at position {bad[0]}"
            )
    elif raw.dtype.kind not in "iuf":
        raise TypeError(
            f"query_similarities must be a sequence of numbers (int or float), "
            f"got values of dtype {raw.dtype}"
        )
    try:
        arr = raw.astype(np.float64)
    except OverflowError:  # an int beyond the float range
        raise ValueError(
            "query_similarities must be finite; an int beyond the float range"
        ) from None
    if arr.ndim != 1 or arr.shape[0] != k:
        raise ValueError(
            f"query_similarities has shape {arr.shape}; expected one value for "
            f"each of the {k} passages"
        )
    if not np.isfinite(arr).all():
        bad_at = [i for i, v in enumerate(arr) if not math.isfinite(v)]
        raise ValueError(f"query_similarities must be finite; NaN/inf at positions {bad_at[:10]}")
    return arr


def _is_real(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
