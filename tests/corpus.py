"""The shared corpus of real registry documents (`../shared/corpus`, beside the checkout) and the specs, for the
tests that read them: one place that finds them.

A fresh `git clone` has no `../shared`: the tests that read it skip then, all with the one reason of `MISSING`
(pytest's summary folds them into one line naming the directory), and every other test runs. With
REQUIRE_SERVICES=1 (CI) a missing corpus fails the run instead (CorpusMissing), so CI cannot pass by running
none of these tests. How a test says it reads the corpus:

* a lookup inside the test (`corpus("seed-shape", "x.cereg")`, `documents(...)`) skips that test;
* a lookup at module level skips the whole module (only in modules that are all about the corpus and that no
  other module imports: an import of a skipped module would skip the importer too);
* parametrize over the corpus with `cases(lambda: ...)` (no case when the corpus is missing) and mark the test
  `@pytest.mark.corpus` (tests/conftest.py skips it then, with the same reason).

README commands never need these files: what users need ships in the repository (`catalog/demo/`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
# seen once, when the suite starts: a corpus that appears during the run (someone links it) must not turn the empty
# parameter sets of `cases` into tests that run with nothing, or the other way round
PRESENT = SHARED.exists()
MISSING = f"needs the shared corpus {SHARED} (absent: clone it beside the checkout; REQUIRE_SERVICES=1 fails instead)"

T = TypeVar("T")


class CorpusMissing(RuntimeError):
    """`../shared` (or a part of it) is not beside the checkout and REQUIRE_SERVICES=1: the run fails."""


def required() -> bool:
    """REQUIRE_SERVICES=1: a missing corpus fails instead of skipping (as a missing PostgreSQL does)."""
    return os.environ.get("REQUIRE_SERVICES", "").strip().lower() in {"1", "true", "yes", "on"}


def missing(what: Path | str) -> None:
    """Skip (a test, or the module being imported) for the missing corpus; CorpusMissing under REQUIRE_SERVICES."""
    if required():
        raise CorpusMissing(f"REQUIRE_SERVICES=1 but {what} does not exist: the corpus tests need ../shared")
    # one reason from this one line: pytest's summary shows every such skip as one line
    pytest.skip(MISSING, allow_module_level=True)


def shared(*parts: str) -> Path:
    """A directory or file under `../shared`, or a skip (see `missing`) when it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        missing(path)
    return path


def corpus(*parts: str) -> Path:
    """`../shared/corpus/PARTS`."""
    return shared("corpus", *parts)


def documents(folder: str, pattern: str) -> list[Path]:
    """The files of `../shared/corpus/FOLDER` matching `pattern`, sorted; a skip (see `missing`) when there are none."""
    found = sorted(corpus(folder).glob(pattern))
    if not found:
        missing(f"{corpus(folder)}/{pattern}")
    return found


def cases(make: Callable[[], Iterable[T]]) -> list[T]:
    """`make()`'s cases for a parametrize, or none when `../shared` is absent (the test, marked
    `@pytest.mark.corpus`, then skips with MISSING); under REQUIRE_SERVICES `make()` runs and fails."""
    if not PRESENT and not required():
        return []
    return list(make())
