"""Work started ahead, on a thread, while the caller waits on something else.

A routed question needs the question less its naming words embedded; the route is known before
the base retriever runs (:func:`~cage_core.integrations.document_routing.route_for` reads only
the question), so the expansion retrievers embed it on a worker thread while the base
retriever embeds and searches the question itself: on a machine with a spare core the
shortened question costs nothing in wall time; on a loaded one, no more than embedding it
afterwards. The models release the GIL while they compute; the packaged ones are thread-safe
(:mod:`cage_core.models`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

__all__ = [
    "AHEAD_WORKERS",
    "ahead",
    "result_or_none",
]

logger = logging.getLogger(__name__)

AHEAD_WORKERS = 4
"""Threads of the process-wide pool that runs work ahead (created on first use)."""

T = TypeVar("T")
_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None


def ahead(work: Callable[[], T]) -> Future[T]:
    """Start ``work`` on the process-wide worker pool; its result is read with
    :func:`result_or_none`."""
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(AHEAD_WORKERS, thread_name_prefix="cage-ahead")
        return _pool.submit(work)


def result_or_none(future: Future[T] | None) -> T | None:
    """The result of work started :func:`ahead`; ``None`` when there was none or it failed
    (logged at debug level: the caller then does the work itself)."""
    if future is None:
        return None
    try:
        return future.result()
    except Exception as exc:
        logger.debug("work started ahead failed (%s); it is done again", exc)
        return None
