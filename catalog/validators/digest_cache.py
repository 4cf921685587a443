"""A small thread-safe LRU of verdicts keyed by a sha256 digest of what they were computed from (issue 14).

Clients create versions of existing schemas: every POST of a version meta-validates its document and, under a
transitive compatibility level, compares it with every earlier version, and the next version compares with
all of them again. Most of those documents are byte-identical to ones already seen (a retried request, an
import that re-sends unchanged versions, the earlier versions of a transitive check), so the same verdict was
computed again and again. Schema validation (catalog.validators.schemas) and compatibility comparison
(catalog.validators.compatibility) keep their verdicts here.

Keys are sha256 digests of the inputs (`digest`), so the cache holds 64 hex characters per entry rather than
the documents themselves. Values must be immutable (tuples of strings, tuples of frozen dataclasses): callers
get copies (`list(...)`) and cannot change a cached verdict. Only deterministic verdicts belong here: a
verdict reached because of a RecursionError or a MemoryError depends on the moment and is not cached.

A process-local cache: each gunicorn worker and each Spark executor has its own; nothing is shared or
persisted, and a miss only costs the computation it would have cost anyway.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Any

__all__ = ["DigestLRU", "digest"]


def digest(*parts: bytes | str | None) -> str:
    """The sha256 hex digest of `parts`, each length-prefixed so that ("ab", "c") and ("a", "bc") differ, and
    None distinct from the empty string."""
    h = hashlib.sha256()
    for part in parts:
        if part is None:
            h.update(b"N")
            continue
        data = part.encode("utf-8") if isinstance(part, str) else bytes(part)
        h.update(b"S" if isinstance(part, str) else b"B")
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return h.hexdigest()


class DigestLRU:
    """At most `maxsize` values, the ones used last, keyed by digests; every method holds one lock.

    `maxsize` 0 keeps nothing (every `get` misses). `get` returns None on a miss, so None is not a value.
    Two threads missing the same key both compute the verdict; the second `put` replaces the first, which
    is equal since verdicts are deterministic.
    """

    def __init__(self, maxsize: int):
        if maxsize < 0:
            raise ValueError("maxsize must be 0 or more")
        self.maxsize = maxsize
        self._data: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> Any | None:
        """The value stored under `key` (now the most recently used), or None."""
        with self._lock:
            value = self._data.get(key)
            if value is None:
                self.misses += 1
                return None
            self._data.move_to_end(key)
            self.hits += 1
            return value

    def put(self, key: str, value: Any) -> None:
        """Store `value` (not None, immutable) under `key`, dropping the least recently used beyond maxsize."""
        if value is None:
            raise ValueError("None cannot be cached (it means a miss)")
        with self._lock:
            if self.maxsize == 0:
                return
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.maxsize:
                self._data.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self.hits = self.misses = 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)
