"""The CloudEvents webhook abuse-protection handshake (HTTP 1.1 Web Hooks for Event Delivery, section 4).

Before an HTTP subscription becomes active, the sink is asked with `OPTIONS` and `WebHook-Request-Origin`;
it must answer 2xx with `WebHook-Allowed-Origin` naming our origin (or `*`). A refusal's status reason (shown in
the answer to the POST that created the subscription) says what the sink answered and what it must answer: a
plain webhook receiver knows nothing of the handshake.
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
        system_sets_status(subscription, Subscription.Status.FAILED, refusal(subscription, status, allowed_header))
    return subscription.status


def refusal(subscription: Subscription, status: int, allowed_header: str | None) -> str:
    """Why the sink's answer to the handshake is a refusal, and the answer that would have been an acceptance."""
    if not 200 <= status < 300:
        answered = f"the sink answered the handshake's OPTIONS request with HTTP {status}"
    elif allowed_header is None:
        answered = f"the sink's answer to the handshake's OPTIONS request (HTTP {status}) has no WebHook-Allowed-Origin"
    else:
        answered = f"the sink's WebHook-Allowed-Origin {allowed_header!r} does not name this registry ({origin()!r})"
    return (
        f"handshake refused: {answered}. The CloudEvents webhook abuse-protection handshake: the receiver answers an "
        f"OPTIONS request carrying 'WebHook-Request-Origin: {origin()}' with a 2xx status and the header "
        f"'WebHook-Allowed-Origin: {origin()}' (or '*'); then POST /subscriptions/{subscription.pk}/revalidate"
    )
