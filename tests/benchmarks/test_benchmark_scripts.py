"""The benchmark scripts stay outside the product's rules' blind spot, and their shared
cross-validation library does what the tuning scripts rely on.

Read from the scripts' source (``ast``), nothing run: no script under ``benchmarks/`` imports
another script (they share ``benchmarks/crossval/``, a library), imports a private name of
the package, uses pickle, or holds an absolute path of a development machine; every script is
listed in ``benchmarks/README.md``. Then the library's parts on small real inputs: folds,
grid points, the out-of-fold choice, paired bootstrap intervals and the pool files.
"""

from __future__ import annotations

import ast
import hashlib
import re
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"
LIBRARY = BENCHMARKS / "crossval"
SCRIPTS = sorted(p for p in BENCHMARKS.rglob("*.py") if LIBRARY not in p.parents)
SOURCES = sorted(BENCHMARKS.rglob("*.py"))
PACKAGES = ("cage_core", "cage_langchain", "cage_llamaindex")
PICKLERS = frozenset({"pickle", "cPickle", "_pickle", "dill", "cloudpickle", "joblib", "shelve"})
MACHINE_PATH = re.compile(r"(?<![\w.~])/(?:home|root|work|Users)/")

sys.path.insert(0, str(BENCHMARKS))
# the library lives beside the scripts, not in the package
from crossval import (
    cross_validate,
    fold_array,
    fold_of,
    grid_points,
    group_objective,
    paired_interval,
    shuffled_folds,
)


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _imported_modules(tree: ast.Module) -> list[tuple[str, list[str], int]]:
    """``(module, imported names, relative level)`` of every import, lazy ones included."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, [], 0) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.module or "", [a.name for a in node.names], node.level))
    return found


def _label(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_the_scripts_are_split_by_kind_around_one_library():
    assert {p.parent.name for p in SCRIPTS} == {"claims", "tuning", "checks"}
    assert (LIBRARY / "__init__.py").is_file()
    assert (BENCHMARKS / "checks" / "identical_rankings.py").is_file()


@pytest.mark.parametrize("path", SOURCES, ids=_label)
def test_no_script_imports_another_script(path):
    scripts = {p.stem for p in SCRIPTS}
    for module, _, level in _imported_modules(_tree(path)):
        assert module.split(".")[0] not in scripts, f"{_label(path)} imports the script {module}"
        assert level == 0 or LIBRARY in path.parents, f"{_label(path)}: a relative import"


@pytest.mark.parametrize("path", SOURCES, ids=_label)
def test_no_private_name_of_the_package(path):
    tree = _tree(path)
    bound: set[str] = set()  # names bound to the package's modules or objects
    for module, names, _ in _imported_modules(tree):
        if module.split(".")[0] not in PACKAGES:
            continue
        private = [part for part in module.split(".") + names if part.startswith("_")]
        assert not private, f"{_label(path)} imports {private} from {module}"
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            module = node.module if isinstance(node, ast.ImportFrom) else None
            for alias in node.names:
                if (module or alias.name).split(".")[0] in PACKAGES:
                    bound.add(alias.asname or alias.name.split(".")[0])
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and isinstance(node.value, ast.Name)
            and node.value.id in bound
        ):
            raise AssertionError(f"{_label(path)}:{node.lineno} reads {node.value.id}.{node.attr}")


@pytest.mark.parametrize("path", SOURCES, ids=_label)
def test_no_pickle(path):
    tree = _tree(path)
    for module, _, _ in _imported_modules(tree):
        assert module.split(".")[0] not in PICKLERS, f"{_label(path)} imports {module}"
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "allow_pickle":
            assert isinstance(node.value, ast.Constant) and node.value.value is False, (
                f"{_label(path)}:{node.value.lineno} allows pickle"
            )


@pytest.mark.parametrize("path", SOURCES, ids=_label)
def test_no_absolute_path_of_a_development_machine(path):
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            match = MACHINE_PATH.search(node.value)
            assert match is None, f"{_label(path)}:{node.lineno} holds the path {match.group()!r}…"


def test_the_checker_sees_each_rule_broken():
    """The checks above fail on a script that breaks each rule (so they can fail)."""
    bad = ast.parse(
        "import pickle\n"
        "from chain_cv import FOLDS\n"
        "from cage_core.eval.runner import _permutation\n"
        "DATA = '/work/shared/data'\n"
    )
    modules = [m for m, _, _ in _imported_modules(bad)]
    assert modules == ["pickle", "chain_cv", "cage_core.eval.runner"]
    assert _imported_modules(bad)[2][1] == ["_permutation"]
    assert MACHINE_PATH.search("/work/shared/data") and MACHINE_PATH.search("x /home/me/y")
    assert not MACHINE_PATH.search("../shared/data") and not MACHINE_PATH.search("~/.cache/x")


def test_every_script_is_listed_in_the_benchmarks_readme():
    readme = (BENCHMARKS / "README.md").read_text(encoding="utf-8")
    missing = [_label(p) for p in SCRIPTS if f"{p.parent.name}/{p.name}" not in readme]
    assert not missing, f"not in benchmarks/README.md: {missing}"


# --- the shared cross-validation library -------------------------------------------------


def test_a_questions_fold_is_a_hash_of_its_id():
    assert [fold_of(q) for q in ("q0", "q1", "q2", "q3", "q4")] == [1, 3, 3, 0, 1]
    digest = hashlib.blake2b(b"5a8b57f25542995d1e6f1371", digest_size=4).digest()
    assert fold_of("5a8b57f25542995d1e6f1371") == int.from_bytes(digest, "little") % 5 == 3
    assert fold_array(["q0", "q1"]).tolist() == [1, 3]


def test_folds_are_balanced_and_deterministic():
    ids = [f"q{i}" for i in range(1000)]
    counts = Counter(fold_array(ids).tolist())
    assert sorted(counts) == [0, 1, 2, 3, 4]
    assert all(150 <= n <= 250 for n in counts.values()), counts
    assert fold_array(ids).tolist() == fold_array(list(ids)).tolist()


def test_shuffled_folds_deal_the_sorted_shuffled_keys_round_robin():
    folds = shuffled_folds(["b", "a", "c", "a", "d", "e", "f"], seed=0)
    assert folds == {"e": 0, "c": 1, "b": 2, "a": 3, "f": 4, "d": 0}


def test_grid_points_vary_the_last_name_fastest():
    assert grid_points({"a": (1, 2), "b": (True, False)}) == [
        {"a": 1, "b": True},
        {"a": 1, "b": False},
        {"a": 2, "b": True},
        {"a": 2, "b": False},
    ]


def _scores() -> np.ndarray:
    """Two grid points, four pools (R@3, R@5): point 0 is best on pools 0–1, point 1 on 2–3."""
    return np.array(
        [
            [[1.0, 1.0], [1.0, 1.0], [0.0, 0.0], [0.0, 0.5]],
            [[0.0, 0.0], [0.0, 0.5], [1.0, 1.0], [1.0, 1.0]],
        ]
    )


def test_each_fold_is_ranked_by_the_point_chosen_on_the_other_folds():
    scores, folds = _scores(), np.array([0, 0, 1, 1])
    groups = np.array(["x", "x", "x", "x"])
    cv = cross_validate(scores, folds, group_objective(scores, groups, ["x"]), n_folds=2)
    assert cv.fold_choices == (1, 0)  # fold 0 is held out: pools 2–3 favour point 1
    assert cv.out_of_fold.tolist() == [[0.0, 0.0], [0.0, 0.5], [0.0, 0.0], [0.0, 0.5]]
    assert cv.chosen == 0  # all folds: 1.125 each, a tie broken by grid order


def test_a_barred_point_is_never_chosen_and_ties_go_to_the_first_point():
    scores = np.array([[[1.0, 1.0]] * 2, [[1.0, 1.0]] * 2, [[2.0, 2.0]] * 2])
    folds, groups = np.array([0, 1]), np.array(["x", "x"])
    allowed = np.array([True, True, False])
    cv = cross_validate(scores, folds, group_objective(scores, groups, ["x"], allowed), n_folds=2)
    assert (cv.fold_choices, cv.chosen) == ((0, 0), 0)


def test_the_objective_is_the_mean_over_groups_of_r3_plus_r5():
    scores = np.array([[[1.0, 1.0, 9.0], [0.0, 0.5, 9.0], [0.5, 0.5, 9.0]]])
    groups = np.array(["a", "a", "b"])
    everything = np.ones(3, dtype=bool)
    assert group_objective(scores, groups, ["a", "b"])(everything).tolist() == [1.125]


def test_a_constant_difference_has_a_point_interval():
    low, high = paired_interval(np.full((40, 2), 0.25))
    assert low.tolist() == high.tolist() == [0.25, 0.25]


def test_the_interval_spans_the_resampled_means():
    """Two questions, −1 and +1: a resample's mean is −1, 0 or 1 (1/4, 1/2, 1/4), so the 95%
    interval is [−1, 1]; it is the same for the same seed."""
    diff = np.array([[-1.0], [1.0]])
    low, high = paired_interval(diff, seed=0)
    assert (low.tolist(), high.tolist()) == ([-1.0], [1.0])
    assert paired_interval(diff, seed=0)[0].tolist() == low.tolist()


def _pool():
    from cage_core.graphs.passage_graph import PassageGraph, content_hash
    from cage_core.passage import Passage

    passages = [
        Passage("Marie Curie was born in Warsaw.", title="Marie Curie", id="p1"),
        Passage("It lies on the Vistula.", doc_id="warsaw.txt", position=2),
    ]
    graph = PassageGraph(
        labels=("Marie Curie", "Warsaw"),
        pos=("PROPN", "PROPN"),
        entity_types=("PERSON", "GPE"),
        edge_src=np.array([0], dtype=np.int64),
        edge_dst=np.array([1], dtype=np.int64),
        edge_type=np.array([0], dtype=np.int64),
        edge_verbs=("bear",),
        source="test",
        content_sha=content_hash(passages[0].content),
        level="full",
    )
    none = np.zeros(0, dtype=np.int64)
    empty = PassageGraph(
        labels=(),
        pos=(),
        entity_types=(),
        edge_src=none,
        edge_dst=none,
        edge_type=none,
        edge_verbs=(),
        source="test",
        content_sha=content_hash(passages[1].content),
        level="light",
    )
    return {
        "setting": "hotpotqa-closed",
        "dataset": "hotpotqa",
        "id": "q1",
        "type": None,
        "query": "Where was Marie Curie born?",
        "passages": passages,
        "sims": np.array([0.1 + 0.2, 1 / 3]),
        "graphs": [graph, empty],
        "gold": frozenset({0}),
        "n_gold": 2,
        "misinfo": None,
    }


def test_a_pool_file_reads_back_what_was_written(tmp_path):
    from crossval.pool_files import read_pools, write_pools

    pool = _pool()
    write_pools(tmp_path / "x.json.gz", [pool, dict(pool, misinfo=frozenset({1}))])
    first, second = read_pools([tmp_path / "x.json.gz"])
    assert first["sims"].tobytes() == pool["sims"].tobytes()
    assert first["passages"] == pool["passages"]
    assert [g.to_dict() for g in first["graphs"]] == [g.to_dict() for g in pool["graphs"]]
    assert {k: first[k] for k in ("setting", "id", "type", "query", "gold", "n_gold")} == {
        k: pool[k] for k in ("setting", "id", "type", "query", "gold", "n_gold")
    }
    assert first["misinfo"] is None and second["misinfo"] == frozenset({1})
    assert not list(tmp_path.glob("*.partial"))


def test_a_file_of_another_format_is_refused(tmp_path):
    import gzip

    from crossval.pool_files import pool_paths, read_pools

    path = tmp_path / "x.json.gz"
    path.write_bytes(gzip.compress(b'{"format": "something else", "pools": []}'))
    with pytest.raises(ValueError, match="not a cage-benchmark-pools file"):
        read_pools([path])
    with pytest.raises(FileNotFoundError, match="no \\*.json.gz pool files"):
        pool_paths(tmp_path / "empty")
