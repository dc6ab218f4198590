"""The `cage` command's streams, in real processes: a passages input is read only up to
MAX_PASSAGES_BYTES (``-p /dev/zero`` and an endless pipe end in one line and exit code 2,
not a MemoryError), and output into a pipe whose reader has gone ends quietly (issue 40,
row 13)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cage_core.cli.commands import CLOSED_PIPE_EXIT
from cage_core.cli.passages import MAX_PASSAGES_BYTES
from cage_core.expansion.index import LinkIndex

ROOT = Path(__file__).resolve().parents[2]
CAGE = [sys.executable, "-m", "cage_core.cli"]
TOO_LARGE = f"more than {MAX_PASSAGES_BYTES:,} bytes"


def _env():
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_rerank_refuses_an_endless_file_with_one_line():
    done = subprocess.run(
        [*CAGE, "rerank", "-q", "q", "-p", "/dev/zero"],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
    )
    assert done.returncode == 2
    assert (
        done.stderr == f"cage: error: /dev/zero: {TOO_LARGE} (the most a passages file may hold)\n"
    )


def test_rerank_refuses_an_endless_standard_input_with_one_line():
    with subprocess.Popen(
        [*CAGE, "rerank", "-q", "q", "-p", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
    ) as proc:
        block = b"an endless passage " * 4096
        try:
            while True:  # until the command stops reading and closes its end
                proc.stdin.write(block)
        except BrokenPipeError:
            pass
        finally:
            try:
                proc.stdin.close()
            except BrokenPipeError:
                pass
        stdout, stderr = proc.stdout.read(), proc.stderr.read()
        proc.wait(timeout=120)
    assert proc.returncode == 2 and stdout == b""
    assert (
        stderr.decode()
        == f"cage: error: standard input: {TOO_LARGE} (the most a passages file may hold)\n"
    )


def test_output_into_a_closed_pipe_ends_quietly(tmp_path):
    source = tmp_path / "links.jsonl"
    LinkIndex().save(source)
    with subprocess.Popen(
        [*CAGE, "links", str(source), str(tmp_path / "copy.jsonl")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
    ) as proc:
        proc.stdout.close()  # the reader is gone before the command writes (| head -0)
        stderr = proc.stderr.read().decode()
        proc.wait(timeout=120)
    assert (tmp_path / "copy.jsonl").exists()  # the work was done; only the report was lost
    assert proc.returncode == CLOSED_PIPE_EXIT
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr
