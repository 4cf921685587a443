"""A database that is down, refuses connections ("too many clients"), has no free pooled connection in time, or is
locked (SQLite) answers 503 with `Retry-After`, never 500 (issue 24 item 12): the request may succeed later and
the client is told so; nothing was written (the request's transaction rolled back with the error).

`DatabaseUnavailableMiddleware.process_exception` turns such an error raised by a view (both bindings, the
admin, the API docs) into the problem document; `registry.http.handlers.server_error_view` (handler500) does the
same for one raised outside a view (a middleware reading the session). Django's own `OperationalError` and
`InterfaceError` are the errors of a connection or a lock, never of a request's content (those are
`IntegrityError`, `DataError`, `ProgrammingError`), so they are the ones answered this way.
"""

from __future__ import annotations

import logging

from django.db import InterfaceError, OperationalError

from ..domain.errors import Problem
from .problems import render_for_request

RETRY_AFTER_SECONDS = 5
logger = logging.getLogger("registry.database")


def is_unavailable(exc: BaseException | None) -> bool:
    return isinstance(exc, OperationalError | InterfaceError)


def unavailable_response(request, exc: BaseException):
    logger.warning("database unavailable for %s %s: %s", request.method, request.path, str(exc).strip()[:300])
    problem = Problem(
        "service-unavailable",
        "the database is unavailable or busy; nothing was written, try again later",
        headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
    )
    return render_for_request(problem, request)


class DatabaseUnavailableMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if is_unavailable(exception):
            return unavailable_response(request, exception)
        return None
