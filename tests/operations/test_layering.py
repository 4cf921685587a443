"""The operations app sits on top: it reads the registry and its apps; none of them imports it (only config/ names it,
in the settings, and gunicorn.conf.py for its log format), so the registry runs the same without it."""

import ast

from tests.operations.test_settings_documented import ROOT, project_modules

ALLOWED = {"operations", "config"}


def imported_modules(source: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_no_app_imports_operations():
    offenders = []
    for path in project_modules():
        relative = path.relative_to(ROOT)
        if relative.parts[0] in ALLOWED:
            continue
        for name in imported_modules(path.read_text(encoding="utf-8")):
            if name == "operations" or name.startswith("operations."):
                offenders.append(f"{relative}: {name}")
    assert not offenders, offenders


def test_operations_reads_the_registry():
    # the arrow goes this way: operations imports the registry (errors, models), which proves the scan above sees
    # imports at all
    imported = set()
    for path in (ROOT / "operations").glob("*.py"):
        imported |= imported_modules(path.read_text(encoding="utf-8"))
    assert {"registry.domain.errors", "registry.models"} <= imported
