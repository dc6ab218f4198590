"""The package's import layers: each step of the data flow imports only the steps below it,
and nothing but ``eval/`` and ``cli/`` imports ``cage_core.eval`` or ``cage_core.cli``.

Layers, lowest first (a module may import its own layer and the ones below)::

    0 foundation  passage, call_checks, passage_ids, relevance, config, models, scoring, jsonl,
                  metadata, prose, lang/, stores/ (the SQLite store layer both stores share)
    1 graphs/     one passage's typed entity graph: parse, store, cache
    2 names/      the name rules ingest and query time share: forms, may link, subjects
    3 ranking/    one pool: relevance, links, chain, gates, the default pool kinds
                  (ranking/kinds/), explanation
    4 paper/      the paper's R-GCN coherence: its pool kind and the add-on term to the core
    5 methods/    ranking methods behind one protocol; CAGE's dispatches over the pool kinds
    6 expansion/  the ingest-time link index that reaches the missed hop
    7 app         reranker, embeddings, extractive, question_terms, heatmap
    8 integrations/
    9 eval/
   10 cli/

Every file of a subpackage has the subpackage's layer: layers are named by folder (and, for
the modules at the package's root, by module), never for one file of a folder.

Every import counts: module level, inside functions (lazy imports) and under TYPE_CHECKING.

Beside the layers, the same reading of the source checks that:

* no two folders import each other: the import graph of the subpackages (and the root's
  modules) has no cycle either, so no folder imports one that imports it back;
* the import graph of ``cage_core`` has no cycle. Lazy imports (inside a function) and imports
  under ``TYPE_CHECKING`` count as edges too: a lazy import only postpones a circle to the
  first call (``expansion/index.py`` imported ``expansion/store.py`` lazily while the store
  imported the index), and a type-only import still couples the two modules. An edge goes to
  the module imported (``from cage_core.a import b``: to ``cage_core.a.b`` when that is a
  module, else to ``cage_core.a``); the implicit import of a package's ``__init__`` by its
  submodules is not an edge;
* no module imports another module's private name (``from m import _name``);
* ``expansion/`` (ingest time) imports nothing from ``ranking/`` (query time): the name rules
  both use live in ``names/``;
* no file of the packages is over ``MAX_FILE_LINES`` lines.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "cage_core"

LAYERS = {
    "foundation": 0,
    "graphs": 1,
    "names": 2,
    "ranking": 3,
    "paper": 4,
    "methods": 5,
    "expansion": 6,
    "app": 7,
    "integrations": 8,
    "eval": 9,
    "cli": 10,
}
TOP_LEVEL = {
    "passage": "foundation",
    "call_checks": "foundation",
    "passage_ids": "foundation",
    "relevance": "foundation",
    "config": "foundation",
    "models": "foundation",
    "scoring": "foundation",
    "jsonl": "foundation",
    "metadata": "foundation",
    "prose": "foundation",
    "reranker": "app",
    "embeddings": "app",
    "extractive": "app",
    "question_terms": "app",
    "heatmap": "app",
}
SUBPACKAGES = {
    "lang": "foundation",
    "stores": "foundation",
    "graphs": "graphs",
    "names": "names",
    "paper": "paper",
    "ranking": "ranking",
    "methods": "methods",
    "expansion": "expansion",
    "integrations": "integrations",
    "eval": "eval",
    "cli": "cli",
}
UPPER = ("cage_core.eval", "cage_core.cli")
PACKAGES = ("cage_core", "cage_langchain", "cage_llamaindex")
MAX_FILE_LINES = 400
BEING_SPLIT: dict[str, str] = {}
"""Files allowed over ``MAX_FILE_LINES`` for now, each with the reason: remove the entry with
the split."""


def _modules(root: Path, package: str) -> list[tuple[str, Path]]:
    out = []
    for p in sorted(root.rglob("*.py")):
        parts = p.relative_to(root.parent).with_suffix("").parts
        out.append((".".join(parts[:-1] if parts[-1] == "__init__" else parts), p))
    return out


def _imports(path: Path, package: str = "cage_core") -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # `from package import submodule` imports the submodule; the package itself only
            # as every submodule import does (implicitly), which is not an edge
            names = [f"{node.module}.{a.name}" for a in node.names]
            if not all(_known(name) for name in names):
                found.append((node.lineno, node.module))
            found += [(node.lineno, name) for name in names]
    return [(line, name) for line, name in found if name.split(".")[0] == package]


def layer_of(module: str) -> str | None:
    """The layer of a ``cage_core`` module; ``None`` for ``cage_core`` itself (re-exports)."""
    parts = module.split(".")
    if len(parts) == 1:
        return None
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
    assert layer_of("cage_core.ranking.kinds.titled") == "ranking"  # a folder's every file
    methods, paper = layer_of("cage_core.methods.cage"), layer_of("cage_core.paper.mode")
    assert LAYERS[methods] > LAYERS[paper] > LAYERS[layer_of("cage_core.ranking.pool_scores")]
    assert layer_of("cage_core.somewhere_new") == "unplaced"


def _import_edges(root: Path, package: str) -> dict[str, set[tuple[int, str]]]:
    """Each module's imports of the package's modules, ``(line, module)``: every import
    (module docstring), resolved to the module it names."""
    modules = dict(_modules(root, package))
    edges: dict[str, set[tuple[int, str]]] = {}
    for module, path in modules.items():
        found = edges.setdefault(module, set())
        for line, target in _imports(path, package):
            resolved = target if target in modules else target.rpartition(".")[0]
            if resolved in modules and resolved != module:
                found.add((line, resolved))
    return edges


def _cycle(edges: dict[str, set[tuple[int, str]]]) -> list[str]:
    """One cycle of the graph (its modules in import order, the first repeated at the end),
    or [] when there is none: a depth-first search for an edge back to a module on the path."""
    done: set[str] = set()
    path: list[str] = []
    on_path: set[str] = set()

    def visit(module: str) -> list[str]:
        path.append(module)
        on_path.add(module)
        for _, target in sorted(edges.get(module, ())):
            if target in on_path:
                return path[path.index(target) :] + [target]
            if target not in done:
                found = visit(target)
                if found:
                    return found
        path.pop()
        on_path.discard(module)
        done.add(module)
        return []

    for module in sorted(edges):
        if module not in done:
            found = visit(module)
            if found:
                return found
    return []


def test_the_import_graph_has_no_cycle():
    cycle = _cycle(_import_edges(PACKAGE, "cage_core"))
    assert not cycle, " imports ".join(cycle)


def _folder_edges(edges: dict[str, set[tuple[int, str]]]) -> dict[str, set[tuple[int, str]]]:
    """``edges`` between the package's folders: each module stands for its subpackage
    (``cage_core.ranking.kinds.titled`` for ``cage_core.ranking``); a module at the root for
    itself."""

    def folder(module: str) -> str:
        return ".".join(module.split(".")[:2])

    folders: dict[str, set[tuple[int, str]]] = {}
    for module, targets in edges.items():
        found = folders.setdefault(folder(module), set())
        found.update((line, folder(t)) for line, t in targets if folder(t) != folder(module))
    return folders


def test_no_folder_imports_one_that_imports_it_back():
    cycle = _cycle(_folder_edges(_import_edges(PACKAGE, "cage_core")))
    assert not cycle, " imports ".join(cycle)


def test_the_folder_check_finds_two_folders_that_import_each_other(tmp_path):
    package = tmp_path / "pkg"
    for folder in ("low", "high"):
        (package / folder).mkdir(parents=True)
        (package / folder / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "low" / "a.py").write_text("B = 1\n")
    (package / "high" / "b.py").write_text("from pkg.low.a import B\n")
    (package / "low" / "c.py").write_text("from pkg.high.b import B\n")
    edges = _import_edges(package, "pkg")
    assert _cycle(edges) == []  # no module cycle: low.c -> high.b -> low.a
    assert _cycle(_folder_edges(edges)) == ["pkg.high", "pkg.low", "pkg.high"]


def test_the_cycle_check_finds_a_cycle_through_a_lazy_import(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.b import B\n")
    (package / "b.py").write_text("B = 1\n\ndef later():\n    from pkg import a\n")
    (package / "c.py").write_text("from pkg.a import B\n")
    assert _cycle(_import_edges(package, "pkg")) == ["pkg.a", "pkg.b", "pkg.a"]
    (package / "b.py").write_text("B = 1\n")
    assert _cycle(_import_edges(package, "pkg")) == []


def _private_imports(path: Path) -> list[tuple[int, str]]:
    """``(line, "module._name")`` of each private name ``path`` imports from a module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                name = alias.name
                if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
                    if not _known(f"{node.module}.{name}"):  # a module is no private name
                        found.append((node.lineno, f"{node.module}.{name}"))
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_imports_another_modules_private_name(package):
    wrong = [
        f"{path.relative_to(ROOT)}:{line}: {module} imports {name}"
        for module, path in _modules(ROOT / package, package)
        for line, name in _private_imports(path)
    ]
    assert not wrong, "\n".join(wrong)


def test_the_private_name_check_sees_a_private_import(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("from cage_core.x import _helper, __version__, public\n")
    assert _private_imports(source) == [(1, "cage_core.x._helper")]


def test_expansion_imports_nothing_from_ranking():
    wrong = [
        f"{path.relative_to(ROOT)}:{line}: {module} imports {target}"
        for module, path in _modules(PACKAGE, "cage_core")
        if module.startswith("cage_core.expansion")
        for line, target in _imports(path)
        if target.startswith("cage_core.ranking")
    ]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("package", PACKAGES)
def test_no_file_is_over_the_line_limit(package):
    over = []
    for _, path in _modules(ROOT / package, package):
        name = path.relative_to(ROOT).as_posix()
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_FILE_LINES and name not in BEING_SPLIT:
            over.append(f"{name}: {lines} lines")
    assert not over, f"over {MAX_FILE_LINES} lines, split by idea:\n" + "\n".join(over)


def test_files_allowed_over_the_limit_still_are():
    """An entry of ``BEING_SPLIT`` goes with the split that ends it."""
    for name in BEING_SPLIT:
        path = ROOT / name
        assert (
            path.is_file() and len(path.read_text(encoding="utf-8").splitlines()) > MAX_FILE_LINES
        )
