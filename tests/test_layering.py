"""Imports in the package go one way.

- Every import respects the layer table of DESIGN.md: a module imports only from its own package or from
  strictly lower layers. `errors.py` is the floor of L0: every module may import it.
- No two modules import each other, directly or around a longer loop: the module import graph, built from
  every import statement (inside functions and `if TYPE_CHECKING:` blocks too), has no cycle.
- The runtime never reaches the Python graph, not even through the modules it imports.
- A lower module calls up only through a `framework.hooks.Hook` whose provider sits above it.
"""

from __future__ import annotations

import ast
import importlib
import pathlib
from collections.abc import Iterable, Mapping

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "tensorweave"

LAYERS = {
    "tensorweave.errors": 0,
    "tensorweave.formats": 0,
    "tensorweave.platform": 0,
    "tensorweave.framework": 1,
    "tensorweave.ops": 2,
    "tensorweave.devices": 2,
    "tensorweave.runtime": 3,
    "tensorweave.client": 4,
    "tensorweave.distributed": 4,
    "tensorweave.train": 5,
    "tensorweave.layers": 5,
    "tensorweave.summary": 4,
    "tensorweave.data": 5,
    "tensorweave.testing": 5,
    "tensorweave.compat": 6,
}


def _unit(module: str) -> str | None:
    """The layer-table entry (package) a dotted module name belongs to."""
    for prefix in sorted(LAYERS, key=len, reverse=True):
        if module == prefix or module.startswith(prefix + "."):
            return prefix
    return None


def _modules() -> list[tuple[str, pathlib.Path]]:
    result = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        result.append((".".join(parts), path))
    return result


def _import_statements(module: str, source: str, is_package: bool) -> list[tuple[str, int]]:
    """(dotted name, line) of everything the module imports, wherever the statement is: `from a import b`
    gives `a.b` (a module or a name in `a`), relative imports resolved against the module's package."""
    package = module if is_package else module.rpartition(".")[0]
    names = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names.extend((f"{target}.{alias.name}", node.lineno) for alias in node.names)
    return names


def _imports(module: str, path: pathlib.Path) -> list[str]:
    names = _import_statements(module, path.read_text(), path.name == "__init__.py")
    return [n for n, _ in names if n.startswith("tensorweave")]


# -- the module import graph and its cycles ----------------------------------------------------------------

ImportGraph = dict[str, dict[str, list[int]]]  # module -> imported module -> lines of the statements


def import_graph(sources: Mapping[str, tuple[str, bool]]) -> ImportGraph:
    """Which of the given modules each imports, from `module -> (source, is_package)`.

    An imported name counts as its longest prefix that is one of the modules (`a.b.Name` -> `a.b`); a
    package's implicit import by its own submodules is no edge, an explicit `import` of it is.
    """
    graph: ImportGraph = {}
    for module, (source, is_package) in sources.items():
        edges: dict[str, list[int]] = {}
        for name, line in _import_statements(module, source, is_package):
            while name and name not in sources:
                name = name.rpartition(".")[0]
            if name and name != module:
                edges.setdefault(name, []).append(line)
        graph[module] = edges
    return graph


def import_cycles(graph: ImportGraph) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph[succ]))))
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        cycles.append(frozenset(component))
    return cycles


def describe_cycle(graph: ImportGraph, cycle: Iterable[str], paths: Mapping[str, pathlib.Path] | None = None) -> str:
    """A cycle file by file: each member, and the members it imports at which lines."""
    members = sorted(cycle)
    lines = [f"import cycle between {len(members)} modules:"]
    for module in members:
        where = str(paths[module].relative_to(PACKAGE.parent)) if paths else module
        imported = [f"{target} (line {', '.join(map(str, graph[module][target]))})"
                    for target in sorted(graph[module]) if target in cycle]
        lines.append(f"  {where} imports {'; '.join(imported)}")
    return "\n".join(lines)


def _package_graph() -> tuple[ImportGraph, dict[str, pathlib.Path]]:
    modules = _modules()
    sources = {m: (p.read_text(), p.name == "__init__.py") for m, p in modules}
    return import_graph(sources), dict(modules)


def test_every_module_is_in_the_layer_table():
    unplaced = [m for m, _ in _modules() if m != "tensorweave" and _unit(m) is None]
    assert not unplaced, f"modules outside the layer table: {unplaced}"


@pytest.mark.parametrize("module,path", _modules(), ids=lambda v: v if isinstance(v, str) else "")
def test_imports_respect_layers(module, path):
    unit = _unit(module)
    if unit is None:
        return
    level = LAYERS[unit]
    violations = []
    for target in _imports(module, path):
        target_unit = _unit(target)
        if target_unit is None or target_unit in (unit, "tensorweave.errors"):
            continue
        if LAYERS[target_unit] >= level:
            violations.append(f"{target} (L{LAYERS[target_unit]})")
    assert not violations, f"{module} (L{level}) imports {violations}"


