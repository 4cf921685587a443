"""One kind of per-process cache: bounded, least recently used dropped first, each entry valid for the version of
what it was built from, its size, hits and misses in `/metrics`.

A process (a gunicorn worker) keeps what it rendered, parsed or checked so that the next request costs less: whole
answers, groups' parts, URL resolutions, remembered HTTP Basic pairs, earlier documents, compatibility frontiers,
parsed schemas and verdicts (the list: docs/performance.md, "Per-process caches"). Each used to have its own
dictionary, bound and eviction; here they share one type:

- **Bound.** At most `max_entries` entries and at most `max_bytes` bytes (the sizes `put` is given; a callable is
  read at each `put`, so that a setting changed in a test applies); the least recently used entries go first; an
  entry larger than `max_item_bytes` (default: the whole bound) is not kept.
- **Freshness.** An entry is put with the `version` of what it was built from (a group's state, the registry's change
  marker, a row's digest) and `get` with the version read now: another version is a miss (the entry stays until it
  is replaced or pushed out). Entries whose key says everything (a URL's resolution, a document's digest) have no
  version; an entry that carries what it was built from, for its user to compare with what it reads now (the earlier
  documents' digest, a frontier's documents), is looked up with `counted=False` and counted by `count`.
- **Metrics.** `registry_cache_entries`, `registry_cache_bytes` (summed over live workers under gunicorn),
  `registry_cache_hits_total` and `registry_cache_misses_total`, each labelled with the cache's name
  (operations/metrics.py exposes them).

Written by hand: functools.lru_cache counts entries, not bytes, and knows no versions; cachetools' LRUCache has sizes
but no versions and no counts, and would need a lock and the counting around it anyway.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge

CACHE_METRICS = CollectorRegistry()  # (in multiprocess mode their values go to the shared files whatever registry)
ENTRIES = Gauge(
    "registry_cache_entries", "Entries kept, by cache.", ["cache"], registry=CACHE_METRICS, multiprocess_mode="livesum"
)
BYTES = Gauge(
    "registry_cache_bytes",
    "Bytes kept (as each cache counts them), by cache.",
    ["cache"],
    registry=CACHE_METRICS,
    multiprocess_mode="livesum",
)
HITS = Counter("registry_cache_hits", "Look-ups answered from the cache, by cache.", ["cache"], registry=CACHE_METRICS)
MISSES = Counter(
    "registry_cache_misses",
    "Look-ups the cache could not answer (absent, or of another version), by cache.",
    ["cache"],
    registry=CACHE_METRICS,
)

caches: dict[str, BoundedCache] = {}


class BoundedCache:
    def __init__(
        self,
        name: str,
        *,
        max_entries: int | None = None,
        max_bytes: int | Callable[[], int] | None = None,
        max_item_bytes: int | Callable[[], int] | None = None,
    ) -> None:
        self.name = name
        self.max_entries, self.max_bytes, self.max_item_bytes = max_entries, max_bytes, max_item_bytes
        self._lock = threading.Lock()
        self._entries: OrderedDict[Hashable, tuple[Any, Any, int]] = OrderedDict()  # key -> (version, value, size)
        self._bytes = 0
        self._hits, self._misses = HITS.labels(name), MISSES.labels(name)
        self._entries_gauge, self._bytes_gauge = ENTRIES.labels(name), BYTES.labels(name)
        caches[name] = self  # (a test's own instance of a kept cache's class takes its name: the same series)

    def get(self, key: Hashable, version: Any = None, default: Any = None, *, counted: bool = True) -> Any:
        """The value kept under `key` for `version`, else `default`. `counted`: a look-up of a request's (a hit or a
        miss in the metrics), not one of the code that is about to put."""
        with self._lock:
            entry = self._entries.get(key)  # (None: absent; an entry is a tuple)
            if entry is None or entry[0] != version:
                if counted:
                    self._misses.inc()
                return default
            self._entries.move_to_end(key)
        if counted:
            self._hits.inc()
        return entry[1]

    def put(self, key: Hashable, value: Any, *, size: int = 1, version: Any = None) -> bool:
        """Keep `value` under `key` for `version` (replacing what was there); whether it was kept (not too large)."""
        max_bytes = _bound(self.max_bytes)
        max_item = _bound(self.max_item_bytes)
        if max_item is None:
            max_item = max_bytes
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= old[2]
            kept = max_item is None or size <= max_item
            if kept:
                self._entries[key] = (version, value, size)
                self._bytes += size
            while self._entries and (
                (max_bytes is not None and self._bytes > max_bytes)
                or (self.max_entries is not None and len(self._entries) > self.max_entries)
            ):
                _key, (_version, _value, dropped) = self._entries.popitem(last=False)
                self._bytes -= dropped
            self._report()
        return kept

    def count(self, hit: bool) -> None:
        """Count a look-up made with `counted=False` whose entry the caller checked itself (a hit when it served)."""
        (self._hits if hit else self._misses).inc()

    def pop(self, key: Hashable) -> None:
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= old[2]
                self._report()

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0
            self._report()

    def _report(self) -> None:
        self._entries_gauge.set(len(self._entries))
        self._bytes_gauge.set(self._bytes)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: Hashable) -> bool:
        """Whether an entry is kept under `key`, whatever its version (not counted, not made the most recent)."""
        return key in self._entries

    @property
    def size(self) -> int:
        """Bytes kept (the sizes given to `put`)."""
        return self._bytes


def _bound(bound: int | Callable[[], int] | None) -> int | None:
    return bound() if callable(bound) else bound
