"""The CI sample of the identical-rankings check: the tree ranks the sample as the reference.

``tests/data/identical_rankings_sample.json`` is ``benchmarks/checks/identical_rankings.py``'s
dump of a small fixed sample: the closed settings, titled and untitled (``closed``,
``closed-untitled``: the files' own pools, no corpus embedding), the first two questions of
each of the four Wikipedia files, the default methods. The test dumps the same sample from
this tree, in a subprocess run from the repository root (the script takes ``cage_core`` from
the current directory) with a fresh graph store, and compares: every ranking, ``via``, via
kind and reported coherence must be identical, every score equal to a relative 1e-5
(``SCORE_TOLERANCE``: float32 embeddings differ in the 7th digit between builds and CPUs). A change
meant to move rankings regenerates the reference (the command is in CONTRIBUTING.md, "Show
that rankings did not change").

Needs ``../shared/data`` beside the repository (skipped when absent). Cost: it loads the models
and embeds and parses every passage of the 16 pools, 75-95 s on a loaded 2-core machine (the
dump's own "wrote ... (8 files, 71 s)" plus the start); the reference is 40 KB.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"
SCRIPT = ROOT / "benchmarks" / "checks" / "identical_rankings.py"
REFERENCE = ROOT / "tests" / "data" / "identical_rankings_sample.json"
SAMPLE = ["--settings", "closed,closed-untitled", "--limit", "2"]
"""The sample's arguments, the same as the reference's (CONTRIBUTING.md's command)."""

pytestmark = [pytest.mark.data_benchmark, pytest.mark.models]


def _script(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.skipif(not DATA.is_dir(), reason=f"needs the DEV files in {DATA}")
def test_the_sample_ranks_exactly_as_the_reference(tmp_path: Path) -> None:
    dump = tmp_path / "sample.json"
    store = tmp_path / "graphs.sqlite"
    made = _script("--data", str(DATA), "--graph-store", str(store), *SAMPLE, "--out", str(dump))
    assert made.returncode == 0, made.stdout + made.stderr
    compared = _script("--compare", str(REFERENCE), str(dump))
    assert compared.returncode == 0, compared.stdout + compared.stderr
    assert "ALL IDENTICAL" in compared.stdout
