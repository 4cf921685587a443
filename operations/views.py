"""The operations endpoints: `/healthz`, `/readyz` and `/metrics`.

They are answered by operations.middleware.OperationsMiddleware, ahead of Django's host check and HTTPS redirect:
a kubelet probes a pod by its IP address (a Host that DJANGO_ALLOWED_HOSTS rightly refuses), over plain HTTP
(which DJANGO_SSL_REDIRECT would redirect), and Prometheus scrapes pods the same way.
"""

from __future__ import annotations

import hmac

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from prometheus_client import CONTENT_TYPE_LATEST

from registry.domain.errors import Problem

from . import metrics
from .readiness import readiness

PROBLEM_TYPE = "application/problem+json"


def problem_response(problem: Problem, instance: str, **headers) -> JsonResponse:
    response = JsonResponse(problem.as_json(instance), status=problem.status, content_type=PROBLEM_TYPE)
    for name, value in {**problem.headers, **headers}.items():
        response[name] = value
    return response


def no_store(response: HttpResponse) -> HttpResponse:
    response["Cache-Control"] = "no-store"
    return response


def healthz(request: HttpRequest) -> HttpResponse:
    """The process is alive and answers: no database, no broker, no file."""
    return no_store(JsonResponse({"status": "alive"}))


def readyz(request: HttpRequest) -> HttpResponse:
    """200 when this process can serve the registry; 503 naming the first check that failed."""
    result = readiness()
    if result.ready:
        return no_store(JsonResponse({"status": "ready", "checks": result.checks}))
    problem = Problem("service-unavailable", result.reason, members={"checks": result.checks})
    return no_store(problem_response(problem, request.path))


def metrics_view(request: HttpRequest) -> HttpResponse:
    """Prometheus exposition, for a scraper holding REGISTRY_METRICS_TOKEN; absent (404) while that is unset."""
    token = settings.REGISTRY_METRICS_TOKEN
    if not token:
        problem = Problem("not-found", f"{request.path} is off: set REGISTRY_METRICS_TOKEN to expose metrics")
        return problem_response(problem, request.path)
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token.encode()):
        problem = Problem("unauthorized", "metrics need 'Authorization: Bearer <REGISTRY_METRICS_TOKEN>'")
        return problem_response(problem, request.path, **{"WWW-Authenticate": 'Bearer realm="metrics"'})
    return no_store(HttpResponse(metrics.exposition(), content_type=CONTENT_TYPE_LATEST))


ENDPOINTS = {"/healthz": healthz, "/readyz": readyz, "/metrics": metrics_view}
