"""The outbox relay: turns committed change events into delivery records, once each.

Runs after every commit that wrote events (kicked through the engine's on-commit hook) and from the
beat sweep, so an event committed just before a crash is still relayed. Rows are claimed with
`SELECT ... FOR UPDATE SKIP LOCKED` (PostgreSQL) so that concurrent relays never take the same event;
the unique (event, subscription) constraint makes a second relay of the same event harmless.

A subscription's filters see the event it receives: those of a subscription with `config.eventformat`
`xregistry-1.0` are matched against the 1.0 event's `type` and `subject` (`io.xregistry.group.updated`,
`/schemagroups/g`), the others against the 0.5 event's. One index per event format in use.

With public reads off, a subscription is told only of what its owner may read (docs/teams.md): the user who last set
its sink (`sink_set_by_user`: who chose where the events go, by id; its creator until someone else re-points it). An event about
a group that had owners when the change was made (the outbox row keeps them, so a deleted group's last events too)
matches only subscriptions whose owner's teams held a role there, or who is a registry admin; a subscription without
an owner only events of groups without owners. Checked here, at match time, so that it holds for every filter (one
naming no group as well) and whatever the owner's teams are when it is relayed.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import Count, Max
from django.utils import timezone

from registry.access.permissions import remember_teams
from registry.access.read_scope import ReadScope, scope_for
from registry.models import OutboxEvent
from registry.store.bounded_cache import BoundedCache

from .delivery import policy
from .delivery.events import attributes, event_format
from .matching import SubscriptionIndex
from .models import Delivery, Subscription

BATCH = 500
NO_TEAM = ReadScope(frozenset())  # a subscription without an owner (or whose owner is gone): groups without owners
# the indexes under the stamp of the subscriptions they were built from (their count and latest change)
_kept = BoundedCache("subscription_indexes", max_entries=1)


def subscription_index() -> tuple[dict[str, SubscriptionIndex], dict]:
    """The indexes of active subscriptions, one per event format in use, rebuilt only when subscriptions
    changed (per process)."""
    counted = Subscription.objects.aggregate(n=Count("pk"), m=Max("modified_on"))
    stamp = (counted["n"], counted["m"])
    kept = _kept.get("indexes", version=stamp)
    if kept is None:
        indexes: dict[str, SubscriptionIndex] = {}
        by_id = {}
        for subscription in Subscription.objects.filter(status=Subscription.Status.ACTIVE):
            indexes.setdefault(event_format(subscription), SubscriptionIndex()).add(
                subscription.pk, subscription.filters
            )
            by_id[subscription.pk] = subscription
        kept = indexes, by_id
        _kept.put("indexes", kept, version=stamp)
    return kept


def matching_subscriptions(event: OutboxEvent, indexes: dict[str, SubscriptionIndex]) -> list:
    """Ids of the subscriptions whose filters match the event in the format each of them receives."""
    out = []
    for eventformat, index in indexes.items():
        out += index.match(attributes(event, eventformat))
    return out


class Readers:
    """Whether a subscription's owner may read what an event is about (see the module docstring): the owners' read
    scopes are looked up once per batch, in one query, and only when reads are not public and some event's group
    had owners."""

    def __init__(self, by_id: dict):
        self.by_id = by_id
        self.scopes: dict | None = None

    def __call__(self, subscription: Subscription, event: OutboxEvent) -> bool:
        if settings.REGISTRY_PUBLIC_READ or not event.owners:
            return True
        if self.scopes is None:
            ids = {s.sink_set_by_user_id for s in self.by_id.values() if s.sink_set_by_user_id}
            users = get_user_model().objects.filter(pk__in=ids).prefetch_related("groups")
            self.scopes = {}
            for user in users:
                remember_teams(user, frozenset(team.name for team in user.groups.all()))
                self.scopes[user.pk] = scope_for(user) if user.is_active else NO_TEAM
        scope = self.scopes.get(subscription.sink_set_by_user_id) or NO_TEAM
        return scope.may_read(event.owners if isinstance(event.owners, dict) else {})


def relay_batch() -> tuple[int, list[int]]:
    """Relay up to BATCH pending events; returns (events relayed, ids of the deliveries created)."""
    indexes, by_id = subscription_index()
    with transaction.atomic():
        qs = OutboxEvent.objects.filter(relayed_at__isnull=True).order_by("created_at")
        if connection.features.has_select_for_update_skip_locked:
            qs = qs.select_for_update(skip_locked=True)
        events = list(qs[:BATCH])
        if not events:
            return 0, []
        now = timezone.now()
        deliveries = []
        may_read = Readers(by_id)
        for event in events:
            for sid in matching_subscriptions(event, indexes):
                subscription = by_id[sid]
                if not may_read(subscription, event):
                    continue
                deliveries.append(
                    Delivery(
                        event=event, subscription_id=sid, next_attempt_at=now, deadline=now + policy.ttl(subscription)
                    )
                )
        OutboxEvent.objects.filter(pk__in=[e.pk for e in events]).update(relayed_at=now)
        if not deliveries:  # no subscription matched (the common case of most changes): two queries fewer
            return len(events), []
        Delivery.objects.bulk_create(deliveries, ignore_conflicts=True, batch_size=1000)
        ids = list(
            Delivery.objects.filter(event__in=events, status=Delivery.Status.PENDING, attempts=0)
            .order_by("pk")
            .values_list("pk", flat=True)
        )  # in the order the changes were made
    return len(events), ids


def relay_pending() -> list[int]:
    """Relay every pending event this process can claim, batch after batch."""
    created = []
    while True:
        count, ids = relay_batch()
        created += ids
        if count < BATCH:
            return created
