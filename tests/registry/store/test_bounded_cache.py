"""The one per-process cache type (registry/store/bounded_cache.py) on its own: least recently used out first,
bounded in entries and bytes, an entry served only for the version it was kept under, and safe under threads. Each
cache's use in its module is tested beside the module; tests/operations/test_metrics.py reads them in /metrics."""

from __future__ import annotations

import threading

from registry.store.bounded_cache import BoundedCache


def test_what_was_put_comes_back_and_the_least_recently_used_goes_first():
    cache = BoundedCache("test_lru", max_entries=2)
    cache.put("a", (1,))
    cache.put("b", (2,))
    assert cache.get("a") == (1,)  # "a" is now the most recently used
    cache.put("c", (3,))
    assert cache.get("b") is None
    assert cache.get("a") == (1,) and cache.get("c") == (3,)
    assert len(cache) == 2


def test_a_bound_of_zero_keeps_nothing():
    cache = BoundedCache("test_zero", max_entries=0)
    cache.put("a", ())
    assert cache.get("a") is None and len(cache) == 0


def test_an_entry_is_served_only_for_its_version():
    cache = BoundedCache("test_versions", max_entries=4)
    cache.put("g", "rendered at 1", version=1)
    assert cache.get("g", version=1) == "rendered at 1"
    assert cache.get("g", version=2) is None and cache.get("g") is None


def test_bytes_are_bounded_and_an_entry_larger_than_an_item_may_be_is_not_kept():
    cache = BoundedCache("test_bytes", max_bytes=10, max_item_bytes=6)
    assert cache.put("a", "a", size=5) and cache.put("b", "b", size=5)
    assert cache.put("c", "c", size=4)  # 14 bytes: "a", the least recently used, goes
    assert cache.get("a") is None and cache.size == 9
    assert not cache.put("d", "d", size=7) and cache.get("d") is None


def test_it_stays_bounded_under_threads():
    cache = BoundedCache("test_threads", max_entries=50)

    def work(n):
        for i in range(2000):
            cache.put(f"{n}-{i % 100}", (i,))
            cache.get(f"{n}-{(i * 7) % 100}")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(cache) == 50
