"""HTTP delivery: a structured-mode CloudEvent POSTed (or PUT/PATCHed) to the sink with the subscription's headers."""
from __future__ import annotations

import httpx
from django.conf import settings

from ..validators.sinks import check_sink
from .events import structured
from .outcome import Outcome

_client: httpx.Client | None = None


def client() -> httpx.Client:
    """One pooled client per process (thread-safe): building one per delivery loads the CA bundle each
    time, which costs more than the delivery itself."""
    global _client
    if _client is None:
        _client = httpx.Client(timeout=settings.REGISTRY_DELIVERY_TIMEOUT, follow_redirects=False,
                               limits=httpx.Limits(max_connections=100, max_keepalive_connections=20))
    return _client


def send(subscription, event) -> Outcome:
    reason = check_sink(subscription.sink, settings.REGISTRY_ALLOW_PRIVATE_SINKS)
    if reason:
        return Outcome(ok=False, status_code=None, error=f"refused: {reason}")
    headers, body = structured(event)
    options = subscription.protocolsettings or {}
    headers.update(options.get("headers") or {})
    method = (options.get("method") or "POST").upper()
    try:
        response = client().request(method, subscription.sink, content=body, headers=headers)
    except httpx.HTTPError as exc:
        return Outcome(ok=False, error=f"{type(exc).__name__}: {exc}")
    ok = 200 <= response.status_code < 300
    return Outcome(ok=ok, status_code=response.status_code, retry_after=response.headers.get("Retry-After"),
                   error="" if ok else f"HTTP {response.status_code}: {response.text[:200]}")
