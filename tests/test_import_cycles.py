"""No import circles: a module never imports, directly or through others, a module that
imports it back. Read from the sources (``ast``), not by importing them.

Two depths: every module of ``gostop_records`` by its imports at module level (what runs
when it is imported), and by every import it writes, those under ``TYPE_CHECKING`` and those
inside functions included (a reader following the imports meets no circle).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

Graph = dict[str, set[str]]


def _modules(root: Path, package: str) -> dict[str, Path]:
    out = {}
    for path in sorted((root / package.replace(".", "/")).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(body: list[ast.stmt], every: bool) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements of a module body: at module level (and in its ``if``,
    ``try`` and ``with`` blocks, but not under ``TYPE_CHECKING``), or ``every`` one."""
    if every:
        for node in ast.walk(ast.Module(body=body, type_ignores=[])):
            if isinstance(node, ast.Import | ast.ImportFrom):
                yield node
        return
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If) and not _is_type_checking(node.test):
            yield from _imports(node.body + node.orelse, every)
        elif isinstance(node, ast.Try):
            handlers = [s for h in node.handlers for s in h.body]
            yield from _imports(node.body + handlers + node.orelse + node.finalbody, every)
        elif isinstance(node, ast.With):
            yield from _imports(node.body, every)


def _ancestors(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def _targets(
    module: str, is_package: bool, node: ast.Import | ast.ImportFrom, known: set[str]
) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = node.module or ""
    if node.level:
        parts = module.split(".") if is_package else module.split(".")[:-1]
        parts = parts[: len(parts) - (node.level - 1)]
        base = ".".join([*parts, *([node.module] if node.module else [])])
    # ``from pkg import mod`` imports the module ``pkg.mod``; ``from mod import name`` mod
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]


def import_graph(root: Path, package: str, every: bool) -> Graph:
    """Each module of ``package`` and the modules of ``package`` it imports. Importing a
    module runs its packages' ``__init__`` first, except those the importer is inside."""
    modules = _modules(root, package)
    known = set(modules)
    graph: Graph = {}
    for name, path in modules.items():
        deps: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in _imports(tree.body, every):
            for target in _targets(name, path.name == "__init__.py", node, known):
                for dep in (target, *_ancestors(target)):
                    if dep in known and dep not in _ancestors(name):
                        deps.add(dep)
        deps.discard(name)
        graph[name] = deps
    return graph


def circles(graph: Graph) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_package_has_no_circle_at_module_level() -> None:
    assert circles(import_graph(ROOT, "gostop_records", every=False)) == []


def test_the_package_has_no_circle_counting_every_import() -> None:
    assert circles(import_graph(ROOT, "gostop_records", every=True)) == []


def test_a_circle_is_found(tmp_path: Path) -> None:
    """The finder sees a circle through a function-level and a ``TYPE_CHECKING`` import,
    and only with ``every``."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from . import b\n")
    (pkg / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import C\n"
    )
    (pkg / "c.py").write_text("from .a import f\nC = 1\n")
    assert circles(import_graph(tmp_path, "pkg", every=True)) == [["pkg.a", "pkg.b", "pkg.c"]]
    assert circles(import_graph(tmp_path, "pkg", every=False)) == []


@pytest.mark.parametrize("every", [False, True])
def test_a_package_init_importing_its_module_is_no_circle(tmp_path: Path, every: bool) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .a import f\n")
    (pkg / "a.py").write_text("from . import b\n\ndef f():\n    pass\n")
    (pkg / "b.py").write_text("X = 1\n")
    assert circles(import_graph(tmp_path, "pkg", every=every)) == []