def test_the_checker_sees_violations():
    assert _unit("tensorweave.runtime.executor") == "tensorweave.runtime"
    assert _unit("tensorweave.framework.graph") == "tensorweave.framework"
    # relative imports resolve against the package
    tmp = PACKAGE / "framework" / "graph.py"
    assert "tensorweave.framework.dtypes" in _imports("tensorweave.framework.graph", tmp)


def test_the_cycle_finder_sees_planted_cycles():
    """Fake modules with a loop through a function-level import, one through a TYPE_CHECKING import and a
    relative import, and a one-way chain: exactly the two loops are reported, each naming its imports."""
    sources = {
        "pkg": ("", True),
        "pkg.ir": ("import numpy as np\n", False),
        "pkg.low": ("from pkg import ir\n\ndef up():\n    from pkg.high import Thing\n    return Thing\n", False),
        "pkg.high": ("from pkg.low import up\nfrom pkg.ir import np\nclass Thing: ...\n", False),
        "pkg.sub": ("from . import a\n", True),
        "pkg.sub.a": ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n", False),
        "pkg.sub.b": ("import pkg.sub.a\n", False),
        "pkg.top": ("import pkg.high\nfrom pkg.sub import b\n", False),
    }
    graph = import_graph(sources)
    assert graph["pkg.top"] == {"pkg.high": [1], "pkg.sub.b": [2]}
    assert graph["pkg.sub"] == {"pkg.sub.a": [1]}  # `from . import a` is the submodule, not the package
    cycles = import_cycles(graph)
    assert sorted(map(sorted, cycles)) == [["pkg.high", "pkg.low"], ["pkg.sub.a", "pkg.sub.b"]]
    report = describe_cycle(graph, frozenset({"pkg.low", "pkg.high"}))
    assert "pkg.low imports pkg.high (line 4)" in report and "pkg.high imports pkg.low (line 1)" in report
    sources["pkg.sub.b"] = ("import numpy\n", False)
    assert sorted(map(sorted, import_cycles(import_graph(sources)))) == [["pkg.high", "pkg.low"]]


def test_no_import_cycles():
    graph, paths = _package_graph()
    cycles = import_cycles(graph)
    assert not cycles, "\n".join(describe_cycle(graph, c, paths) for c in cycles)


# What the runtime must never load: the Python graph and what builds on it or converts it to protobufs.
PYTHON_GRAPH_MODULES = frozenset({
    "tensorweave.framework.graph",
    "tensorweave.framework.node_builder",
    "tensorweave.framework.tensor_util",
    "tensorweave.framework.indexed_slices",
    "tensorweave.framework.graph_io",
    "tensorweave.framework.meta_graph",
})


def test_the_runtime_never_reaches_the_python_graph():
    """Following every import of every runtime module, transitively, reaches none of PYTHON_GRAPH_MODULES."""
    graph, _ = _package_graph()
    assert PYTHON_GRAPH_MODULES <= graph.keys()
    violations = []
    for start in sorted(m for m in graph if m == "tensorweave.runtime" or m.startswith("tensorweave.runtime.")):
        parent = {start: ""}
        queue = [start]
        for module in queue:  # grows while it is walked
            for target in sorted(graph[module]):
                if target not in parent:
                    parent[target] = module
                    queue.append(target)
        for reached in sorted(PYTHON_GRAPH_MODULES & parent.keys()):
            chain = [reached]
            while parent[chain[-1]]:
                chain.append(parent[chain[-1]])
            violations.append(" -> ".join(reversed(chain)))
    assert not violations, "the runtime imports the Python graph:\n" + "\n".join(violations)


def _declared_hooks() -> list[tuple[str, str, str]]:
    """(module, name, provider) of every module-level `name = Hook(..., "provider")` in the package."""
    hooks = []
    for module, path in _modules():
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Call):
                call = node.value
                if isinstance(call.func, ast.Name) and call.func.id == "Hook":
                    target = node.targets[0] if isinstance(node, ast.Assign) else node.target
                    hooks.append((module, target.id, call.args[1].value))
    return hooks


def test_hooks_point_up_and_their_providers_install_them():
    graph, _ = _package_graph()
    hooks = _declared_hooks()
    assert {(m, n) for m, n, _ in hooks} >= {("tensorweave.framework.op_registry", "apply_op"),
                                             ("tensorweave.framework.op_registry", "create_op"),
                                             ("tensorweave.framework.graph_def", "to_proto")}
    for module, name, provider in hooks:
        reached = {provider}
        queue = [provider]
        for current in queue:
            for target in graph[current]:
                if target not in reached:
                    reached.add(target)
                    queue.append(target)
        assert module in reached, f"hook {module}.{name}: its provider {provider} does not build on {module}"
        importlib.import_module(provider)
        assert getattr(importlib.import_module(module), name).installed, f"{provider} does not install {name}"
