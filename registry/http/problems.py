"""Rendering failures as RFC 9457 problem documents (`application/problem+json`), for every binding."""

from __future__ import annotations

import json
import sys

from django.http import Http404, HttpResponse
from rest_framework import exceptions

from ..errors import Problem

PROBLEM_MEDIA_TYPE = "application/problem+json"


def problem_response(problem: Problem, request=None) -> HttpResponse:
    instance = request.path if request is not None else None
    # a detail may quote client input holding a lone surrogate: written as a JSON \uXXXX escape, the document
    # stays valid JSON instead of failing to encode (a 500)
    text = json.dumps(problem.as_json(instance), ensure_ascii=False).encode("utf-8", "backslashreplace")
    response = HttpResponse(text, status=problem.status, content_type=PROBLEM_MEDIA_TYPE)
    for name, value in problem.headers.items():
        response[name] = value
    return response


DRF_PROBLEMS = (  # DRF's exceptions and the problem types they answer as
    (exceptions.PermissionDenied, "forbidden"),
    (exceptions.NotFound, "not-found"),
    (exceptions.MethodNotAllowed, "method-not-allowed"),
    (exceptions.UnsupportedMediaType, "unsupported-media-type"),
    (exceptions.NotAcceptable, "not-acceptable"),
    (exceptions.ParseError, "malformed-json"),
    (exceptions.Throttled, "too-many-requests"),
)


def problem_from_drf(exc: exceptions.APIException) -> Problem:
    detail = exc.detail if isinstance(exc.detail, str) else json.dumps(exc.detail)
    if isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed):
        return Problem("unauthorized", str(detail), headers={"WWW-Authenticate": 'Token realm="registry"'})
    for drf_class, kind in DRF_PROBLEMS:
        if isinstance(exc, drf_class):
            return Problem(kind, str(detail))
    if exc.status_code >= 500:
        return Problem(
            "server-error" if exc.status_code == 500 else "service-unavailable", str(detail), status=exc.status_code
        )
    return Problem("bad-request", str(detail), status=exc.status_code)


def problem_exception_handler(exc, context):
    """DRF's EXCEPTION_HANDLER: Problem and DRF exceptions become problem documents."""
    request = context.get("request")
    if isinstance(exc, Problem):
        return problem_response(exc, request)
    if isinstance(exc, exceptions.APIException):
        problem = problem_from_drf(exc)
        response = problem_response(problem, request)
        if isinstance(exc, exceptions.MethodNotAllowed) and context.get("view") is not None:
            response["Allow"] = ", ".join(context["view"].allowed_methods)
        return response

    if isinstance(exc, Http404):
        return problem_response(Problem("not-found", str(exc) or "not found"), request)
    return None


def not_found_view(request, exception=None):
    """handler404: unknown URLs answer with a problem document too."""
    return problem_response(Problem("not-found", f"{request.path} is not a path of this registry"), request)


def server_error_view(request):
    """handler500: a failure the server did not foresee (always a bug): logged with its traceback by Django,
    answered as a problem document that gives nothing of it away. A database that is down or busy is not a bug:
    503 with Retry-After (registry.database_errors), also when it failed outside a view."""
    from ..database_errors import is_unavailable, unavailable_response

    exc = sys.exc_info()[1]
    if is_unavailable(exc):
        return unavailable_response(request, exc)
    return problem_response(
        Problem("server-error", "the server failed to answer this request; the failure is logged for its operators"),
        request,
    )
