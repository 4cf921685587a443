"""The attempt loop of one delivery: claim it (a lease, so a dead worker's claim expires), send, record
the attempt, then mark it delivered, schedule a retry, disable the subscription (410) or dead-letter it."""
from __future__ import annotations

import time
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from ..models import Delivery, DeliveryAttempt, Subscription
from . import policy, senders

PENDING_SUBSCRIPTION_DELAY = 5.0


def due_deliveries(now=None, grace: float = 0):
    """Deliveries to dispatch: pending/retrying ones due `grace` seconds ago or more, and ones whose worker's
    lease ran out. The sweep passes a grace so that it leaves alone what is already queued (a kick after the
    relay, or a retry's countdown) and only picks up what was lost."""
    now = now or timezone.now()
    return Delivery.objects.filter(
        Q(status__in=[Delivery.Status.PENDING, Delivery.Status.RETRYING],
          next_attempt_at__lte=now - timedelta(seconds=grace))
        | Q(status=Delivery.Status.DELIVERING, leased_until__lt=now))


def _claim(delivery_id: int) -> Delivery | None:
    now = timezone.now()
    with transaction.atomic():
        qs = due_deliveries(now).filter(pk=delivery_id).select_related("event", "subscription")
        if connection.features.has_select_for_update_skip_locked:
            qs = qs.select_for_update(skip_locked=True, of=("self",))
        delivery = qs.first()
        if delivery is None:
            return None
        delivery.status = Delivery.Status.DELIVERING
        delivery.leased_until = now + timedelta(seconds=settings.REGISTRY_DELIVERY_LEASE_SECONDS)
        delivery.attempts += 1
        delivery.save(update_fields=["status", "leased_until", "attempts"])
    return delivery


def _finish(delivery: Delivery, status: str, *, error: str = "", code=None, next_at=None, attempts=None):
    delivery.status = status
    delivery.last_error = error
    delivery.last_status_code = code
    delivery.leased_until = None
    fields = ["status", "last_error", "last_status_code", "leased_until"]
    if next_at is not None:
        delivery.next_attempt_at = next_at
        fields.append("next_attempt_at")
    if attempts is not None:
        delivery.attempts = attempts
        fields.append("attempts")
    if status == Delivery.Status.DELIVERED:
        delivery.delivered_at = timezone.now()
        fields.append("delivered_at")
    delivery.save(update_fields=fields)


def attempt(delivery_id: int) -> float | None:
    """Try one delivery once; returns the delay until its next attempt when one is scheduled."""
    delivery = _claim(delivery_id)
    if delivery is None:
        return None
    subscription = delivery.subscription
    now = timezone.now()
    if subscription.status == Subscription.Status.PENDING:
        _finish(delivery, Delivery.Status.RETRYING, error="subscription awaits its webhook handshake",
                next_at=now + timedelta(seconds=PENDING_SUBSCRIPTION_DELAY), attempts=delivery.attempts - 1)
        return PENDING_SUBSCRIPTION_DELAY
    if subscription.status != Subscription.Status.ACTIVE:
        _finish(delivery, Delivery.Status.DEAD, error=f"subscription is {subscription.status}")
        return None
    if now > delivery.deadline:
        _finish(delivery, Delivery.Status.DEAD, error="time to live exceeded")
        return None
    started = time.perf_counter()
    outcome = senders.send(subscription, delivery.event)
    latency = (time.perf_counter() - started) * 1000
    DeliveryAttempt.objects.create(delivery=delivery, number=delivery.attempts, started_at=now,
                                   status_code=outcome.status_code, latency_ms=latency, error=outcome.error)
    if outcome.ok:
        _finish(delivery, Delivery.Status.DELIVERED, code=outcome.status_code)
        return None
    if outcome.status_code == 410:
        from ..services import set_status

        set_status(subscription, Subscription.Status.DISABLED, "the sink answered 410 Gone")
        _finish(delivery, Delivery.Status.DEAD, error=outcome.error, code=410)
        return None
    delay = policy.next_delay(delivery.attempts, outcome.retry_after)
    next_at = timezone.now() + timedelta(seconds=delay)
    if (not policy.is_retryable(outcome.status_code) or delivery.attempts >= policy.max_attempts(subscription)
            or next_at > delivery.deadline):
        _finish(delivery, Delivery.Status.DEAD, error=outcome.error, code=outcome.status_code)
        return None
    _finish(delivery, Delivery.Status.RETRYING, error=outcome.error, code=outcome.status_code, next_at=next_at)
    return delay
