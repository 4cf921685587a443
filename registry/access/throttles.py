"""Throttling of anonymous callers on the expensive routes (issue 24): reads are public, so the routes that run a
caller's schema or data, or draw the whole catalog, could be called in a loop by anyone.

`AnonymousRateThrottle` is DRF's `SimpleRateThrottle` for one scope, named by the view's `throttle_scope`, that
counts anonymous requests per client address (DRF's `get_ident`: `REMOTE_ADDR`, or with `DJANGO_TRUST_FORWARDED=1`
the last `X-Forwarded-For` entry, the one the proxy appended: DRF's `NUM_PROXIES`, 0 or 1, config/settings.py) and
lets signed-in users through. Each scope's rate is a setting read at
request time, `"N/second|minute|hour|day"` or `off`:

- `checks`: the message validation routes of both bindings, the compatibility dry run and the diff
  (`REGISTRY_THROTTLE_ANON_CHECKS`);
- `map`: `GET /map.svg` (`REGISTRY_THROTTLE_ANON_MAP`).

A refused request is DRF's `Throttled` (429 with `Retry-After`), which the problem handler renders as a
`too-many-requests` problem. Counts are kept in Django's default cache: per process with the default local-memory
cache, so each gunicorn worker counts on its own unless `CACHES` names a shared cache.
"""

from __future__ import annotations

from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle

SETTINGS = {"checks": "REGISTRY_THROTTLE_ANON_CHECKS", "map": "REGISTRY_THROTTLE_ANON_MAP"}
OFF = {"", "0", "off", "none"}


class AnonymousRateThrottle(SimpleRateThrottle):
    """Anonymous requests to views of one `throttle_scope` (`checks`, `map`), per client address."""

    def __init__(self):  # the scope is the view's, known only in allow_request
        pass

    def allow_request(self, request, view):
        if request.user and request.user.is_authenticated:
            return True
        self.scope = getattr(view, "throttle_scope", None)
        self.rate = self.get_rate()
        if self.rate is None:
            return True
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)

    def get_rate(self):
        value = getattr(settings, SETTINGS.get(self.scope or "", ""), None)
        if value is None or str(value).strip().lower() in OFF:
            return None
        return str(value).strip()

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": f"anon-{self.scope}", "ident": self.get_ident(request)}


__all__ = ["AnonymousRateThrottle"]
