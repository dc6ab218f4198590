"""The expansion retrievers' one implementation runs its steps in both forms
(:mod:`cage_core.integrations.expanded_pool`): a sync run calls each step's sync form, an async
run awaits its async form, and a step without one runs on a worker thread."""

from __future__ import annotations

import asyncio
import threading

from cage_core.integrations.expanded_pool import Call, arun, run


def _steps(log: list[str]):
    first = yield Call(lambda: log.append("sync 1") or 1, _async(log, "async 1", 1))
    second = yield Call(lambda: (log.append("sync 2"), threading.current_thread().name)[1])
    return first, second


def _async(log: list[str], entry: str, value: int):
    async def call() -> int:
        log.append(entry)
        return value

    return call


def test_a_sync_run_calls_every_step_in_its_sync_form_on_the_callers_thread():
    log: list[str] = []
    assert run(_steps(log)) == (1, threading.current_thread().name)
    assert log == ["sync 1", "sync 2"]


def test_an_async_run_awaits_the_async_forms_and_threads_the_others():
    log: list[str] = []
    first, thread = asyncio.run(arun(_steps(log)))
    assert (first, log) == (1, ["async 1", "sync 2"])
    assert thread != threading.main_thread().name
