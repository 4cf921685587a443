"""The CloudEvents webhook abuse-protection handshake (HTTP 1.1 Web Hooks for Event Delivery, section 4).

Before an HTTP subscription becomes active, the sink is asked with `OPTIONS` and `WebHook-Request-Origin`;
it must answer 2xx with `WebHook-Allowed-Origin` naming our origin (or `*`).
"""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx
from django.conf import settings

from .models import Subscription
from .statuses import set_status
from .validators.sinks import check_sink


def origin() -> str:
    return urlsplit(getattr(settings, "REGISTRY_BASE_URL", "") or "http://localhost").hostname or "localhost"


def validate(subscription: Subscription) -> str:
    """Run the handshake; set and return the subscription's new status."""
    reason = check_sink(subscription.sink, settings.REGISTRY_ALLOW_PRIVATE_SINKS)
    if reason:
        set_status(subscription, Subscription.Status.FAILED, reason)
        return subscription.status
    try:
        response = httpx.options(
            subscription.sink,
            headers={"WebHook-Request-Origin": origin(), "WebHook-Request-Rate": "120"},
            timeout=settings.REGISTRY_DELIVERY_TIMEOUT,
        )
    except httpx.HTTPError as exc:
        set_status(subscription, Subscription.Status.FAILED, f"handshake failed: {exc}")
        return subscription.status
    allowed = [o.strip() for o in response.headers.get("WebHook-Allowed-Origin", "").split(",")]
    if 200 <= response.status_code < 300 and (origin() in allowed or "*" in allowed):
        set_status(subscription, Subscription.Status.ACTIVE, "")
    else:
        set_status(
            subscription,
            Subscription.Status.FAILED,
            f"handshake refused: HTTP {response.status_code}, WebHook-Allowed-Origin "
            f"{response.headers.get('WebHook-Allowed-Origin')!r}",
        )
    return subscription.status
