"""Real file systems for the store tests: a small tmpfs that fills up, remounted read-only.

Mounting needs root (or CAP_SYS_ADMIN); where the machine refuses, the tests that need one
are skipped with the reason. Tests run as root here, where ``chmod`` does not stop reads or
writes, so a read-only mount is the only honest read-only file.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, check=False)


@contextmanager
def tmpfs(where: Path, size: str = "1m") -> Iterator[Path]:
    """A fresh tmpfs of ``size`` mounted at ``where`` (created), unmounted afterwards."""
    where.mkdir(parents=True, exist_ok=True)
    done = _run("mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(where))
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip() or done.returncode})")
    try:
        yield where
    finally:
        _run("umount", "-l", str(where))


def remount_read_only(where: Path) -> None:
    done = _run("mount", "-o", "remount,ro", str(where))
    if done.returncode != 0:
        pytest.skip(f"cannot remount read-only here ({done.stderr.strip()})")
