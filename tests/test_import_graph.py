"""The project's modules import each other without a circle (issue 38): a circle makes a module's meaning depend on
which of its members is imported first, and a function-level import that hides one only moves the failure to the
first call. The graph is read from the source with `ast`, every import counted wherever it stands (a function's
body too); tests, migrations and the benchmarks are not modules of the project."""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APPS = ("asyncapi", "catalog", "config", "confluent", "endpoints", "operations", "pipeline", "registry", "subscriptions",
        "sync")  # fmt: skip


def module_files() -> dict[str, Path]:
    """Dotted name -> file of every module of the project's apps (a package by its `__init__.py`)."""
    out = {}
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if "migrations" in parts:
                continue
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = path
    return out


def imported(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project's modules that the module `name` imports, anywhere in its text."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()

    def add(target: str) -> None:
        while target and target not in modules:  # `a.b.c` of a name inside module `a.b`: the module
            target = target.rpartition(".")[0]
        if target and target != name:
            found.add(target)

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                add(full if full in modules else base)
    return found


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return out


def import_graph() -> dict[str, set[str]]:
    modules = module_files()
    return {name: imported(name, path, modules) for name, path in modules.items()}


def test_the_modules_import_each_other_without_a_circle():
    found = circles(import_graph())
    assert not found, "modules that import each other in a circle:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_a_circle_is_found():
    """The check itself: a circle of three, and one through a package's `__init__`."""
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"p": {"p.x"}, "p.x": {"p"}}) == [["p", "p.x"]]


def function_level_imports(path: Path) -> list[tuple[int, bool]]:
    """(line, explained) of each import inside a function of the file at `path`. An import is explained by a comment
    on one of its lines or on the line above it; an import that follows another one directly shares its comment."""
    text = path.read_text(encoding="utf-8")
    comments = {
        token.start[0]
        for token in tokenize.generate_tokens(io.StringIO(text).readline)
        if token.type == tokenize.COMMENT
    }
    found: list[tuple[int, bool]] = []

    def body_imports(statements: list[ast.stmt]) -> None:
        explained = False
        previous_was_import = False
        for statement in statements:
            if isinstance(statement, ast.Import | ast.ImportFrom):
                own = any(line in comments for line in range(statement.lineno - 1, (statement.end_lineno or 0) + 1))
                explained = own or (previous_was_import and explained)
                found.append((statement.lineno, explained))
                previous_was_import = True
            else:
                previous_was_import = False

    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(node):
                for field in ("body", "orelse", "finalbody", "handlers"):
                    statements = getattr(inner, field, None)
                    if isinstance(statements, list) and statements and isinstance(statements[0], ast.stmt):
                        body_imports(statements)
    return sorted(set(found))


def test_a_function_level_import_says_why_it_is_not_at_the_top():
    """An import inside a function hides what a module depends on: it stands there only when the top cannot hold
    it (an app's `ready()`, a module the Spark executors load without Django's app registry, an optional driver, or
    a library whose loading would cost every process its start-up), and a comment on its line or the line above
    says which (issue 38)."""
    unexplained = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in module_files().values()
        for line, explained in function_level_imports(path)
        if not explained
    ]
    assert not unexplained, "imports inside a function without a comment saying why:\n" + "\n".join(unexplained)


def test_an_unexplained_function_level_import_is_found(tmp_path):
    """The check itself: an import in a function needs its comment; the one right after it shares it."""
    module = tmp_path / "m.py"
    module.write_text(
        "import json\n\n\ndef f():\n    import re\n\n\ndef g():\n    # the app registry is ready only here\n"
        "    import io\n    import os\n\n    x = 1\n    import sys  # loads late: start-up\n    import csv\n"
    )
    assert function_level_imports(module) == [(5, False), (10, True), (11, True), (14, True), (15, True)]


# the apps that plug into the engine: registry/ may not import them (arrows point into registry/, never out of it)
PLUGGED_IN = ("asyncapi", "catalog", "confluent", "endpoints", "operations", "pipeline", "subscriptions", "sync")


def test_the_engine_imports_no_app_that_plugs_into_it():
    graph = import_graph()
    outward = sorted(
        (name, target)
        for name, targets in graph.items()
        if name.split(".")[0] == "registry"
        for target in targets
        if target.split(".")[0] in PLUGGED_IN
    )
    assert outward == []
