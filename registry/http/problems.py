"""Rendering failures as RFC 9457 problem documents (`application/problem+json`), for every binding."""

from __future__ import annotations

import json

from django.http import Http404, HttpResponse
from rest_framework import exceptions

from ..domain.errors import Finding, Problem, same_name
from .binding import binding_for_path, binding_of

PROBLEM_MEDIA_TYPE = "application/problem+json"


def problem_body(
    problem: Problem, instance: str | None, path_name=str, attribute_name=same_name, attribute_names_of=None
) -> dict:
    """A problem's document with every entity it names written by `path_name` (a binding's name of a store path):
    the detail's subject, the `path` of each listed error, the keys of `referencedby`; and the attributes its
    validation errors name written by `attribute_name` (those listed with a path: by `attribute_names_of(path)`)."""
    body = problem.as_json(instance)
    body["detail"] = problem.detail_in(path_name, attribute_name)
    if body.get("errors"):
        body["errors"] = [_listed(e, path_name, attribute_names_of) for e in problem.errors_in(attribute_name)]
    if path_name is not str:
        if isinstance(body.get("referencedby"), dict):
            body["referencedby"] = {path_name(k): v for k, v in body["referencedby"].items()}
    return body


def _listed(error, path_name, attribute_names_of):
    """One listed error of a problem: an import's `{"path", "reason"}` with the path and the reason's attribute in
    the binding's names."""
    if not (isinstance(error, dict) and isinstance(error.get("path"), str)):
        return error
    reason = error.get("reason")
    if isinstance(reason, Finding) and attribute_names_of is not None:
        reason = reason.written(attribute_names_of(error["path"]))
    return {**error, "path": path_name(error["path"]), **({"reason": reason} if "reason" in error else {})}


def problem_response(problem: Problem, request=None) -> HttpResponse:
    """The project's own problem document (the 0.5-wip binding's dialect), entities named by their store paths."""
    return problem_response_of(problem_body(problem, request.path if request is not None else None), problem)


def problem_response_of(body: dict, problem: Problem, status: int | None = None) -> HttpResponse:
    """A problem document `body` (as a binding wrote it) with the problem's headers, and its status unless the
    binding answers it with its own (`status`)."""
    # a detail may quote client input holding a lone surrogate: written as a JSON \uXXXX escape, the document
    # stays valid JSON instead of failing to encode (a 500)
    text = json.dumps(body, ensure_ascii=False).encode("utf-8", "backslashreplace")
    response = HttpResponse(text, status=status or problem.status, content_type=PROBLEM_MEDIA_TYPE)
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


def problem_from_drf(exc: exceptions.APIException, binding=None) -> Problem:
    detail = exc.detail if isinstance(exc.detail, str) else json.dumps(exc.detail)
    if isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed):
        challenge = binding.challenge if binding is not None else 'Token realm="registry"'
        return Problem("unauthorized", str(detail), headers={"WWW-Authenticate": challenge})
    if isinstance(exc, exceptions.Throttled) and exc.wait is not None:  # when to come back, as DRF's handler says
        return Problem("too-many-requests", str(detail), headers={"Retry-After": str(max(int(exc.wait), 1))})
    for drf_class, kind in DRF_PROBLEMS:
        if isinstance(exc, drf_class):
            return Problem(kind, str(detail))
    if exc.status_code >= 500:
        return Problem(
            "server-error" if exc.status_code == 500 else "service-unavailable", str(detail), status=exc.status_code
        )
    return Problem("bad-request", str(detail), status=exc.status_code)


def problem_for_exception(exc, binding=None) -> Problem | None:
    """The problem an exception of a view stands for (a Problem, DRF's exceptions, Http404), None for any other
    (a bug: Django's handler500 answers it)."""
    if isinstance(exc, Problem):
        return exc
    if isinstance(exc, exceptions.APIException):
        return problem_from_drf(exc, binding)
    if isinstance(exc, Http404):
        return Problem("not-found", str(exc) or "not found")
    return None


def problem_exception_handler(exc, context):
    """DRF's EXCEPTION_HANDLER, for views outside the kernel's base view: problem documents of the 0.5 form."""
    request = context.get("request")
    problem = problem_for_exception(exc)
    if problem is None:
        return None
    response = problem_response(problem, request)
    if isinstance(exc, exceptions.MethodNotAllowed) and context.get("view") is not None:
        response["Allow"] = ", ".join(context["view"].allowed_methods)
    return response


def render_for_request(problem: Problem, request) -> HttpResponse:
    """A problem no view answered, in the words of the binding mounted where the request went."""
    binding = binding_of(request) or binding_for_path(request.path)
    return binding.render_problem(problem, request) if binding is not None else problem_response(problem, request)
