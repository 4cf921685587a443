"""The shared corpus of real registry documents (`../shared/corpus`, beside the checkout) and the specs, for the
tests that read them: one place that finds them, and fails (never skips) when they are missing, so that a
checkout without `../shared` cannot pass by running none of these tests.

README commands never need these files: what users need ships in the repository (`catalog/demo/`).
"""

from __future__ import annotations

from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared"


class CorpusMissing(RuntimeError):
    """`../shared` (or a part of it) is not beside the checkout: the suite cannot run its corpus tests."""


def shared(*parts: str) -> Path:
    """A directory or file under `../shared`; CorpusMissing (a collection error, so the run fails) if absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        raise CorpusMissing(f"{path} does not exist: the corpus tests need ../shared beside the checkout")
    return path


def corpus(*parts: str) -> Path:
    """`../shared/corpus/PARTS`."""
    return shared("corpus", *parts)


def documents(folder: str, pattern: str) -> list[Path]:
    """The files of `../shared/corpus/FOLDER` matching `pattern`, sorted; CorpusMissing when there are none."""
    found = sorted(corpus(folder).glob(pattern))
    if not found:
        raise CorpusMissing(f"no {pattern} in {corpus(folder)}")
    return found
