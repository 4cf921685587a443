"""The retry policy: which outcomes are retried, exponential backoff with jitter, `Retry-After`, limits.

Defaults (docs/api-contract.md section 9): from 1 s, factor 2, jitter, capped at 1 hour; at most 20 attempts and
24 hours, then a dead letter. Settings override them; a subscription may override attempts and time to live.
"""

from __future__ import annotations

import random
from datetime import timedelta
from email.utils import parsedate_to_datetime

from django.conf import settings
from django.utils import timezone

RETRYABLE_STATUSES = {404, 408, 409, 429}


def is_retryable(status_code: int | None) -> bool:
    """Connection errors (None), 404/408/409/429 and 5xx are retried; other 4xx are not."""
    return status_code is None or status_code in RETRYABLE_STATUSES or status_code >= 500


def max_attempts(subscription) -> int:
    return subscription.max_attempts or settings.REGISTRY_DELIVERY_MAX_ATTEMPTS


def ttl(subscription) -> timedelta:
    return timedelta(seconds=subscription.ttl_seconds or settings.REGISTRY_DELIVERY_TTL_SECONDS)


def backoff_seconds(attempt: int) -> float:
    """Delay after the given failed attempt (1-based): base * factor^(attempt-1), capped, with full jitter
    on the upper half so that retries of many deliveries spread out."""
    base = settings.REGISTRY_DELIVERY_BACKOFF_BASE
    cap = settings.REGISTRY_DELIVERY_BACKOFF_CAP
    delay = min(cap, base * (2 ** (attempt - 1)))
    return delay / 2 + random.uniform(0, delay / 2)


def retry_after_seconds(value: str | None) -> float | None:
    """`Retry-After` as seconds (delta-seconds or an HTTP date), None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - timezone.now()).total_seconds())


def next_delay(attempt: int, retry_after: str | None) -> float:
    honoured = retry_after_seconds(retry_after)
    if honoured is not None:
        return min(honoured, settings.REGISTRY_DELIVERY_BACKOFF_CAP)
    return backoff_seconds(attempt)
