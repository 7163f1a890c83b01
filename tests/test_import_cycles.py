"""No import circles among xuezhan's modules: every module can be read from its dependencies
up, and a change that makes two modules need each other fails here, naming the circle.

The graph is built with ``ast`` from the source: every ``import`` and ``from … import`` of a
xuezhan module, at module level or inside a function (a deferred import is still a circle),
except those under ``if TYPE_CHECKING:`` (annotations only, never run). ``from pkg import
name`` is an edge to the module ``pkg.name`` when there is one, else to ``pkg``.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "xuezhan"


def _modules(root: Path) -> dict[str, Path]:
    """Module name -> source file (``.pyi`` stands for an extension module such as ``_core``)."""
    out: dict[str, Path] = {}
    for path in sorted([*root.rglob("*.py"), *root.rglob("*.pyi")]):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out.setdefault(".".join(parts), path)
    return out


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(node: ast.AST, package: str, modules: dict[str, Path]) -> set[str]:
    """The package's modules imported anywhere under ``node`` (``package``: the importer's
    package, for relative imports), leaving out ``if TYPE_CHECKING:`` blocks."""
    if isinstance(node, ast.If) and _type_checking(node.test):
        return set().union(*(_imports(child, package, modules) for child in node.orelse))
    deps: set[str] = set()
    if isinstance(node, ast.Import):
        deps.update(a.name for a in node.names if a.name in modules)
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
            base = ".".join([*anchor, base] if base else anchor)
        for a in node.names:
            target = f"{base}.{a.name}"
            if target in modules:
                deps.add(target)
            elif base in modules:
                deps.add(base)
    for child in ast.iter_child_nodes(node):
        deps |= _imports(child, package, modules)
    return deps


def import_graph(root: Path) -> dict[str, set[str]]:
    """Each module of the package at ``root`` -> the package's modules it imports."""
    modules = _modules(root)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.stem == "__init__" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        graph[name] = _imports(tree, package, modules) - {name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle (as a path that returns to its start) per strongly connected group of
    modules that import each other (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(_circle(graph, group))
    return groups


def _circle(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """A shortest path from the group's first module back to itself, inside the group."""
    first = min(group)
    paths = {first: [first]}
    frontier = [first]
    while frontier:
        nxt = []
        for node in frontier:
            for child in sorted(graph[node] & group):
                if child == first:
                    return [*paths[node], first]
                if child not in paths:
                    paths[child] = [*paths[node], child]
                    nxt.append(child)
        frontier = nxt
    raise AssertionError(f"no circle in {sorted(group)}")  # pragma: no cover - a group is strongly connected


def test_no_module_of_xuezhan_imports_itself_back():
    graph = import_graph(PACKAGE)
    assert len(graph) > 80 and "xuezhan.engine.round" in graph["xuezhan.engine.log"]
    found = cycles(graph)
    assert not found, "import circles: " + "; ".join(" -> ".join(c) for c in found)


def test_the_check_finds_a_deferred_circle_and_ignores_type_checking_imports(tmp_path):
    """The check itself, on a small package: ``a`` imports ``b`` at the top, ``b`` imports ``a``
    inside a function (a circle); ``c`` imports ``a`` only for annotations (not one)."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg import b\n")
    (pkg / "b.py").write_text("def f():\n    from . import a\n    return a\n")
    (pkg / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import thing\nimport pkg.b\n"
    )
    graph = import_graph(pkg)
    assert graph["pkg.c"] == {"pkg.b"} and graph["pkg.b"] == {"pkg.a"}
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.a"]]
