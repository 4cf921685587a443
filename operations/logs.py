"""Request ids and structured logs.

Each request gets an id (the proxy's `X-Request-ID` when it sends a sane one, else a new one), kept in a
context variable for the request's duration, so every log record written while it runs carries it, and sent
back in the `X-Request-ID` response header. With `LOG_FORMAT=json` (config/settings.py) records are one JSON
object a line (python-json-logger), with the request id as `request_id`.
"""

from __future__ import annotations

import contextvars
import logging
import os
import re

from pythonjsonlogger.json import JsonFormatter

HEADER = "X-Request-ID"
META_KEY = "HTTP_X_REQUEST_ID"  # the header as the request's META names it
# what is accepted from a client or proxy: ids that fit in a log field and a header as they are
ACCEPTED_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")

current_request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)


def request_id_for(incoming: str | None) -> str:
    """The id of a request: the caller's when it is well formed, else a new random one."""
    if incoming and ACCEPTED_ID.match(incoming):
        return incoming
    return os.urandom(16).hex()  # 32 hex digits, as uuid4().hex, without building a UUID


class RequestIdFilter(logging.Filter):
    """Puts the current request's id on every record (`-` outside a request), for any formatter."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            # Django logs an error answer (logger django.request) after the middleware has returned, with the
            # request on the record: its id is on the request
            from_request = getattr(getattr(record, "request", None), "request_id", None)
            record.request_id = current_request_id.get() or from_request or "-"
        return True


def json_formatter() -> JsonFormatter:
    """One JSON object a line: time, level, logger, message, request id, and whatever `extra` a call adds."""
    return JsonFormatter(
        "{levelname}{name}{message}{request_id}",
        style="{",
        rename_fields={"levelname": "level", "name": "logger"},
        timestamp="time",  # ISO 8601, UTC
    )
