"""The package's import layers: each step of the data flow imports only the steps below it,
and nothing but ``eval/`` and ``cli/`` imports ``cage_core.eval`` or ``cage_core.cli``.

Layers, lowest first (a module may import its own layer and the ones below)::

    0 foundation  passage, passage_ids, relevance, config, models, scoring, jsonl, metadata,
                  sqlite_files, lang/
    1 graphs/     one passage's typed entity graph: parse, store, cache
    2 ranking/    one pool: relevance, links, subjects, chain, gates, the default pool kinds
                  (ranking/kinds/), explanation
    3 paper/      the paper's R-GCN coherence: its pool kind and the add-on term to the core
    4 fusion      ranking/fusion.py alone: the pool kind and the dispatch over kinds
    5 methods/    ranking methods behind one protocol
    6 expansion/  the ingest-time link index that reaches the missed hop
    7 app         reranker, extractive, heatmap
    8 integrations/
    9 eval/
   10 cli/

Every import counts: module level, inside functions (lazy imports) and under TYPE_CHECKING.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "cage_core"

LAYERS = {
    "foundation": 0,
    "graphs": 1,
    "ranking": 2,
    "paper": 3,
    "fusion": 4,
    "methods": 5,
    "expansion": 6,
    "app": 7,
    "integrations": 8,
    "eval": 9,
    "cli": 10,
}
MODULES = {"ranking.fusion": "fusion"}
"""Modules whose layer is not their subpackage's (by their path below ``cage_core``)."""
TOP_LEVEL = {
    "passage": "foundation",
    "passage_ids": "foundation",
    "relevance": "foundation",
    "config": "foundation",
    "models": "foundation",
    "scoring": "foundation",
    "jsonl": "foundation",
    "metadata": "foundation",
    "sqlite_files": "foundation",
    "reranker": "app",
    "extractive": "app",
    "heatmap": "app",
}
SUBPACKAGES = {
    "lang": "foundation",
    "graphs": "graphs",
    "paper": "paper",
    "ranking": "ranking",
    "methods": "methods",
    "expansion": "expansion",
    "integrations": "integrations",
    "eval": "eval",
    "cli": "cli",
}
UPPER = ("cage_core.eval", "cage_core.cli")


def _modules(root: Path, package: str) -> list[tuple[str, Path]]:
    out = []
    for p in sorted(root.rglob("*.py")):
        parts = p.relative_to(root.parent).with_suffix("").parts
        out.append((".".join(parts[:-1] if parts[-1] == "__init__" else parts), p))
    return out


def _imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
    return [(line, name) for line, name in found if name.split(".")[0] == "cage_core"]


def layer_of(module: str) -> str | None:
    """The layer of a ``cage_core`` module; ``None`` for ``cage_core`` itself (re-exports)."""
    parts = module.split(".")
    if len(parts) == 1:
        return None
    if ".".join(parts[1:3]) in MODULES:
        return MODULES[".".join(parts[1:3])]
    if parts[1] in SUBPACKAGES:
        return SUBPACKAGES[parts[1]]
    return TOP_LEVEL.get(parts[1], "unplaced")


def _known(name: str) -> bool:
    """Whether a dotted import target is a module of the package (not a name inside one)."""
    path = PACKAGE.parent / Path(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def test_every_module_has_a_layer():
    unplaced = [m for m, _ in _modules(PACKAGE, "cage_core") if layer_of(m) == "unplaced"]
    assert not unplaced, (
        f"{unplaced}: put each in a subpackage of its stage, or give it a layer "
        "in TOP_LEVEL (tests/test_layers.py)"
    )


def test_lower_layers_do_not_import_upper_ones():
    wrong = []
    for module, path in _modules(PACKAGE, "cage_core"):
        mine = layer_of(module)
        if mine is None or mine == "unplaced":
            continue
        for line, target in _imports(path):
            if target == "cage_core":  # the public API imports every layer up to the reranker
                theirs = "app"
            else:
                theirs = layer_of(target) if _known(target) else None
            if theirs in (None, "unplaced"):
                continue
            if LAYERS[theirs] > LAYERS[mine]:
                wrong.append(
                    f"{path.relative_to(ROOT)}:{line}: {module} ({mine}) imports "
                    f"{target} ({theirs})"
                )
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("package", ["cage_core", "cage_langchain", "cage_llamaindex"])
def test_nothing_but_eval_and_cli_imports_eval_or_cli(package):
    wrong = []
    for module, path in _modules(ROOT / package, package):
        if module.startswith(UPPER):
            continue
        for line, target in _imports(path):
            if target.startswith(UPPER) and target.split(".")[1] in ("eval", "cli"):
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {module} imports {target}")
    assert not wrong, "\n".join(wrong)


def test_the_protocol_imports_no_implementation():
    """``methods/base.py`` (the protocol and the pool) runs without any method or score code:
    outside ``if TYPE_CHECKING:`` it imports no ``ranking`` or other ``methods`` module."""
    tree = ast.parse((PACKAGE / "methods" / "base.py").read_text(encoding="utf-8"))
    typing_only = {
        id(n)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and ast.unparse(block.test).endswith("TYPE_CHECKING")
        for n in ast.walk(block)
    }
    runtime = [
        n.module
        for n in ast.walk(tree)
        if isinstance(n, ast.ImportFrom)
        and n.module
        and id(n) not in typing_only
        and n.module.startswith("cage_core.")
    ]
    assert runtime and not [
        m for m in runtime if m.startswith(("cage_core.ranking", "cage_core.methods"))
    ], runtime


def test_the_layer_rule_catches_an_upward_import():
    assert layer_of("cage_core.graphs.store") == "graphs"
    assert layer_of("cage_core.reranker") == "app"
    assert layer_of("cage_core.lang.en") == "foundation"
    fusion, paper = layer_of("cage_core.ranking.fusion"), layer_of("cage_core.paper.encoder")
    assert LAYERS[fusion] > LAYERS[paper] > LAYERS[layer_of("cage_core.ranking.kinds.titled")]
    assert layer_of("cage_core.somewhere_new") == "unplaced"
