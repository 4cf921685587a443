"""A subscription's status (active, failed, disabled) and its reason, set by the delivery, the handshake and the
admin. A module of its own below services and tasks: the delivery and the handshake change a status without
importing the services that queue them.

A status the system sets (`system_sets_status`: the webhook handshake's result, a sink's 410 Gone) is an update of
the subscription like any other: it writes its audit row (actor `system:delivery`, door `delivery`) in the same
transaction; the services' own changes (the admin's "Disable") record theirs with the acting user."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from registry.services import WriteContext
from registry.store import audit

from .models import Subscription

DOOR = "delivery"


def set_status(subscription: Subscription, status: str, reason: str = "") -> None:
    """Set the status of a subscription whose change the caller audits (subscriptions/services.py)."""
    Subscription.objects.filter(pk=subscription.pk).update(
        status=status, status_reason=reason, modified_on=timezone.now()
    )
    subscription.status, subscription.status_reason = status, reason


@transaction.atomic
def system_sets_status(subscription: Subscription, status: str, reason: str = "") -> None:
    """The system's change of a subscription's status (the handshake's result, a 410 Gone), with its audit row in
    the same transaction; a status and reason already stored write nothing, nor does a subscription deleted
    meanwhile."""
    stored = (
        Subscription.objects.select_for_update().filter(pk=subscription.pk).values_list("status", "status_reason")
    ).first()
    subscription.status, subscription.status_reason = status, reason
    if stored is None or stored == (status, reason):
        return
    set_status(subscription, status, reason)
    changes = audit.changes({"status": stored[0]}, {"status": status})  # (its reason is not kept: a sink's words)
    audit.record_now(WriteContext(door=DOOR), f"/subscriptions/{subscription.pk}", "update", changes)
