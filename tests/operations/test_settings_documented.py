"""The README's configuration table names every environment variable the code reads, and nothing else.

The reads are found in the source (Python's ast, not a regex): `os.environ.get("X")`, `os.environ["X"]`,
`os.environ.setdefault("X", ...)`, `os.getenv("X")` and config/settings.py's `env_bool("X", ...)` /
`env_int("X", ...)`, in every module of the project but the tests and the benchmarks (which set variables for the
servers they start). The table's names are the backticked names in the first column of the rows under
"## Configuration".
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOT_SCANNED = {"tests", "bench", "var", "node_modules", "test-artifacts"}
ENV_HELPERS = {"env_bool", "env_int", "env_float"}
# variables of Python and Django themselves, set (not configured) by the entry points
NOT_SETTINGS = {"DJANGO_SETTINGS_MODULE", "PYTHONPATH"}


def project_modules():
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT).parts
        if parts[0] in NOT_SCANNED or parts[0].startswith("."):
            continue
        yield path


def is_os_environ(node) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "environ" and getattr(node.value, "id", None) == "os"


def first_string(call: ast.Call) -> str | None:
    if call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
        return call.args[0].value
    return None


def variables_read(source: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            reads = (
                (isinstance(func, ast.Attribute) and func.attr in {"get", "setdefault"} and is_os_environ(func.value))
                or (isinstance(func, ast.Attribute) and func.attr == "getenv" and getattr(func.value, "id", "") == "os")
                or (isinstance(func, ast.Name) and func.id in ENV_HELPERS)
            )
            if reads and (name := first_string(node)):
                names.add(name)
        elif isinstance(node, ast.Subscript) and is_os_environ(node.value) and isinstance(node.ctx, ast.Load):
            if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
                names.add(node.slice.value)
    return names


def code_reads() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in project_modules():
        for name in variables_read(path.read_text(encoding="utf-8")) - NOT_SETTINGS:
            found.setdefault(name, []).append(str(path.relative_to(ROOT)))
    return found


def readme_table() -> set[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Configuration\n", 1)[1].split("\n## ", 1)[0]
    names = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            first_cell = line.split("|")[1]
            names |= set(re.findall(r"`([A-Z][A-Z0-9_]*)`", first_cell))
    return names


def test_the_scan_finds_every_kind_of_read():
    source = (
        'import os\nos.environ.get("A")\nos.environ["B"]\nos.environ.setdefault("C", "1")\nos.getenv("D")\n'
        'env_bool("E", False)\nenv_int("F", 1)\nos.environ["G"] = "written, not read"\n'
    )
    assert variables_read(source) == {"A", "B", "C", "D", "E", "F"}
    assert {"DATABASE_URL", "SQLITE_PATH", "REGISTRY_VAR_DIR", "GUNICORN_BIND"} <= set(code_reads())


def test_readme_documents_every_variable_the_code_reads():
    read, documented = code_reads(), readme_table()
    missing = {name: where for name, where in read.items() if name not in documented}
    assert not missing, f"read by the code but not in the README's configuration table: {missing}"


def test_readme_documents_no_variable_the_code_does_not_read():
    stale = readme_table() - set(code_reads())
    assert not stale, f"in the README's configuration table but read nowhere: {sorted(stale)}"
