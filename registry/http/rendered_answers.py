"""Whole-registry answers (`GET /?inline`, the document export) kept rendered until the next committed change.

Rendering the whole registry costs one query per group type and level and the JSON of every entity; it changed only when a write committed. The registry's change marker
(`selectors.change_marker`: it moves with every committed write, and reading it costs one small query whatever
the registry's history, registry/store/change_marker.py) says when that happens, so an answer rendered under one marker
is served again, as bytes, to every request that reads the same marker: a write is visible in the next read, on every worker, since each reads the marker first.

Per process (each gunicorn worker keeps its own), at most REGISTRY_RENDERED_ANSWER_BYTES in all, least recently used
dropped first (an answer of an older marker is never served again): a larger registry streams every time, its memory
bounded by a group. A registry/store/bounded_cache.py cache, `rendered_answers` in the metrics.
An answer is kept only when it was streamed to its end (a client that went away leaves nothing behind).
Not Django's cache framework: it stores whole responses under keys it cannot tie to the marker.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from django.conf import settings

from ..store.bounded_cache import BoundedCache


class RenderedAnswers:
    """Whole answers under the change marker they were rendered at (registry/store/bounded_cache.py)."""

    def __init__(self):
        self._cache = BoundedCache("rendered_answers", max_bytes=lambda: settings.REGISTRY_RENDERED_ANSWER_BYTES)

    def get(self, marker: str, key: tuple) -> bytes | None:
        return self._cache.get(key, marker)

    def put(self, marker: str, key: tuple, body: bytes) -> None:
        self._cache.put(key, body, size=len(body), version=marker)

    def keep(self, marker: str, key: tuple, chunks: Iterable[str | bytes]) -> Iterator[bytes]:
        """Yield the chunks as bytes; when the last one was sent and the whole fits the limit, keep it."""
        limit = settings.REGISTRY_RENDERED_ANSWER_BYTES
        parts: list[bytes] | None = []
        size = 0
        for chunk in chunks:
            data = chunk.encode("utf-8") if isinstance(chunk, str) else chunk
            if parts is not None:
                size += len(data)
                if size <= limit:
                    parts.append(data)
                else:
                    parts = None  # too large to keep: streamed only
            yield data
        if parts is not None:
            self.put(marker, key, b"".join(parts))


rendered_answers = RenderedAnswers()
