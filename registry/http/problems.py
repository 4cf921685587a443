"""Rendering failures as RFC 9457 problem documents (`application/problem+json`), for every binding."""

from __future__ import annotations

import json
import sys

from django.http import Http404, HttpResponse
from rest_framework import exceptions

from ..errors import Finding, Problem, same_name
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


def problem_response_of(body: dict, problem: Problem) -> HttpResponse:
    """A problem document `body` (as a binding wrote it) with the problem's status and headers."""
    # a detail may quote client input holding a lone surrogate: written as a JSON \uXXXX escape, the document
    # stays valid JSON instead of failing to encode (a 500)
    text = json.dumps(body, ensure_ascii=False).encode("utf-8", "backslashreplace")
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


def not_found_view(request, exception=None):
    """handler404: unknown URLs answer with a problem document too."""
    return render_for_request(Problem("not-found", f"{request.path} is not a path of this registry"), request)


def bad_request_view(request, exception=None):
    """handler400: what Django refuses before a view reads the request, or while it does (a `SuspiciousOperation` or
    `BadRequest`: more files or fields in a multipart or form body than DATA_UPLOAD_MAX_NUMBER_FILES /
    DATA_UPLOAD_MAX_NUMBER_FIELDS allow, a Host not in DJANGO_ALLOWED_HOSTS) as a problem document in the words of
    the binding mounted at the path, like every other refusal. Those named here say which limit; any other says
    no more than Django's own page, whose message may quote the request back."""
    from django.conf import settings
    from django.core.exceptions import DisallowedHost, TooManyFieldsSent, TooManyFilesSent

    if isinstance(exception, TooManyFilesSent):
        detail = (
            f"a multipart body may carry at most {settings.DATA_UPLOAD_MAX_NUMBER_FILES} files "
            "(DATA_UPLOAD_MAX_NUMBER_FILES): send fewer in each request"
        )
    elif isinstance(exception, TooManyFieldsSent):
        detail = (
            f"a form or multipart body may carry at most {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS} fields "
            "(DATA_UPLOAD_MAX_NUMBER_FIELDS)"
        )
    elif isinstance(exception, DisallowedHost):
        detail = "the request's Host is not one this server answers for (DJANGO_ALLOWED_HOSTS)"
    else:
        detail = "the request is malformed"
    return render_for_request(Problem("bad-request", detail), request)


def server_error_view(request):
    """handler500: a failure the server did not foresee (always a bug): logged with its traceback by Django,
    answered as a problem document that gives nothing of it away. A database that is down or busy is not a bug:
    503 with Retry-After (registry.database_errors), also when it failed outside a view."""
    from ..database_errors import is_unavailable, unavailable_response

    exc = sys.exc_info()[1]
    if exc is not None and is_unavailable(exc):
        return unavailable_response(request, exc)
    return render_for_request(
        Problem("server-error", "the server failed to answer this request; the failure is logged for its operators"),
        request,
    )
