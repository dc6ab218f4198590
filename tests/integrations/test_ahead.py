"""Work started ahead on a worker thread (cage_core.integrations.ahead)."""

import threading

from cage_core.integrations.ahead import ahead, result_or_none


def test_work_runs_on_a_worker_thread_and_gives_its_result():
    caller = threading.get_ident()
    assert result_or_none(ahead(lambda: threading.get_ident() != caller)) is True


def test_failed_or_absent_work_gives_none():
    def fails():
        raise RuntimeError("model not loaded")

    assert result_or_none(ahead(fails)) is None
    assert result_or_none(None) is None
