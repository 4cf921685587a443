"""Middleware of the operations app (both are first in config/settings.py's MIDDLEWARE, in this order).

- RequestContextMiddleware: gives each request its id (operations/logs.py), sends it back as `X-Request-ID`,
  counts the request and its latency by route, method and status (operations/metrics.py), and writes one
  access log record (logger `operations.access`, INFO: on with LOG_FORMAT=json).
- OperationsMiddleware: answers `/healthz`, `/readyz` and `/metrics` itself, before the host check and the HTTPS
  redirect of the middleware after it (operations/views.py says why); any other method than GET or HEAD is 405.
"""

from __future__ import annotations

import logging
import time

from registry.domain.errors import Problem

from . import logs, metrics
from .views import ENDPOINTS, problem_response

access_log = logging.getLogger("operations.access")


def route_of(request) -> str:
    """The URL pattern that answered (`/schemaGroups/<str:gid>`), so that labels stay few; the operations
    endpoints by their path; anything no pattern matched as `unmatched`."""
    if request.path in ENDPOINTS:
        return request.path
    match = getattr(request, "resolver_match", None)
    if match is None or match.route is None:
        return "unmatched"
    return "/" + match.route


def record(request, *, request_id: str, status: int, seconds: float) -> None:
    """Count the answer and its latency by route, method and status, and write its access log record."""
    route = route_of(request)
    metrics.observe_request(route=route, method=request.method, status=status, seconds=seconds)
    if access_log.isEnabledFor(logging.INFO):
        access_log.info(
            "%s %s %s",
            request.method,
            request.path,
            status,
            extra={
                "method": request.method,
                "path": request.path,
                "route": route,
                "status": status,
                "duration_ms": round(seconds * 1000, 1),
                "request_id": request_id,
            },
        )


class RequestContextMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request_id = request.request_id = logs.request_id_for(request.META.get(logs.META_KEY))
        token = logs.current_request_id.set(request_id)
        started = time.perf_counter()
        try:
            response = self.get_response(request)
            response[logs.HEADER] = request_id
            record(request, request_id=request_id, status=response.status_code, seconds=time.perf_counter() - started)
            return response
        finally:
            logs.current_request_id.reset(token)


def replayed(request, status: int, seconds: float) -> list[tuple[str, str]]:
    """What this middleware gives an answer, for one the fast path's WSGI layer replays before any middleware runs
    (registry/http/fast_reads.py; registered in apps.py): its request id, counted and logged."""
    request_id = request.request_id = logs.request_id_for(request.META.get(logs.META_KEY))
    record(request, request_id=request_id, status=status, seconds=seconds)
    return [(logs.HEADER, request_id)]


class OperationsMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        view = ENDPOINTS.get(request.path_info)
        if view is None:
            return self.get_response(request)
        if request.method not in ("GET", "HEAD"):
            problem = Problem("method-not-allowed", f"{request.path} answers GET and HEAD only")
            return problem_response(problem, request.path, Allow="GET, HEAD")
        return view(request)
