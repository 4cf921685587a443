"""The CloudEvents webhook abuse-protection handshake (HTTP 1.1 Web Hooks for Event Delivery, section 4).

Before an HTTP subscription becomes active, the sink is asked with `OPTIONS` and `WebHook-Request-Origin`;
it must answer 2xx with `WebHook-Allowed-Origin` naming our origin (or `*`).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings

from .delivery.http import FAILURES, request
from .models import Subscription
from .statuses import system_sets_status
from .validators.sink_urls import SinkError
from .validators.sinks import deliverable


def origin() -> str:
    return urlsplit(getattr(settings, "REGISTRY_BASE_URL", "") or "http://localhost").hostname or "localhost"


def validate(subscription: Subscription) -> str:
    """Run the handshake (on the parsed sink, through the checked pool, within the delivery timeout); set and
    return the subscription's new status."""
    try:
        sink = deliverable(subscription)
    except SinkError as exc:
        system_sets_status(subscription, Subscription.Status.FAILED, str(exc))
        return subscription.status
    try:
        status, headers, _excerpt = request(
            sink,
            "OPTIONS",
            {"WebHook-Request-Origin": origin(), "WebHook-Request-Rate": "120"},
            None,
            settings.REGISTRY_DELIVERY_TIMEOUT,
        )
    except FAILURES as exc:
        system_sets_status(subscription, Subscription.Status.FAILED, f"handshake failed: {type(exc).__name__}: {exc}")
        return subscription.status
    allowed_header = next(
        (value.decode("latin-1") for name, value in headers if name.lower() == b"webhook-allowed-origin"), None
    )
    allowed = [o.strip() for o in (allowed_header or "").split(",")]
    if 200 <= status < 300 and (origin() in allowed or "*" in allowed):
        system_sets_status(subscription, Subscription.Status.ACTIVE, "")
    else:
        system_sets_status(
            subscription,
            Subscription.Status.FAILED,
            f"handshake refused: HTTP {status}, WebHook-Allowed-Origin {allowed_header!r}",
        )
    return subscription.status
