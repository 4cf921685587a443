"""README's lint line says how many files mypy checks (issue 38 item 4): the number follows the configuration.

The files are counted as mypy finds them: every `.py` file under the `files` of pyproject.toml's [tool.mypy], less
those its `exclude` patterns match (matched against the path relative to the repository, `/`-separated). A change to
what mypy checks that leaves README's number behind fails here, naming both numbers.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def checked_files() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    excluded = [re.compile(pattern) for pattern in config.get("exclude", [])]
    found = []
    for entry in config["files"]:
        path = ROOT / entry
        for file in [path] if path.is_file() else sorted(path.rglob("*.py")):
            relative = file.relative_to(ROOT).as_posix()
            if not any(pattern.search(relative) for pattern in excluded):
                found.append(relative)
    return found


def test_readme_names_the_number_of_files_mypy_checks():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    lint = readme[readme.index("`make lint` runs") :].split("\n\n")[0]
    stated = re.search(r"\((\d+) files", lint)
    assert stated is not None, f"README's lint line names no count of files: {lint!r}"
    assert int(stated.group(1)) == len(checked_files()), (
        f"README says mypy checks {stated.group(1)} files; pyproject.toml's [tool.mypy] names {len(checked_files())}"
    )
