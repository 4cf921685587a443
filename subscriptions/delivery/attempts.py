"""The attempt loop, a batch of deliveries at a time: claim the batch (a lease, so a dead worker's claim
expires), send, record every attempt, then mark each delivery delivered, schedule its retry, disable its
subscription (410) or dead-letter it.

Batches are what make delivery fast: one claim, one insert of attempt rows and one update per outcome for
the whole batch, instead of a task, a transaction and three statements per delivery. Within a batch, each
subscription's deliveries are sent in change order and different subscriptions in parallel. A retryable
failure stops that subscription's queue: its remaining deliveries were not attempted (no attempt counted)
and wait for the same retry time. A batch keeps its claim at most half its lease: what it has not sent by
then is handed back to be dispatched again, so that no lease runs out while a worker still holds it.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from ..models import Delivery, DeliveryAttempt, Subscription
from ..statuses import system_sets_status
from . import policy, senders
from .outcome import Outcome

PENDING_SUBSCRIPTION_DELAY = 5.0

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def due_deliveries(now=None, grace: float = 0):
    """Deliveries to dispatch: pending/retrying ones due `grace` seconds ago or more, and ones whose worker's
    lease ran out. The sweep passes a grace so that it leaves alone what is already queued (a kick after the
    relay, or a retry's countdown) and only picks up what was lost."""
    now = now or timezone.now()
    return Delivery.objects.filter(
        Q(
            status__in=[Delivery.Status.PENDING, Delivery.Status.RETRYING],
            next_attempt_at__lte=now - timedelta(seconds=grace),
        )
        | Q(status=Delivery.Status.DELIVERING, leased_until__lt=now)
    )


@dataclass
class Sent:
    """One delivery sent once: what the sink said, when, and how long it took."""

    delivery: Delivery
    outcome: Outcome
    started_at: datetime
    latency_ms: float


@dataclass
class QueueRun:
    """What became of one subscription's queue in a batch: the sends made, and the deliveries left unsent
    because a retryable failure stopped the queue (`stopped_by`) or the batch ran out of time."""

    sent: list[Sent]
    unsent: list[Delivery]
    stopped_by: Sent | None = None


class Retries:
    """Deliveries to dispatch again, by delay in seconds (0: at once)."""

    def __init__(self):
        self.by_delay: dict[float, list[int]] = defaultdict(list)

    def add(self, delay: float, delivery_ids) -> None:
        self.by_delay[delay].extend(delivery_ids)

    def items(self) -> list[tuple[float, list[int]]]:
        return sorted(self.by_delay.items())


def _claim(delivery_ids) -> list[Delivery]:
    """Lease the due deliveries among `delivery_ids` (others are skipped: already delivered, or held by
    another worker), in change order, and count their attempt."""
    now = timezone.now()
    with transaction.atomic():
        qs = (
            due_deliveries(now).filter(pk__in=list(delivery_ids)).select_related("event", "subscription").order_by("pk")
        )
        if connection.features.has_select_for_update_skip_locked:
            qs = qs.select_for_update(skip_locked=True, of=("self",))
        deliveries = list(qs)
        if deliveries:
            leased_until = now + timedelta(seconds=settings.REGISTRY_DELIVERY_LEASE_SECONDS)
            Delivery.objects.filter(pk__in=[d.pk for d in deliveries]).update(
                status=Delivery.Status.DELIVERING, leased_until=leased_until, attempts=F("attempts") + 1
            )
            for delivery in deliveries:
                delivery.status, delivery.leased_until = Delivery.Status.DELIVERING, leased_until
                delivery.attempts += 1
    return deliveries


def _finish(delivery: Delivery, status: str, *, error: str = "", code=None, next_at=None) -> None:
    delivery.status, delivery.last_error, delivery.last_status_code = status, error, code
    delivery.leased_until = None
    fields = ["status", "last_error", "last_status_code", "leased_until"]
    if next_at is not None:
        delivery.next_attempt_at = next_at
        fields.append("next_attempt_at")
    delivery.save(update_fields=fields)


def _hand_back(deliveries: list[Delivery], status: str, next_at: datetime, error: str) -> None:
    """Release unsent deliveries: their claimed attempt is not counted."""
    if deliveries:
        Delivery.objects.filter(pk__in=[d.pk for d in deliveries]).update(
            status=status, next_attempt_at=next_at, leased_until=None, last_error=error, attempts=F("attempts") - 1
        )


def stops_queue(outcome: Outcome) -> bool:
    """A failure that says the sink cannot take events now (retryable) or ever (410)."""
    return not outcome.ok and (outcome.status_code == 410 or policy.is_retryable(outcome.status_code))


def _run_queue(deliveries: list[Delivery], send_until: float) -> QueueRun:
    """Send one subscription's deliveries in order until one fails in a way that stops the queue, or
    `send_until` (monotonic) passes (a queue that waited that long for a thread sends nothing)."""
    run = QueueRun(sent=[], unsent=[])
    for index, delivery in enumerate(deliveries):
        if time.monotonic() > send_until:
            run.unsent = deliveries[index:]
            break
        started_at, started = timezone.now(), time.perf_counter()
        outcome = senders.send(delivery.subscription, delivery.event)
        sent = Sent(delivery, outcome, started_at, (time.perf_counter() - started) * 1000)
        run.sent.append(sent)
        if stops_queue(outcome):
            run.stopped_by, run.unsent = sent, deliveries[index + 1 :]
            break
    return run


def _pool_executor() -> ThreadPoolExecutor:
    """The process's sending threads (one pool shared by the worker's task threads)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=settings.REGISTRY_DELIVERY_PARALLEL, thread_name_prefix="deliver")
    return _pool


def _run_queues(queues: dict[str, list[Delivery]], send_until: float) -> list[QueueRun]:
    """Each subscription's queue in order; several subscriptions in parallel (the senders use no database)."""
    if len(queues) <= 1:
        return [_run_queue(deliveries, send_until) for deliveries in queues.values()]
    return list(_pool_executor().map(lambda deliveries: _run_queue(deliveries, send_until), queues.values()))


def _settle_failure(sent: Sent, retries: Retries) -> tuple[float, datetime] | None:
    """Record a failed send's consequence; returns when the sink may be tried again, as a delay and a time
    (None when it will not be: 410 disabled the subscription)."""
    delivery, outcome = sent.delivery, sent.outcome
    if outcome.status_code == 410:
        system_sets_status(delivery.subscription, Subscription.Status.DISABLED, "the sink answered 410 Gone")
        _finish(delivery, Delivery.Status.DEAD, error=outcome.error, code=410)
        return None
    delay = policy.next_delay(delivery.attempts, outcome.retry_after)
    next_at = timezone.now() + timedelta(seconds=delay)
    if (
        not policy.is_retryable(outcome.status_code)
        or delivery.attempts >= policy.max_attempts(delivery.subscription)
        or next_at > delivery.deadline
    ):
        _finish(delivery, Delivery.Status.DEAD, error=outcome.error, code=outcome.status_code)
    else:
        _finish(delivery, Delivery.Status.RETRYING, error=outcome.error, code=outcome.status_code, next_at=next_at)
        retries.add(delay, [delivery.pk])
    return delay, next_at


def _settle_unsent(run: QueueRun, retry: tuple[float, datetime] | None, retries: Retries) -> None:
    """Deliveries a queue left unsent: dispatched again at once (out of time), with the retry of the failure
    that stopped the queue, or dead (the sink answered 410)."""
    if not run.unsent:
        return
    if run.stopped_by is None:
        _hand_back(run.unsent, Delivery.Status.PENDING, timezone.now(), "")
        retries.add(0, [d.pk for d in run.unsent])
    elif retry is None:
        for delivery in run.unsent:
            _finish(delivery, Delivery.Status.DEAD, error="subscription is disabled: the sink answered 410 Gone")
    else:
        delay, next_at = retry
        _hand_back(
            run.unsent,
            Delivery.Status.RETRYING,
            next_at,
            f"waiting behind delivery {run.stopped_by.delivery.pk}: {run.stopped_by.outcome.error}",
        )
        retries.add(delay, [d.pk for d in run.unsent])


def _record(runs: list[QueueRun], retries: Retries) -> None:
    """Write the attempts and the outcomes of a batch; one statement for all that went through."""
    DeliveryAttempt.objects.bulk_create(
        [
            DeliveryAttempt(
                delivery=s.delivery,
                number=s.delivery.attempts,
                started_at=s.started_at,
                status_code=s.outcome.status_code,
                latency_ms=s.latency_ms,
                error=s.outcome.error,
            )
            for run in runs
            for s in run.sent
        ]
    )
    delivered = defaultdict(list)
    for run in runs:
        retry = None
        for sent in run.sent:
            if sent.outcome.ok:
                delivered[sent.outcome.status_code].append(sent.delivery.pk)
            else:
                retry = _settle_failure(sent, retries)
        _settle_unsent(run, retry, retries)
    now = timezone.now()
    for code, pks in delivered.items():
        Delivery.objects.filter(pk__in=pks).update(
            status=Delivery.Status.DELIVERED, delivered_at=now, last_status_code=code, last_error="", leased_until=None
        )


def attempt_batch(delivery_ids) -> list[tuple[float, list[int]]]:
    """Try each of these deliveries once (those still due); returns what to dispatch again, as
    (delay in seconds, delivery ids) pairs, soonest first."""
    claimed = _claim(delivery_ids)
    send_until = time.monotonic() + settings.REGISTRY_DELIVERY_LEASE_SECONDS / 2
    retries = Retries()
    now = timezone.now()
    queues: dict[str, list[Delivery]] = {}
    for delivery in claimed:
        subscription = delivery.subscription
        if subscription.status == Subscription.Status.PENDING:
            _hand_back(
                [delivery],
                Delivery.Status.RETRYING,
                now + timedelta(seconds=PENDING_SUBSCRIPTION_DELAY),
                "subscription awaits its webhook handshake",
            )
            retries.add(PENDING_SUBSCRIPTION_DELAY, [delivery.pk])
        elif subscription.status != Subscription.Status.ACTIVE:
            _finish(delivery, Delivery.Status.DEAD, error=f"subscription is {subscription.status}")
        elif now > delivery.deadline:
            _finish(delivery, Delivery.Status.DEAD, error="time to live exceeded")
        else:
            queues.setdefault(subscription.pk, []).append(delivery)
    _record(_run_queues(queues, send_until), retries)
    return retries.items()
