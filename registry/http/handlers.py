"""The handlers of answers no view gives (config/urls.py's handler400, handler404, handler500): problem documents in
the words of the binding mounted where the request went, and a database that is down or busy as 503."""

from __future__ import annotations

import sys

from django.conf import settings
from django.core.exceptions import DisallowedHost, TooManyFieldsSent, TooManyFilesSent

from ..domain.errors import Problem
from .database_errors import is_unavailable, unavailable_response
from .problems import render_for_request


def not_found_view(request, exception=None):
    """handler404: unknown URLs answer with a problem document too."""
    return render_for_request(Problem("not-found", f"{request.path} is not a path of this registry"), request)


def bad_request_view(request, exception=None):
    """handler400: what Django refuses before a view reads the request, or while it does (a `SuspiciousOperation` or
    `BadRequest`: more files or fields in a multipart or form body than DATA_UPLOAD_MAX_NUMBER_FILES /
    DATA_UPLOAD_MAX_NUMBER_FIELDS allow, a Host not in DJANGO_ALLOWED_HOSTS) as a problem document in the words of
    the binding mounted at the path, like every other refusal. Those named here say which limit; any other says
    no more than Django's own page, whose message may quote the request back."""
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
    503 with Retry-After (registry/http/database_errors.py), also when it failed outside a view."""
    exc = sys.exc_info()[1]
    if exc is not None and is_unavailable(exc):
        return unavailable_response(request, exc)
    return render_for_request(
        Problem("server-error", "the server failed to answer this request; the failure is logged for its operators"),
        request,
    )
