"""The sha256 digest that keys verdicts by what they were computed from (issue 14); the verdicts are kept in
registry/store/bounded_cache.py caches (`schema_verdicts`, `compatibility_verdicts`, and the compiled schemas of
message checks).

Clients create versions of existing schemas: every POST of a version meta-validates its document and, under a
transitive compatibility level, compares it with every earlier version, and the next version compares with
all of them again. Most of those documents are byte-identical to ones already seen (a retried request, an
import that re-sends unchanged versions, the earlier versions of a transitive check), so the same verdict was
computed again and again. Schema validation (catalog.validators.schemas) and compatibility comparison
(catalog.validators.compatibility) key their verdicts with it.

Keys are sha256 digests of the inputs (`digest`), so the cache holds 64 hex characters per entry rather than
the documents themselves. Values must be immutable (tuples of strings, tuples of frozen dataclasses): callers
get copies (`list(...)`) and cannot change a cached verdict. Only deterministic verdicts belong here: a
verdict reached because of a RecursionError or a MemoryError depends on the moment and is not cached.

A process-local cache: each gunicorn worker and each Spark executor has its own; nothing is shared or
persisted, and a miss only costs the computation it would have cost anyway.
"""

from __future__ import annotations

import hashlib

__all__ = ["digest"]


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
