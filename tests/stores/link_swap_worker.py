"""A link-store writer that tests/stores/test_link_store_failsafe.py runs as a real process.

    python tests/stores/link_swap_worker.py STORE_PATH OPTIONS_JSON

It opens (creates) the store, adds ``OPTIONS["first"]`` entries, creates ``OPTIONS["ready"]``,
waits for ``OPTIONS["go"]`` (meanwhile the test replaces or deletes the file), then tries to
add ``OPTIONS["second"]`` entries and to read one back, and prints one JSON line: what each
attempt gave (``"ok"`` or the error's class and message). It then closes the store and
exits 0. Like tests/link_store_worker.py, it imports the store without the package
``__init__`` (which loads torch).
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

if __name__ == "__main__":
    for name in ("cage_core", "cage_core.graphs"):
        package = types.ModuleType(name)
        package.__path__ = [str(ROOT.joinpath(*name.split(".")))]
        sys.modules[name] = package

import json
import os
import time

from cage_core.expansion.index import LinkEntry, LinkIndex

WAIT_S = 30.0


def batch(prefix: str, count: int) -> list[LinkEntry]:
    """``count`` entries ``{prefix}0..``, each about ``"{prefix} person {i}"`` and mentioning the
    next one."""
    return [
        LinkEntry(
            f"{prefix}{i}",
            f"{prefix} person {i}",
            (f"{prefix} person {i}",),
            (f"{prefix} person {i + 1}",),
        )
        for i in range(count)
    ]


def _outcome(call) -> str:
    try:
        call()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return "ok"


def main() -> None:
    path, options = sys.argv[1], json.loads(sys.argv[2])
    index = LinkIndex.open(path, create=True)
    index.add_entries(batch(options["prefix"], options["first"]))
    Path(options["ready"]).touch()
    deadline = time.monotonic() + WAIT_S
    while not os.path.exists(options["go"]):
        if time.monotonic() > deadline:
            sys.exit("worker: never told to go")
        time.sleep(0.005)
    put = _outcome(lambda: index.add_entries(batch(options["prefix"] + "x", options["second"])))
    read = _outcome(lambda: index.entry(f"{options['prefix']}0"))
    index.close()
    print(json.dumps({"put": put, "read": read}))


if __name__ == "__main__":
    main()
