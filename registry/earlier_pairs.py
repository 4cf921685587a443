"""The (format, document) pairs of a resource's earlier versions as a new version's check reads them, kept per process
(registry/store/earlier_documents.py), with what the checks read of them kept alongside (issue 29): a transitive check
reads every earlier version, and its passes over every pair (the documents alone, their formats, which of them an
early check already compared) made a new version's CPU grow with the versions.

`Earlier`: the pairs as a tuple, with the documents alone (`contents`) and the formats each once in order
(`formats`), both extended with the pairs, not made again. `Prefixed` (both are): a proof of a common beginning. The
pairs of one whole read and those appended to them since share a `lineage`, each kept entry of a lineage extending the
one kept before it (the keeper starts a new lineage otherwise), so two of one lineage hold the same first `confirmed`
pairs; `same_prefix` compares two of them from there alone. A pair this process wrote and has not read again is
appended unconfirmed.

No Django here: the catalog's checks read these on Spark executors too.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from itertools import islice


class Prefixed(tuple):
    """A tuple that shares its first `confirmed` items with every other of the same `lineage` (module docstring)."""

    lineage: object
    confirmed: int


class Earlier(Prefixed):
    """(format, document) of a resource's versions, oldest first, as kept: with the documents alone (`contents`, a
    Prefixed of the same lineage) and the formats each once, in the versions' order (`formats`)."""

    contents: Prefixed
    formats: tuple


def _prefixed(cls, items: Iterable, lineage: object, confirmed: int):
    made = cls(items)
    made.lineage, made.confirmed = lineage, confirmed
    return made


def extended(pairs: Sequence, base: Earlier | None = None, confirmed: bool = True) -> Earlier:
    """`pairs` after `base`'s, in its lineage (a new one without a base); `confirmed`: the pairs are rows read (not a
    row this process wrote and has not read again), so that others of the lineage may hold them too."""
    lineage = base.lineage if base is not None else object()
    count = (len(base) if base is not None else 0) + len(pairs)
    shared = count if confirmed else len(base) if base is not None else 0
    contents = _prefixed(
        Prefixed, (*(base.contents if base is not None else ()), *map(_DOCUMENT, pairs)), lineage, shared
    )
    formats = list(base.formats if base is not None else ())
    for fmt in map(_FORMAT, pairs):  # (a few formats: `in` a short list; a stored value need not be hashable)
        if fmt not in formats:
            formats.append(fmt)
    earlier = _prefixed(Earlier, (*(base if base is not None else ()), *pairs), lineage, shared)
    earlier.contents, earlier.formats = contents, tuple(formats)
    return earlier


_FORMAT, _DOCUMENT = operator.itemgetter(0), operator.itemgetter(1)


def same_prefix(a: Sequence, b: Sequence) -> int:
    """How many of the first items of `a` and `b` are the same, in the same places: at once for those that two of one
    lineage share (Prefixed), the others compared (at C speed while they are the same)."""
    end = min(len(a), len(b))
    start = 0
    if isinstance(a, Prefixed) and isinstance(b, Prefixed) and a.lineage is b.lineage:
        start = min(a.confirmed, b.confirmed, end)
    if all(map(operator.eq, islice(a, start, end), islice(b, start, end))):
        return end
    for index in range(start, end):
        if a[index] != b[index]:
            return index
    return end


def documents_alone(documents: Sequence[tuple[str | None, bytes]]) -> Sequence[bytes]:
    """The documents of (format, document) pairs, in order: the kept ones at once."""
    if isinstance(documents, Earlier):
        return documents.contents
    return tuple(map(_DOCUMENT, documents))


def all_named(documents: Sequence[tuple[str | None, bytes]], start: int = 0) -> bool:
    """Whether every pair from `start` on names its format: the kept ones' at once from the first."""
    if start == 0 and isinstance(documents, Earlier):
        return all(documents.formats)
    return all(map(_FORMAT, islice(documents, start, None)))


def formats_from(documents: Sequence[tuple[str | None, bytes]], start: int = 0) -> list:
    """The formats of the pairs from `start` on, in order (of the kept ones from the first, each once at once: a repeat
    tells nothing more)."""
    if start == 0 and isinstance(documents, Earlier):
        return list(documents.formats)
    return list(map(_FORMAT, islice(documents, start, None)))
