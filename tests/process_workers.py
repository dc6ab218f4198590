"""Worker processes the multi-process store tests start together on one store."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

PROCESS_TIMEOUT_S = 60.0
SIGNAL_POLL_S = 0.005


class Workers:
    """Worker processes on one store, started at the same moment by a go file; each runs
    ``worker`` (a script of this folder) with a role, the store and its options."""

    def __init__(self, tmp: Path, store: Path, worker: Path) -> None:
        self.tmp, self.store, self.worker = tmp, store, worker
        self.go = tmp / "go"
        self.procs: dict[str, subprocess.Popen[str]] = {}

    def start(self, name: str, role: str, **options: object) -> None:
        options.update(ready=str(self.tmp / f"ready-{name}"), go=str(self.go))
        self.procs[name] = subprocess.Popen(
            [sys.executable, str(self.worker), role, str(self.store), json.dumps(options)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def release(self) -> None:
        """Start them all at once, when every worker has imported and is waiting."""
        wait_for(*(self.tmp / f"ready-{name}" for name in self.procs))
        self.go.touch()

    def finish(self, name: str) -> tuple[int, dict, str]:
        """Exit status, JSON result and stderr of one worker."""
        out, err = self.procs[name].communicate(timeout=PROCESS_TIMEOUT_S)
        lines = out.strip().splitlines()
        return self.procs[name].returncode, json.loads(lines[-1]) if lines else {}, err

    def kill_all(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def wait_for(*paths: Path) -> None:
    deadline = time.monotonic() + PROCESS_TIMEOUT_S
    while not all(p.exists() for p in paths):
        assert time.monotonic() < deadline, f"workers never signalled: {paths}"
        time.sleep(SIGNAL_POLL_S)
