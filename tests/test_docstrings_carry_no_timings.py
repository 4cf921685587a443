"""Docstrings and comments say what the code does and why, not how fast it went (issue 38): a timing, a throughput or
a measurement log goes to docs/performance.md, whose history names the module it is about. A docstring that again
carries one (read with `ast`; comments with `tokenize`) fails here, naming the file, the line and the figure."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

from tests.test_import_graph import APPS, ROOT

NUMBER = r"\d[\d,.]*(?:\s*-\s*\d[\d,.]*)?"
FIGURE = re.compile(
    rf"""
    {NUMBER}\s*(?:ms|us|µs|ns)\b                                   # 0.5 ms, 20-50 ms, 18 us
    | {NUMBER}\s*s\s+(?:a|an|per|each|at|for)\b                     # 0.2 s a hash, 0.8 s at 500 versions
    | \bin\s+{NUMBER}\s*s\b                                         # drew nothing in 600 s
    | \b(?:took|takes|taking|cost|costs|waited)\s+(?:about\s+|up\s+to\s+)?{NUMBER}\s*(?:s|seconds?|minutes?)\b
    | {NUMBER}\s*(?:req|requests|writes|reads)\s*/\s*s\b            # 3,198 req/s
    | \b(?:{NUMBER}|two|three|four|five|ten|twenty|fifty|hundred)\s+times\s+(?:faster|slower|as\s+(?:fast|slow|much))
    | (?<![\w"'])\d+(?:\.\d+)?\s*[x×](?=[\s,;)]|$)                   # 1.08x, 27×
    | {NUMBER}\s*(?:KB|MB|KiB|MiB)\s+(?:a|per)\s+second
    | {NUMBER}\s*%
    | \bmeasured\b | \bcProfile\b | \bcallgrind\b
    """,
    re.VERBOSE | re.IGNORECASE,
)


def source_files() -> list[Path]:
    """Every Python file of the apps (migrations included) and gunicorn's configuration; not the tests, nor the
    benchmarks in `bench/`, whose figures are their output."""
    return [ROOT / "gunicorn.conf.py", *(path for app in APPS for path in sorted((ROOT / app).rglob("*.py")))]


def figures_in(path: Path) -> list[str]:
    """`file:line: figure` of each timing in a docstring or comment of `path`."""
    text = path.read_text(encoding="utf-8")
    where = path.relative_to(ROOT)
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                line = node.body[0].lineno
                found += [f"{where}:{line}: {match.group(0)!r} in a docstring" for match in FIGURE.finditer(doc)]
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            line = token.start[0]
            found += [f"{where}:{line}: {match.group(0)!r} in a comment" for match in FIGURE.finditer(token.string)]
    return found


def test_no_docstring_or_comment_carries_a_timing():
    found = [figure for path in source_files() for figure in figures_in(path)]
    assert not found, "timings belong in docs/performance.md, not in the code:\n" + "\n".join(found)


def test_a_timing_is_found():
    """The check itself: the forms the code's docstrings once held are found, the settings' defaults are not."""
    timings = ["about 1.4 ms of the 2.3 ms", "20-50 ms", "about 18 us of the client's CPU", "0.2 s a hash",
               "8,000 objects took 64 s", "0.45 s for 7,500 versions", "in 600 s", "waited 10-15 s", "3,198 req/s", "about 250 times faster",
               "ten times slower", "1.08x", "27×", "about 200 KB a second", "+1.7%", "measured here"]  # fmt: skip
    for text in timings:
        assert FIGURE.search(text), text
    for text in ["from 1 s, factor 2", "SQLITE_TIMEOUT (20 s)", "RabbitMQ 3.x", '"1x:y"', "a few microseconds",
                 "the budget measures the work", "lightMeasured", "4 MiB"]:  # fmt: skip
        assert not FIGURE.search(text), text
