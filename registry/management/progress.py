"""Progress of a long command: tqdm's bar on a terminal, plain lines elsewhere (issue 26).

A bar redraws itself with carriage returns; in a CI log, `docker logs` or a file those become one long line of
noise. `progress()` gives the bar when its stream is a terminal, else an object with the same few methods that
writes one plain line per step (`import_registry: 2/5 files: b.cereg`)."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sized

from tqdm import tqdm


class PlainProgress:
    """The part of tqdm's interface the commands use, as plain lines."""

    def __init__(self, iterable: Iterable | None, *, desc: str, unit: str, total: int | None, file):
        self.iterable, self.desc, self.unit, self.file = iterable, desc, unit, file
        self.total = total if total is not None else (len(iterable) if isinstance(iterable, Sized) else None)
        self.n, self.postfix = 0, ""

    def _line(self) -> None:
        count = f"{self.n}/{self.total}" if self.total is not None else str(self.n)
        self.file.write(f"{self.desc}: {count} {self.unit}s" + (f": {self.postfix}" if self.postfix else "") + "\n")
        self.file.flush()

    def __iter__(self):
        for item in self.iterable or ():
            self.postfix = str(item)
            yield item
            self.update(1)

    def update(self, n: int = 1) -> None:
        self.n += n
        self._line()

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        self.postfix = text

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def progress(
    iterable: Iterable | None = None, *, desc: str, unit: str, total: int | None = None, disable=False, file=None
):
    """A tqdm bar on a terminal, PlainProgress elsewhere, nothing when `disable`."""
    file = file or sys.stderr
    if disable:
        return tqdm(iterable, disable=True)
    if getattr(file, "isatty", lambda: False)():
        return tqdm(iterable, desc=desc, unit=unit, total=total, file=file)
    return PlainProgress(iterable, desc=desc, unit=unit, total=total, file=file)
