"""Celery tasks: relay the outbox, deliver, sweep (beat), validate webhooks. Thin: the logic lives in
relay.py, delivery/ and webhooks.py. Tasks are acknowledged late and re-queued if a worker dies."""

from __future__ import annotations

from django.conf import settings

from registry.celery import app

from . import relay, relay_flag, webhooks
from .delivery import attempts
from .models import Subscription

# a relay that found this many deliveries or fewer (a change or two of one writer) attempts them itself,
# one task per change instead of two; more are spread over every worker thread as batches
RELAY_DELIVERS_AT_MOST = 4


def dispatch(delivery_ids, countdown: float | None = None) -> None:
    """Queue deliveries in batches of REGISTRY_DELIVERY_BATCH, in the order given (change order)."""
    ids, size = list(delivery_ids), settings.REGISTRY_DELIVERY_BATCH
    for start in range(0, len(ids), size):
        deliver.apply_async((ids[start : start + size],), countdown=countdown or None)


@app.task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def relay_outbox() -> int:
    """Relay the outbox, then attempt its deliveries here (RELAY_DELIVERS_AT_MOST or fewer) or queue them."""
    relay_flag.release()  # before reading the outbox: a commit from now on queues the next relay
    ids = relay.relay_pending()
    if len(ids) > RELAY_DELIVERS_AT_MOST:
        dispatch(ids)
    elif ids:
        deliver(ids)
    return len(ids)


@app.task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def deliver(delivery_ids: list[int] | int) -> None:
    """Attempt a batch of deliveries; retries due within REGISTRY_MAX_COUNTDOWN_SECONDS are queued with a
    countdown, later ones stay in the database for the sweep (as they do in eager mode, which has no queue)."""
    # a single id: a message queued before deliveries were batched, still in the broker after an upgrade
    ids = [delivery_ids] if isinstance(delivery_ids, int) else delivery_ids
    for delay, again in attempts.attempt_batch(ids):
        if delay <= settings.REGISTRY_MAX_COUNTDOWN_SECONDS and not settings.CELERY_TASK_ALWAYS_EAGER:
            dispatch(again, countdown=delay)


@app.task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def sweep() -> int:
    """Beat: relay what a crash left behind; dispatch due retries and deliveries whose worker died."""
    relay_outbox()
    grace = settings.REGISTRY_SWEEP_GRACE_SECONDS
    ids = list(attempts.due_deliveries(grace=grace).order_by("pk").values_list("pk", flat=True)[:5000])
    dispatch(ids)
    return len(ids)


@app.task(acks_late=True, ignore_result=True)
def validate_webhook(subscription_id: str) -> str | None:
    subscription = Subscription.objects.filter(pk=subscription_id).first()
    if subscription is None or subscription.status != Subscription.Status.PENDING:
        return None
    return webhooks.validate(subscription)
