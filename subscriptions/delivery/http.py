"""HTTP delivery: a structured-mode CloudEvent POSTed (or PUT/PATCHed) to the sink with the subscription's headers.

Sent with httpcore, the transport under httpx: a delivery needs one request on a pooled keep-alive
connection and nothing of httpx's client layer (cookies, redirects, auth, URL and header models), which
costs as much CPU again as the request itself (docs/performance.md). Redirects are not followed. The request goes to the parsed sink's host and port (never
the text re-read by another parser) through `outbound`'s pool, which dials only globally reachable addresses;
the whole attempt (connect, send, answer) ends within `REGISTRY_DELIVERY_TIMEOUT`, and at most
`ANSWER_EXCERPT` bytes of the answer are read. A sink's user info is sent as HTTP Basic credentials (unless the
subscription's headers hold an `Authorization`).
"""

from __future__ import annotations

import base64
from http import HTTPStatus

import httpcore
from django.conf import settings

from .. import outbound
from ..redaction import redacted_text
from ..validators.sink_urls import Sink, SinkError
from ..validators.sinks import deliverable
from .events import event_format, structured
from .outcome import Outcome

ANSWER_EXCERPT = 200
FAILURES = (
    httpcore.TimeoutException,
    httpcore.NetworkError,
    httpcore.ProtocolError,
    httpcore.UnsupportedProtocol,
    httpcore.ProxyError,
    OSError,
)


def pool() -> httpcore.ConnectionPool:
    return outbound.pool()


def url_of(sink: Sink) -> httpcore.URL:
    """The request URL built from the parsed sink: its one host and port, its path and query."""
    target = (sink.path or "/") + (f"?{sink.query}" if sink.query else "")
    return httpcore.URL(scheme=sink.scheme, host=sink.host, port=sink.port, target=target)


def host_header(sink: Sink) -> str:
    default = {"http": 80, "https": 443}[sink.scheme]
    shown = f"[{sink.host}]" if ":" in sink.host else sink.host
    return shown if sink.port == default else f"{shown}:{sink.port}"


def request(sink: Sink, method: str, headers: dict, body: bytes | None, timeout: float):
    """(status, headers, first ANSWER_EXCERPT bytes of the body) of one request to the sink, all of it within
    `timeout` seconds; raises one of FAILURES."""
    if not any(name.lower() == "host" for name in headers):
        headers = {"Host": host_header(sink), **headers}
    if sink.username is not None and not any(name.lower() == "authorization" for name in headers):
        # https://user:password@host/...: HTTP Basic, as curl, browsers and httpx read such a URL
        token = base64.b64encode(f"{sink.username}:{sink.password or ''}".encode()).decode("ascii")
        headers = {**headers, "Authorization": f"Basic {token}"}
    with outbound.deadline(timeout):
        with pool().stream(
            method,
            url_of(sink),
            headers=list(headers.items()),
            content=body,
            extensions={"timeout": {"connect": timeout, "read": timeout, "write": timeout, "pool": timeout}},
        ) as response:
            return response.status, response.headers, outbound.read_at_most(response, ANSWER_EXCERPT)


def send(subscription, event) -> Outcome:
    try:
        sink = deliverable(subscription)
    except SinkError as exc:
        return Outcome(ok=False, status_code=None, error=f"refused: {exc}")
    headers, body = structured(event, event_format(subscription))
    options = subscription.protocolsettings or {}
    headers.update(options.get("headers") or {})
    method = (options.get("method") or "POST").upper()
    timeout = settings.REGISTRY_DELIVERY_TIMEOUT
    try:
        status, answer_headers, excerpt = request(sink, method, headers, body, timeout)
    except FAILURES as exc:
        return Outcome(ok=False, error=f"{type(exc).__name__}: {exc}")
    ok = 200 <= status < 300
    retry_after = next(
        (value.decode("latin-1") for name, value in answer_headers if name.lower() == b"retry-after"), None
    )
    # the answer may echo the request: the subscription's secrets are not kept in the attempt's error
    error = "" if ok else redacted_text(refusal(status, excerpt), subscription)
    return Outcome(ok=ok, status_code=status, retry_after=retry_after, error=error)


def refusal(status: int, excerpt: bytes) -> str:
    """`HTTP 503 Service Unavailable: <the start of the body>`: the status with its reason phrase, then the start
    of the answer's body when it has one."""
    phrase = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else "(unregistered status)"
    text = excerpt.decode("utf-8", "replace").strip()
    return f"HTTP {status} {phrase}" + (f": {text}" if text else "")
