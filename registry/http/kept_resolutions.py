"""URL resolutions kept per path (issue 29): the URL configuration's routes behind one resolver that remembers, per
path, the route it resolved to.

Django resolves every request's path anew: for a schema's POST or a read that misses the fast path, eleven nested
resolvers and about sixty patterns tried (a tenth of a write's Python outside the database and the check). Which route
a path resolves to, and with what arguments, depends on the path alone (the converters here read no database), so
`KeptResolutions` wraps the root's patterns as one include (`path("", include(...))` of them: the same routes, names,
namespaces and reversals) and keeps its answer per path. Django's root resolver still builds each request's
`ResolverMatch` from it. Paths that resolve to nothing (404) are tried each time (nothing kept).

Memory: at most KEPT paths of at most MAX_PATH characters per process (least recently used dropped first: a
registry/store/bounded_cache.py cache, `url_resolutions` in the metrics). A changed setting (tests) forgets them all.
"""

from __future__ import annotations

from django.core.signals import setting_changed
from django.urls import URLResolver
from django.urls.resolvers import RoutePattern

from ..store.bounded_cache import BoundedCache

KEPT = 4096
MAX_PATH = 1024


class KeptResolutions(URLResolver):
    """`path("", include(patterns))`, whose resolutions are kept per path (module docstring)."""

    def __init__(self, patterns: list):
        super().__init__(RoutePattern("", is_endpoint=False), patterns)
        self._kept = BoundedCache("url_resolutions", max_entries=KEPT)
        # connected weakly (a bound method): a test may load the URL configuration again, and this one goes
        setting_changed.connect(self._forget)

    def _forget(self, **_kwargs) -> None:
        self._kept.clear()

    def resolve(self, path):
        if not isinstance(path, str) or len(path) > MAX_PATH:
            return super().resolve(path)
        match = self._kept.get(path)
        if match is None:
            match = super().resolve(path)  # (a Resolver404 raised is not kept)
            # the patterns tried before the one that matched (read by Django's debug page of a 404 only, which a
            # match is not): the root's resolver copies them into each request's match, about sixty here
            match.tried = []
            self._kept.put(path, match)
        return match
