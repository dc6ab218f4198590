"""Steps written once, run sync or async: a generator yields the :class:`Call` s it waits on
(a store, a retriever, a model) and receives their results; :func:`run` drives it with each
call's sync form, :func:`arun` awaits each call's async form (a call without one runs on a
worker thread). What a call raises is raised at its ``yield``, so the steps may catch it.
:class:`~cage_core.integrations.expanded_pool.ExpandedPool` is written so, and the two paths
cannot drift apart.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

__all__ = ["Call", "Steps", "arun", "run"]

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)

Steps = Generator["Call[Any]", Any, T]


@dataclass(frozen=True)
class Call(Generic[T_co]):
    """One step that waits on a store, a retriever or a model: ``sync()``, or ``await
    asynchronous()`` (``None``: ``sync`` on a worker thread)."""

    sync: Callable[[], T_co]
    asynchronous: Callable[[], Awaitable[T_co]] | None = None


def run(steps: Steps[T]) -> T:
    """The result of ``steps``, each call run in its sync form."""
    try:
        call = next(steps)
        while True:
            try:
                value = call.sync()
            except Exception as exc:
                call = steps.throw(exc)
            else:
                call = steps.send(value)
    except StopIteration as stop:
        return stop.value


async def arun(steps: Steps[T]) -> T:
    """The result of ``steps``, each call awaited in its async form."""
    try:
        call = next(steps)
        while True:
            try:
                if call.asynchronous is None:
                    value = await asyncio.to_thread(call.sync)
                else:
                    value = await call.asynchronous()
            except Exception as exc:
                call = steps.throw(exc)
            else:
                call = steps.send(value)
    except StopIteration as stop:
        return stop.value
