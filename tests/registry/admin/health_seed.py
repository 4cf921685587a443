"""Delivery records at known hours for the delivery health chart's tests (subscriptions/health.py)."""

from __future__ import annotations

import uuid
from datetime import UTC, timedelta

from django.utils import timezone


def seed_deliveries():
    """One subscription; in the hour 3 hours ago: 2 delivered and 3 retries; 1 hour ago: 1 dead letter after its second
    attempt (a retry); 2 hours ago: 1 dead letter without an attempt; this hour: 1 delivered. Another subscription: 1
    delivered 3 hours ago. Returns (subscription, {hour start (ISO): (delivered, retried, dead)} for all)."""
    from registry.models import OutboxEvent
    from subscriptions.models import Delivery, DeliveryAttempt, Subscription

    now = timezone.now().astimezone(UTC)
    hour = now.replace(minute=0, second=0, microsecond=0)
    minute = min(now - hour, timedelta(minutes=1))  # inside the current hour, not in the future

    def subscription(sink):
        return Subscription.objects.create(protocol="HTTP", sink=sink, status=Subscription.Status.ACTIVE)

    def delivery(sub, status, at, attempts=()):
        event = OutboxEvent.objects.create(
            type="io.cloudevents.schemaregistry.schema.updated",
            source="/",
            subject=f"/schemaGroups/g/schemas/{uuid.uuid4()}",
            time=at,
        )
        record = Delivery.objects.create(
            event=event,
            subscription=sub,
            status=status,
            attempts=len(attempts),
            next_attempt_at=at,
            deadline=at + timedelta(days=1),
            delivered_at=at if status == Delivery.Status.DELIVERED else None,
        )
        for number, started in enumerate(attempts, start=1):
            DeliveryAttempt.objects.create(
                delivery=record, number=number, started_at=started, status_code=503 if number < len(attempts) else 200
            )
        return record

    main, other = subscription("https://sink.example/main"), subscription("https://sink.example/other")
    three = hour - timedelta(hours=3)
    delivery(main, Delivery.Status.DELIVERED, three + timedelta(minutes=5))
    delivery(
        main,
        Delivery.Status.DELIVERED,
        three + timedelta(minutes=50),
        [three + timedelta(minutes=m) for m in (10, 20, 30, 40)],
    )  # attempts 2, 3, 4 are the 3 retries
    delivery(main, Delivery.Status.DEAD, hour - timedelta(hours=2) + timedelta(minutes=7))
    delivery(
        main,
        Delivery.Status.DEAD,
        hour - timedelta(hours=26),  # due long ago, attempted an hour ago
        [hour - timedelta(hours=26), hour - timedelta(minutes=30)],
    )
    delivery(main, Delivery.Status.DELIVERED, hour + minute)
    delivery(main, Delivery.Status.DELIVERED, hour - timedelta(hours=30))  # outside the 24 hours
    delivery(other, Delivery.Status.DELIVERED, three + timedelta(minutes=15))

    def key(moment):
        return moment.strftime("%Y-%m-%dT%H:00Z")

    mine = {
        key(three): (2, 3, 0),
        key(hour - timedelta(hours=2)): (0, 0, 1),
        key(hour - timedelta(hours=1)): (0, 1, 1),
        key(hour): (1, 0, 0),
    }
    everyone = {**mine, key(three): (3, 3, 0)}
    return main, mine, everyone
